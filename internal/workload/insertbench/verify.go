package insertbench

import (
	"context"
	"fmt"
	"slices"
)

// The checks must not change what the next step measures (the reference runs none between
// steps: np.sh:524, 529 are commented out): a count and a scan of every index between settle and
// qr100 would load the caches and change every cached-by-OS result. So between steps the check
// is a bounded sample, and the full check runs once, after the run's last step.
const (
	checkSample = "sample: point queries at the FIFO's head and tail and just past them, 3 random point queries and 3 range queries per index, each table (at most 120 rows read)"
	checkFull   = "full: count, min and max of each table, every secondary index counted by reading it, and the sample's queries"
)

// checkOf says which check follows step.
func (b *Bench) checkOf(step string) string {
	if b.cfg.FullChecks || (len(b.cfg.Steps) > 0 && step == b.cfg.Steps[len(b.cfg.Steps)-1]) {
		return checkFull
	}
	return checkSample
}

// checksSetting is run.json's account of what is checked when.
func (b *Bench) checksSetting() map[string]string {
	last := b.cfg.Steps[len(b.cfg.Steps)-1]
	if b.cfg.FullChecks {
		return map[string]string{"after every step (--full-checks)": checkFull}
	}
	return map[string]string{"between steps": checkSample, "after " + last: checkFull}
}

// Verify implements workload.Workload: after a step, the database must hold exactly the rows the
// client accounts for (ids head..tail, none missing), every secondary index exactly as many
// entries as the table has rows, and a sample of queries must give ordered results within LIMIT.
// Between steps only the bounded sample runs (checkOf).
func (b *Bench) Verify(ctx context.Context, step string) ([]string, error) {
	var problems []string
	conn, err := b.store.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if b.checkOf(step) == checkSample {
		return b.sample(ctx, conn, step)
	}
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	gen := NewGenerator(b.rng(step, "verify", 0), b.cfg.Data)
	for _, t := range b.tables {
		st, err := b.store.Stats(ctx, t.name)
		if err != nil {
			return nil, fmt.Errorf("reading table %s: %w", t.name, err)
		}
		head, tail := t.currentHead(), t.nextID.Load()-1
		want := tail - head + 1
		if st.Rows != want {
			bad("table %s has %d rows, the client inserted and did not delete %d (ids %d..%d)", t.name, st.Rows, want, head, tail)
		}
		if want > 0 && (st.MinID != head || st.MaxID != tail) {
			bad("table %s holds ids %d..%d, the client expects %d..%d", t.name, st.MinID, st.MaxID, head, tail)
		}
		switch {
		case t.indexed && st.IndexRows == nil:
			bad("table %s has no secondary indexes after l.x", t.name)
		case !t.indexed && st.IndexRows != nil:
			bad("table %s has secondary indexes before l.x", t.name)
		}
		for i, n := range st.IndexRows {
			if n != st.Rows {
				bad("index %s of table %s has %d entries, the table has %d rows", Index(i), t.name, n, st.Rows)
			}
		}
		for _, p := range st.Problems {
			bad("table %s: %s", t.name, p)
		}

		more, err := b.queries(ctx, conn, t, gen, want > 0)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}
	return problems, nil
}

// sample is the bounded check between steps: the FIFO's head and tail rows exist, the rows just
// outside them do not, and the sample queries give valid results. It reads no more than a few
// index pages per table.
func (b *Bench) sample(ctx context.Context, conn Conn, step string) ([]string, error) {
	var problems []string
	gen := NewGenerator(b.rng(step, "verify", 0), b.cfg.Data)
	for _, t := range b.tables {
		head, tail := t.currentHead(), t.nextID.Load()-1
		span := func(from int64) []int64 {
			ids := make([]int64, 0, RowsPerQuery)
			for id := max(from, 1); id < from+RowsPerQuery; id++ {
				ids = append(ids, id)
			}
			return ids
		}
		for _, c := range []struct {
			ids  []int64
			want bool
		}{{span(head - RowsPerQuery), false}, {span(head), true}, {span(tail - RowsPerQuery + 1), true}, {span(tail + 1), false}} {
			var ids []int64
			for _, id := range c.ids {
				if (id >= head && id <= tail) == c.want && id >= 1 {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				continue
			}
			rows, err := conn.PointQuery(ctx, t.name, ids, nil)
			if err != nil {
				return nil, fmt.Errorf("point query on %s: %w", t.name, err)
			}
			if c.want && len(rows) != len(ids) {
				problems = append(problems, fmt.Sprintf("table %s: %d of the ids %d..%d exist, the client expects all (FIFO %d..%d)", t.name, len(rows), ids[0], ids[len(ids)-1], head, tail))
			}
			if !c.want && len(rows) != 0 {
				problems = append(problems, fmt.Sprintf("table %s: %d of the ids %d..%d exist, outside the client's FIFO %d..%d", t.name, len(rows), ids[0], ids[len(ids)-1], head, tail))
			}
		}
		more, err := b.queries(ctx, conn, t, gen, tail >= head)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}
	return problems, nil
}

// queries runs the sample's range queries (when the table is indexed) and point queries.
func (b *Bench) queries(ctx context.Context, conn Conn, t *table, gen *Generator, nonEmpty bool) ([]string, error) {
	var problems []string
	head, tail := t.currentHead(), t.nextID.Load()-1
	if t.indexed {
		for idx := range NumIndexes {
			for range 3 {
				x := gen.RangeStart(idx)
				rows, err := conn.RangeQuery(ctx, t.name, idx, x, nil)
				if err != nil {
					return nil, fmt.Errorf("range query on %s.%s: %w", t.name, idx, err)
				}
				problems = append(problems, checkRange(t.name, idx, x, rows, tail-head+1)...)
			}
		}
	}
	if nonEmpty {
		ids := make([]int64, RowsPerQuery)
		for range 3 {
			gen.PointIDs(ids, head, tail)
			rows, err := conn.PointQuery(ctx, t.name, ids, nil)
			if err != nil {
				return nil, fmt.Errorf("point query on %s: %w", t.name, err)
			}
			problems = append(problems, checkPoint(t.name, ids, rows, b.cfg.Data)...)
		}
	}
	return problems, nil
}

// checkRange checks one range query's result: within LIMIT, ordered by the index's columns, and
// starting at or after x.
func checkRange(table string, idx Index, x int64, rows []IndexRow, tableRows int64) []string {
	var problems []string
	if len(rows) > RowsPerQuery {
		problems = append(problems, fmt.Sprintf("range query on %s.%s from %d returned %d rows, LIMIT is %d", table, idx, x, len(rows), RowsPerQuery))
	}
	if tableRows >= RowsPerQuery && len(rows) == 0 && x == 0 {
		problems = append(problems, fmt.Sprintf("range query on %s.%s from 0 returned nothing from %d rows", table, idx, tableRows))
	}
	for i, r := range rows {
		if r[0] < x || (idx.Strict() && r[0] == x) {
			problems = append(problems, fmt.Sprintf("range query on %s.%s from %d returned a row starting %d", table, idx, x, r[0]))
		}
		if i > 0 && slices.Compare(rows[i-1][:], r[:]) > 0 {
			problems = append(problems, fmt.Sprintf("range query on %s.%s from %d is out of order at row %d: %v after %v", table, idx, x, i, r, rows[i-1]))
		}
	}
	return problems
}

// checkPoint checks one point query's result: every requested id exists (ids are dense between
// head and tail), nothing else comes back, and data has a valid length.
func checkPoint(table string, ids []int64, rows []PointRow, data DataSpec) []string {
	var problems []string
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	got := map[int64]bool{}
	for _, r := range rows {
		if !want[r.ID] {
			problems = append(problems, fmt.Sprintf("point query on %s for %v returned id %d", table, ids, r.ID))
		}
		if got[r.ID] {
			problems = append(problems, fmt.Sprintf("point query on %s returned id %d twice", table, r.ID))
		}
		got[r.ID] = true
		if len(r.Data) < data.Min || len(r.Data) > data.Max {
			problems = append(problems, fmt.Sprintf("row %d of %s has data of length %d, outside %d..%d", r.ID, table, len(r.Data), data.Min, data.Max))
		}
		if r.Product < 0 || r.Product >= Products {
			problems = append(problems, fmt.Sprintf("row %d of %s has productid %d", r.ID, table, r.Product))
		}
	}
	if len(got) != len(want) {
		problems = append(problems, fmt.Sprintf("point query on %s for %d distinct ids returned %d rows", table, len(want), len(got)))
	}
	return problems
}

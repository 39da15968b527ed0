package insertbench

import (
	"context"
	"fmt"
	"slices"
)

// Verify implements workload.Workload: after a step, the database must hold exactly the rows the
// client accounts for (ids head..tail, none missing), every secondary index exactly as many
// entries as the table has rows, and a sample of queries must give ordered results within LIMIT.
func (b *Bench) Verify(ctx context.Context, step string) ([]string, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	conn, err := b.store.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
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

		if t.indexed {
			for idx := range NumIndexes {
				for range 3 {
					x := gen.RangeStart(idx)
					rows, err := conn.RangeQuery(ctx, t.name, idx, x, nil)
					if err != nil {
						return nil, fmt.Errorf("range query on %s.%s: %w", t.name, idx, err)
					}
					problems = append(problems, checkRange(t.name, idx, x, rows, st.Rows)...)
				}
			}
		}
		if want > 0 {
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

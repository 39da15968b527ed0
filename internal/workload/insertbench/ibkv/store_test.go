package ibkv

import (
	"bytes"
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

var engines = []struct {
	kind string
	path func(dir string) string
}{
	{"pebble", func(dir string) string { return dir + "/db" }},
	{"bbolt", func(dir string) string { return dir + "/f.db" }},
}

func openTarget(t *testing.T, spec string) driver.Target {
	t.Helper()
	s, err := driver.Parse(spec)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	tg, err := driver.Open(context.Background(), s)
	if err != nil {
		t.Fatalf("Open(%q): %v", spec, err)
	}
	return tg
}

// bind is the Insert Benchmark's store on an opened key-value target.
func bind(t *testing.T, tg driver.Target) ib.Store {
	t.Helper()
	st, ok := Bind(tg)
	if !ok {
		t.Fatalf("%T is not a key-value target", tg)
	}
	return st
}

// model is the test's own account of a table's rows, by id.
type model map[int64]ib.Row

// genRows makes n rows with ids first.. in batches of 100, copying the data out of the
// generator's reused buffer.
func genRows(gen *ib.Generator, first, n int64, now int64) []ib.Row {
	var out []ib.Row
	buf := make([]ib.Row, 100)
	for done := int64(0); done < n; {
		b := buf[:min(int64(len(buf)), n-done)]
		gen.Fill(b, first+done, now)
		for _, r := range b {
			r.Data = append([]byte(nil), r.Data...)
			out = append(out, r)
		}
		done += int64(len(b))
	}
	return out
}

func insertRows(t *testing.T, c ib.Conn, table string, rows []ib.Row, batch int) {
	t.Helper()
	for i := 0; i < len(rows); i += batch {
		if err := c.Insert(context.Background(), table, rows[i:min(i+batch, len(rows))]); err != nil {
			t.Fatalf("Insert into %s: %v", table, err)
		}
	}
}

func (m model) add(rows []ib.Row) {
	for _, r := range rows {
		m[r.ID] = r
	}
}

// expectRange is what a range query must return: the rows' index keys in index order (ties by
// id, which the result cannot show), the first RowsPerQuery from x (after x when strict).
func (m model) expectRange(idx ib.Index, x int64) []ib.IndexRow {
	type entry struct {
		cols [3]int64
		id   int64
	}
	var all []entry
	for _, r := range m {
		cols := r.IndexKey(idx)
		if cols[0] < x || (idx.Strict() && cols[0] == x) {
			continue
		}
		all = append(all, entry{cols, r.ID})
	}
	slices.SortFunc(all, func(a, b entry) int {
		return cmp.Or(slices.Compare(a.cols[:], b.cols[:]), cmp.Compare(a.id, b.id))
	})
	var out []ib.IndexRow
	for _, e := range all[:min(len(all), ib.RowsPerQuery)] {
		out = append(out, ib.IndexRow(e.cols))
	}
	return out
}

func checkStats(t *testing.T, s ib.Store, table string, m model, indexed bool) {
	t.Helper()
	st, err := s.Stats(context.Background(), table)
	if err != nil {
		t.Fatalf("Stats(%s): %v", table, err)
	}
	want := ib.TableStats{Rows: int64(len(m))}
	if len(m) > 0 {
		want.MinID, want.MaxID = slices.Min(mapKeys(m)), slices.Max(mapKeys(m))
	}
	if indexed {
		want.IndexRows = []int64{int64(len(m)), int64(len(m)), int64(len(m))}
	}
	if st.Rows != want.Rows || st.MinID != want.MinID || st.MaxID != want.MaxID ||
		!slices.Equal(st.IndexRows, want.IndexRows) || (st.IndexRows == nil) != (want.IndexRows == nil) || len(st.Problems) != 0 {
		t.Fatalf("Stats(%s) = %+v, want %+v", table, st, want)
	}
}

func mapKeys(m model) []int64 {
	var ks []int64
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func checkRanges(t *testing.T, c ib.Conn, table string, m model, xs map[ib.Index][]int64) {
	t.Helper()
	for idx := range ib.NumIndexes {
		for _, x := range xs[idx] {
			got, err := c.RangeQuery(context.Background(), table, idx, x, nil)
			if err != nil {
				t.Fatalf("RangeQuery(%s, %s, %d): %v", table, idx, x, err)
			}
			if want := m.expectRange(idx, x); !slices.Equal(got, want) {
				t.Fatalf("RangeQuery(%s, %s, %d) =\n  %v\nwant\n  %v", table, idx, x, got, want)
			}
		}
	}
}

func checkPoint(t *testing.T, c ib.Conn, table string, m model, ids []int64) {
	t.Helper()
	got, err := c.PointQuery(context.Background(), table, ids, nil)
	if err != nil {
		t.Fatalf("PointQuery(%s, %v): %v", table, ids, err)
	}
	var want []ib.PointRow
	seen := map[int64]bool{}
	for _, id := range ids {
		if r, ok := m[id]; ok && !seen[id] {
			seen[id] = true
			want = append(want, ib.PointRow{ID: id, Product: r.Product, Data: r.Data})
		}
	}
	byID := func(a, b ib.PointRow) int { return cmp.Compare(a.ID, b.ID) }
	slices.SortFunc(got, byID)
	slices.SortFunc(want, byID)
	eq := func(a, b ib.PointRow) bool {
		return a.ID == b.ID && a.Product == b.Product && bytes.Equal(a.Data, b.Data)
	}
	if !slices.EqualFunc(got, want, eq) {
		t.Fatalf("PointQuery(%s, %v) = %v, want %v", table, ids, got, want)
	}
}

func TestStoreEndToEnd(t *testing.T) {
	for _, e := range engines {
		t.Run(e.kind, func(t *testing.T) {
			ctx := context.Background()
			path := e.path(t.TempDir())
			tg := openTarget(t, e.kind+":"+path)
			closed := false
			defer func() {
				if !closed {
					tg.Close()
				}
			}()
			st := bind(t, tg)
			info := tg.Info(ctx)
			if info.Kind != e.kind || info.Target != e.kind+":"+path || info.Settings["temporary"] != false {
				t.Fatalf("Info = %+v", info)
			}

			tables := []string{"pi1", "pi10"}
			if err := st.CreateTables(ctx, tables); err != nil {
				t.Fatal(err)
			}
			for _, tb := range tables {
				checkStats(t, st, tb, model{}, false)
			}
			c, err := st.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			data := ib.DataSpec{Min: 10, Max: 20, RandomPct: 50}
			now := int64(1700000000)
			m1, m10 := model{}, model{}
			// 2500 rows: more than CreateIndexes' batch of 1000, and not a multiple of it.
			rows1 := genRows(ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), data), 1, 2500, now)
			insertRows(t, c, "pi1", rows1, 100)
			m1.add(rows1)
			rows10 := genRows(ib.NewGenerator(rand.New(rand.NewPCG(2, 2)), data), 1, 300, now+1)
			insertRows(t, c, "pi10", rows10, 50)
			m10.add(rows10)
			checkStats(t, st, "pi1", m1, false)
			checkStats(t, st, "pi10", m10, false)

			if s, ok := st.(ib.Settler); ok && e.kind == "pebble" {
				// Settle first so that CreateIndexes reads sstables, not the memtable.
				desc, err := s.Settle(ctx, tables, time.Time{}, 1)
				if err != nil || desc == "" {
					t.Fatalf("Settle = %q, %v", desc, err)
				}
			}

			if err := st.CreateIndexes(ctx, "pi1"); err != nil {
				t.Fatal(err)
			}
			checkStats(t, st, "pi1", m1, true)
			checkStats(t, st, "pi10", m10, false) // the other table has no indexes

			xs := map[ib.Index][]int64{
				ib.MarketSegment:   {-1, 0, 1, 17, 5000, 9990, 9999, 10000},
				ib.RegisterSegment: {-1, 0, 1, 499, 998, 999, 1000},
				ib.PDC:             {-1, 0, 1, 250, 498, 499, 500},
			}
			// Start values that exist as leading columns, where ">" and ">=" differ.
			for idx := range ib.NumIndexes {
				for _, r := range rows1[:5] {
					xs[idx] = append(xs[idx], r.IndexKey(idx)[0])
				}
			}
			checkRanges(t, c, "pi1", m1, xs)
			// A start value past the end gives nothing.
			if got, err := c.RangeQuery(ctx, "pi1", ib.MarketSegment, ib.Products, nil); err != nil || len(got) != 0 {
				t.Fatalf("RangeQuery past the end = %v, %v", got, err)
			}
			// Rows already in out do not count against the LIMIT of the new query.
			prefilled := make([]ib.IndexRow, 12)
			if got, err := c.RangeQuery(ctx, "pi1", ib.MarketSegment, 0, prefilled); err != nil || len(got) != 12+ib.RowsPerQuery {
				t.Fatalf("RangeQuery appending to 12 rows returned %d rows, want %d (%v)", len(got), 12+ib.RowsPerQuery, err)
			}

			// Inserting into an indexed table writes index entries too.
			more := genRows(ib.NewGenerator(rand.New(rand.NewPCG(3, 3)), data), 2501, 200, now+2)
			insertRows(t, c, "pi1", more, 5)
			m1.add(more)
			checkStats(t, st, "pi1", m1, true)
			checkRanges(t, c, "pi1", m1, xs)

			checkPoint(t, c, "pi1", m1, []int64{1, 2, 2, 2700, 2701, 0, -5, 1234, 1, 2600})
			// The rows a point query returns are the caller's: they stay valid after later
			// queries, writes and a settle.
			kept, err := c.PointQuery(ctx, "pi1", []int64{3, 4, 5, 2600}, nil)
			if err != nil || len(kept) != 4 {
				t.Fatalf("PointQuery = %v, %v", kept, err)
			}
			for range 20 {
				checkPoint(t, c, "pi1", m1, []int64{6, 7, 8, 9, 2601, 2602})
			}
			// Enough writes to grow a bbolt file (and remap it) and to fill pebble's memtable.
			filler := genRows(ib.NewGenerator(rand.New(rand.NewPCG(9, 9)), ib.DataSpec{Min: 500, Max: 1000, RandomPct: 100}), 1, 8000, now)
			if err := st.CreateTables(ctx, []string{"filler"}); err != nil {
				t.Fatal(err)
			}
			insertRows(t, c, "filler", filler, 1000)
			if err := st.CreateTables(ctx, []string{"filler"}); err != nil {
				t.Fatal(err)
			}
			if s, ok := st.(ib.Settler); ok {
				if _, err := s.Settle(ctx, tables, time.Time{}, 1); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range kept {
				if want := m1[r.ID]; !bytes.Equal(r.Data, want.Data) || r.Product != want.Product {
					t.Fatalf("a kept point query row changed: id %d data %q product %d, want %q %d", r.ID, r.Data, r.Product, want.Data, want.Product)
				}
			}
			checkPoint(t, c, "pi10", m10, []int64{300, 301, 1, 7, 7})
			checkPoint(t, c, "pi1", m1, nil)

			// DeleteOldest removes exactly [from, to) and the rows' index entries.
			n, err := c.DeleteOldest(ctx, "pi1", 1, 101)
			if err != nil || n != 100 {
				t.Fatalf("DeleteOldest(1, 101) = %d, %v; want 100", n, err)
			}
			for id := int64(1); id < 101; id++ {
				delete(m1, id)
			}
			checkStats(t, st, "pi1", m1, true)
			// A range that is partly deleted already, in the middle of the table.
			n, err = c.DeleteOldest(ctx, "pi1", 500, 510)
			if err != nil || n != 10 {
				t.Fatalf("DeleteOldest(500, 510) = %d, %v; want 10", n, err)
			}
			for id := int64(500); id < 510; id++ {
				delete(m1, id)
			}
			n, err = c.DeleteOldest(ctx, "pi1", 95, 105)
			if err != nil || n != 4 {
				t.Fatalf("DeleteOldest(95, 105) after deleting up to 100 = %d, %v; want 4", n, err)
			}
			for id := int64(101); id < 105; id++ {
				delete(m1, id)
			}
			n, err = c.DeleteOldest(ctx, "pi1", 1, 50)
			if err != nil || n != 0 {
				t.Fatalf("DeleteOldest of deleted ids = %d, %v; want 0", n, err)
			}
			checkStats(t, st, "pi1", m1, true)
			checkRanges(t, c, "pi1", m1, xs)
			checkPoint(t, c, "pi1", m1, []int64{1, 100, 104, 105, 499, 500, 509, 510})

			// pi10 (whose name pi1 is a prefix of) is untouched; deleting there is separate.
			checkStats(t, st, "pi10", m10, false)
			n, err = c.DeleteOldest(ctx, "pi10", 1, 11)
			if err != nil || n != 10 {
				t.Fatalf("DeleteOldest(pi10, 1, 11) = %d, %v; want 10", n, err)
			}
			for id := int64(1); id < 11; id++ {
				delete(m10, id)
			}
			checkStats(t, st, "pi10", m10, false)
			checkStats(t, st, "pi1", m1, true)

			if s, ok := st.(ib.Settler); ok {
				desc, err := s.Settle(ctx, tables, time.Time{}, 1)
				if err != nil || desc == "" {
					t.Fatalf("Settle = %q, %v", desc, err)
				}
				if e.kind == "pebble" && !strings.Contains(desc, "compacted") {
					t.Fatalf("Settle on pebble = %q, want a description of the flush and compaction", desc)
				}
			} else {
				t.Fatalf("%T is not an insertbench.Settler", st)
			}
			checkStats(t, st, "pi1", m1, true)

			// Reopen: the data and the indexed flag persist.
			if err := tg.Close(); err != nil {
				t.Fatal(err)
			}
			closed = true
			tg = openTarget(t, e.kind+":"+path)
			closed = false
			st = bind(t, tg)
			checkStats(t, st, "pi1", m1, true)
			checkStats(t, st, "pi10", m10, false)
			c2, err := st.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			checkRanges(t, c2, "pi1", m1, xs)
			// The flag read back from the engine makes inserts write index entries.
			more = genRows(ib.NewGenerator(rand.New(rand.NewPCG(4, 4)), data), 2701, 50, now+3)
			insertRows(t, c2, "pi1", more, 50)
			m1.add(more)
			checkStats(t, st, "pi1", m1, true)

			// CreateTables drops a table with its indexes and its flag, and only that table.
			if err := st.CreateTables(ctx, []string{"pi1"}); err != nil {
				t.Fatal(err)
			}
			checkStats(t, st, "pi1", model{}, false)
			checkStats(t, st, "pi10", m10, false)
			if got, err := c2.RangeQuery(ctx, "pi1", ib.PDC, 0, nil); err != nil || len(got) != 0 {
				t.Fatalf("RangeQuery on a recreated table = %v, %v", got, err)
			}
			// Inserting after the drop does not write index entries (the table has none).
			again := genRows(ib.NewGenerator(rand.New(rand.NewPCG(5, 5)), data), 1, 30, now+4)
			insertRows(t, c2, "pi1", again, 10)
			m := model{}
			m.add(again)
			checkStats(t, st, "pi1", m, false)

			// The dropped flag persists too: reopened, the table still has no indexes.
			c2.Close()
			if err := tg.Close(); err != nil {
				t.Fatal(err)
			}
			closed = true
			tg = openTarget(t, e.kind+":"+path)
			closed = false
			st = bind(t, tg)
			checkStats(t, st, "pi1", m, false)
			checkStats(t, st, "pi10", m10, false)
		})
	}
}

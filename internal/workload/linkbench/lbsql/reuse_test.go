package lbsql

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// sqlTargets are testtargets.All's SQL targets (SQLite, PostgreSQL, MySQL), by name.
func sqlTargets(t *testing.T, db, file string) map[string]string {
	sql := map[string]string{}
	for name, target := range testtargets.All(t, db, file) {
		if strings.HasPrefix(target, "sqlite") || strings.HasPrefix(target, "postgres") || strings.HasPrefix(target, "mysql") {
			sql[name] = target
		}
	}
	return sql
}

// TestLinkReadsReuseData reads pages of links into one reused slice, as a requester does, on
// every SQL target: each read returns its own rows' data whatever the previous read left in
// the slice (longer or shorter data, more or fewer rows), and a read of a page no longer than
// the slice has held puts its data into the arrays already there.
func TestLinkReadsReuseData(t *testing.T) {
	for name, target := range sqlTargets(t, "lbsql_reuse", "reuse") {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c, err := openStore(t, target).Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			conn := inner(c).(*Conn)
			if _, err := conn.c.exec(ctx, "DELETE FROM linktable WHERE id1 IN (1, 2)"); err != nil {
				t.Fatal(err)
			}
			// id1 1: three links with 40 bytes of data each; id1 2: two with 1 and 2 bytes.
			var links []lb.Link
			for id2 := int64(1); id2 <= 3; id2++ {
				links = append(links, lb.Link{ID1: 1, ID2: id2, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault,
					Data: []byte(strings.Repeat(fmt.Sprint(id2), 40)), Time: 100 + id2, Version: 1})
			}
			for id2 := int64(1); id2 <= 2; id2++ {
				links = append(links, lb.Link{ID1: 2, ID2: id2, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault,
					Data: []byte(strings.Repeat("b", int(id2))), Time: 100 + id2, Version: 1})
			}
			if err := conn.LoadLinks(ctx, links); err != nil {
				t.Fatal(err)
			}
			want := func(id1 int64) []string { // newest first
				var w []string
				for i := len(links) - 1; i >= 0; i-- {
					if links[i].ID1 == id1 {
						w = append(w, string(links[i].Data))
					}
				}
				return w
			}
			data := func(out []lb.Link) []string {
				var d []string
				for _, l := range out {
					d = append(d, string(l.Data))
				}
				return d
			}
			var out []lb.Link
			for i, id1 := range []int64{1, 2, 1, 2} {
				before := slices.Clone(out[:cap(out)])
				if out, err = conn.GetLinkList(ctx, id1, lb.FirstLinkType, 0, 1<<62, 0, 10, out[:0]); err != nil {
					t.Fatal(err)
				}
				if got := data(out); !slices.Equal(got, want(id1)) {
					t.Errorf("read %d (id1 %d): data %q, want %q", i+1, id1, got, want(id1))
				}
				if i < 2 {
					continue
				}
				for j, l := range out { // the slice has held both pages: no new arrays
					if &l.Data[0] != &before[j].Data[:1][0] {
						t.Errorf("read %d (id1 %d): link %d's data is in a new array", i+1, id1, j)
					}
				}
			}
			if out, err = conn.GetLinks(ctx, 1, lb.FirstLinkType, []int64{1, 3}, out[:0]); err != nil {
				t.Fatal(err)
			}
			if got, w := data(out), []string{string(links[0].Data), string(links[2].Data)}; !slices.Equal(got, w) {
				t.Errorf("multiget after the reads: data %q, want %q", got, w)
			}
		})
	}
}

// openStore opens target, closed when the test ends, and creates LinkBench's tables in it.
func openStore(tb testing.TB, target string) *Store {
	tb.Helper()
	tg := testtargets.Open(tb, target)
	s, ok, _ := Bind(tg, 0, "")
	if !ok {
		tb.Fatalf("%T is not a SQL target", tg)
	}
	st := s.(*Store)
	if err := st.CreateTables(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st
}

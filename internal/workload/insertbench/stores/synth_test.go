package stores

import (
	"context"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// TestSynthStore: the synthetic target binds, and counts what a client inserted and deleted.
func TestSynthStore(t *testing.T) {
	st, err := For(testtargets.Open(t, "synth"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st.CreateTables(ctx, []string{"pi1"})
	c, _ := st.Connect(ctx)
	c.Insert(ctx, "pi1", []ib.Row{{ID: 1}, {ID: 2}, {ID: 3}})
	if n, _ := c.DeleteOldest(ctx, "pi1", 1, 3); n != 2 {
		t.Errorf("deleted %d", n)
	}
	st.CreateIndexes(ctx, "pi1")
	s, _ := st.Stats(ctx, "pi1")
	if s.Rows != 1 || s.MinID != 3 || s.MaxID != 3 || len(s.IndexRows) != 3 || s.IndexRows[0] != 1 {
		t.Errorf("stats %+v", s)
	}
}

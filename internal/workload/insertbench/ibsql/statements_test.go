package ibsql

import (
	"context"
	"testing"
	"time"

	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// By default MySQL gets the reference's SQL text (COM_QUERY, nothing prepared); --prepared
// prepares queries and deletes. The server's own counters tell which it got.
func TestMySQLStatementMode(t *testing.T) {
	m := openMySQLTest(t, "innodb")
	ctx := context.Background()
	const table = "ibsql_stmt_mode"
	if err := m.CreateTables(ctx, []string{table}); err != nil {
		t.Fatal(err)
	}
	if err := m.CreateIndexes(ctx, table); err != nil {
		t.Fatal(err)
	}
	prepares := func() (n int64) {
		var name string
		if err := m.t.DB().QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Com_stmt_prepare'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, prepared := range []bool{false, true} {
		m.SetStatementMode(prepared, false)
		c, err := m.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]ib.Row, 100)
		for i := range rows {
			rows[i] = ib.Row{ID: int64(i + 1), DateAndTime: 1767323045, CashRegister: int32(i), Data: []byte("x")}
		}
		if !prepared {
			if err := c.Insert(ctx, table, rows); err != nil {
				t.Fatal(err)
			}
		}
		before := prepares()
		for idx := range ib.NumIndexes {
			if out, err := c.RangeQuery(ctx, table, idx, 0, nil); err != nil || len(out) != ib.RowsPerQuery {
				t.Errorf("prepared=%v: range query on %s: %d rows, %v", prepared, idx, len(out), err)
			}
		}
		if out, err := c.PointQuery(ctx, table, []int64{50, 51, 52}, nil); err != nil || len(out) != 3 {
			t.Errorf("prepared=%v: point query: %d rows, %v", prepared, len(out), err)
		}
		from := int64(1)
		if prepared {
			from = 11
		}
		if n, err := c.DeleteOldest(ctx, table, from, from+10); err != nil || n != 10 {
			t.Errorf("prepared=%v: delete: %d rows, %v", prepared, n, err)
		}
		got := prepares() - before
		c.Close()
		if !prepared && got != 0 {
			t.Errorf("the reference's text mode prepared %d statements", got)
		}
		if prepared && got != 5 {
			t.Errorf("--prepared prepared %d statements, want 5 (3 range, 1 point, 1 delete)", got)
		}
	}
}

// TestStampFollowsTheSecond checks the cached dateandtime literal: a new second gives a new
// literal, in time.DateTime's form in UTC, and going back gives the older one again.
func TestStampFollowsTheSecond(t *testing.T) {
	var s stamp
	for _, sec := range []int64{0, 1795363200, 1795363200, 1795363201, 1795363200, -1} {
		want := time.Unix(sec, 0).UTC().Format(time.DateTime)
		if got := s.literal(sec); got != want {
			t.Fatalf("literal(%d) = %q, want %q", sec, got, want)
		}
	}
}

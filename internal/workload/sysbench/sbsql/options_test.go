package sbsql

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
)

// sessionStatus reads a MariaDB connection's own counters of the given names.
func sessionStatus(t *testing.T, c *sql.Conn, names ...string) map[string]int64 {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), "SHOW SESSION STATUS WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]int64{}
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		m[k] = v
	}
	return m
}

// TestOptionsPerEvent runs read_write events with sysbench's statement options on one MariaDB
// InnoDB connection and reads the server's own counters of what it was sent: with --skip-trx
// --range-size 5 --point-selects 2 --range-selects=off an event is 2 selects, 2 updates, a
// delete and an insert, no BEGIN or COMMIT, all 6 prepared; with the range selects on, the
// rows the server sends are 2 points + 5 (simple) + 1 (sum) + 5 (order) + 5 (distinct) = 18
// an event (a range that runs past the table's last id sends fewer, hence the lower bound).
func TestOptionsPerEvent(t *testing.T) {
	target, ok := sqlTargets(t, "dbperf_sysbench_opts")["mysql-innodb"]
	if !ok {
		t.Skip("no MariaDB (-short)")
	}
	for _, ranges := range []bool{false, true} {
		cfg := sb.DefaultConfig()
		cfg.SetTest("read_write")
		cfg.TableSize, cfg.Seed, cfg.QueryMode, cfg.Steps = 1000, 7, sb.QueryPrepared, []string{sb.StepPrepare}
		cfg.SkipTrx, cfg.RangeSize, cfg.PointSelects, cfg.RangeSelects = true, 5, 2, ranges
		tg := testtargets.Open(t, target)
		b := bind(t, tg, cfg)
		runSession(t, tg, b)
		store, _ := For(tg, Options{QueryMode: cfg.QueryMode, Used: cfg.Event().Used(), Tables: 1})
		ctx := context.Background()
		conn, err := store.Connect(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		raw := inner(conn).(*myConn).c
		names := []string{"Com_select", "Com_update", "Com_delete", "Com_insert", "Com_begin", "Com_commit", "Com_stmt_execute", "Rows_sent"}
		before := sessionStatus(t, raw, names...)
		cl := b.NewClient(sb.StepRun, 0, conn)
		const events = 200
		for range events {
			if err := cl.Event(ctx); err != nil {
				t.Fatal(err)
			}
		}
		after := sessionStatus(t, raw, names...)
		conn.Close()
		tg.Close()
		d := func(k string) int64 { return after[k] - before[k] }
		t.Logf("range selects %v: %d events: Com_select %d, Rows_sent %d", ranges, events, d("Com_select"), d("Rows_sent"))
		if !ranges {
			want := map[string]int64{"Com_select": 2, "Com_update": 2, "Com_delete": 1, "Com_insert": 1, "Com_begin": 0, "Com_commit": 0, "Com_stmt_execute": 6}
			for k, w := range want {
				if d(k) != w*events {
					t.Errorf("%s rose by %d in %d events, want %d per event", k, d(k), events, w)
				}
			}
			continue
		}
		if d("Com_select") != 6*events || d("Com_begin") != 0 {
			t.Errorf("range selects on: Com_select %d, Com_begin %d in %d events, want 6 and 0 per event", d("Com_select"), d("Com_begin"), events)
		}
		// SHOW SESSION STATUS's own rows count too: a few dozen at most
		if rows := d("Rows_sent"); rows < 17*events || rows > 18*events+50 {
			t.Errorf("the server sent %d rows in %d events, want 18 per event (--range-size 5)", rows, events)
		}
	}
}

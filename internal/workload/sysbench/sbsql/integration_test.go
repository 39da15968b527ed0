package sbsql

import (
	"context"
	"database/sql"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
)

// sqlTargets are the SQL targets of the tests: SQLite, PostgreSQL, MariaDB InnoDB and MyRocks.
func sqlTargets(t *testing.T, db string) map[string]string {
	m := testtargets.All(t, db, db)
	delete(m, "pebble")
	delete(m, "bbolt")
	return m
}

func bind(t *testing.T, tg driver.Target, cfg sb.Config) *sb.Bench {
	t.Helper()
	store, err := For(tg, Options{QueryMode: cfg.QueryMode, IgnoreErrors: cfg.IgnoreErrors, Used: cfg.Event().Used(), Tables: cfg.Tables})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sb.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runSession runs the bench's steps with the session's checks after each.
func runSession(t *testing.T, tg driver.Target, b *sb.Bench) {
	t.Helper()
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Workload: sb.Name,
		Target: archive.Target(tg.Info(context.Background())), Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workload: b, Dir: d, Out: io.Discard, Verify: true, Tick: 200 * time.Millisecond}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestTestsOnEverySQLTarget prepares 2 tables and runs each OLTP test for 90 events on 3
// threads, in both query modes where the target has both: the checks after each step (rows
// per table, distinct ids, rows inserted or deleted) must pass, and with no error ignored
// every event must have run its test's statements (read_write's 20 at the defaults).
func TestTestsOnEverySQLTarget(t *testing.T) {
	for name, target := range sqlTargets(t, "dbperf_sysbench") {
		t.Run(name, func(t *testing.T) {
			modes := []string{sb.QueryPrepared, sb.QuerySimple}
			if name == "sqlite" {
				modes = modes[:1]
			}
			for _, test := range sb.Tests {
				for _, mode := range modes {
					cfg := sb.DefaultConfig()
					if err := cfg.SetTest(test); err != nil {
						t.Fatal(err)
					}
					cfg.Tables, cfg.TableSize, cfg.Threads, cfg.Events, cfg.Duration, cfg.Seed = 2, 300, 3, 90, 0, 7
					cfg.QueryMode = mode
					cfg.AutoInc = test != "insert" || mode == sb.QueryPrepared // both oltp_insert forms
					tg := testtargets.Open(t, target)
					b := bind(t, tg, cfg)
					runSession(t, tg, b)
					tl := b.Totals()
					if per := int64(cfg.Event().Statements()); tl.Ignored == 0 && tl.Queries() != 90*per {
						t.Errorf("%s %s: %d statements for 90 events, want %d each", test, mode, tl.Queries(), per)
					}
					tg.Close()
				}
			}
		})
	}
}

// comCounters reads a MariaDB connection's own statement counters.
func comCounters(t *testing.T, c *sql.Conn) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	for k, v := range sessionStatus(t, c, "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_begin", "Com_commit",
		"Com_rollback", "Com_stmt_execute", "Com_stmt_prepare") {
		m[strings.ToLower(strings.TrimPrefix(k, "Com_"))] = v
	}
	return m
}

// TestComCountersPerEvent runs 200 events on one MariaDB connection (InnoDB and MyRocks) and
// reads the server's own count of each statement kind on it (SHOW SESSION STATUS): per event
// they must be what sysbench 1.0.20 makes the same server count, observed by hand with its
// oltp_read_write.lua and oltp_point_select.lua (docs/sysbench.md, "Beside sysbench"):
// read_write 14 selects, 2 updates, a delete, an insert, a BEGIN and a COMMIT, all 20 through
// COM_STMT_EXECUTE when prepared and none in simple mode; point_select one prepared select. The
// connection prepares what sysbench's thread_init prepares: read_write 11 statements, 1 table.
func TestComCountersPerEvent(t *testing.T) {
	targets := sqlTargets(t, "dbperf_sysbench_com")
	for _, name := range []string{"mysql-innodb", "mysql-rocksdb"} {
		target, ok := targets[name]
		if !ok {
			continue // -short without MariaDB
		}
		for _, c := range []struct {
			test, mode string
			prepared   int64 // Com_stmt_prepare when the connection has opened
			want       map[string]int64
		}{
			{"read_write", sb.QueryPrepared, 11, map[string]int64{"select": 14, "update": 2, "delete": 1, "insert": 1, "begin": 1, "commit": 1, "rollback": 0, "stmt_execute": 20}},
			{"read_write", sb.QuerySimple, 0, map[string]int64{"select": 14, "update": 2, "delete": 1, "insert": 1, "begin": 1, "commit": 1, "rollback": 0, "stmt_execute": 0}},
			{"point_select", sb.QueryPrepared, 1, map[string]int64{"select": 1, "update": 0, "delete": 0, "insert": 0, "begin": 0, "commit": 0, "rollback": 0, "stmt_execute": 1}},
		} {
			t.Run(name+"/"+c.test+"/"+c.mode, func(t *testing.T) {
				cfg := sb.DefaultConfig()
				cfg.SetTest(c.test)
				cfg.TableSize, cfg.Seed, cfg.QueryMode, cfg.Steps = 1000, 3, c.mode, []string{sb.StepPrepare}
				tg := testtargets.Open(t, target)
				b := bind(t, tg, cfg)
				runSession(t, tg, b)
				store, _ := For(tg, Options{QueryMode: c.mode, Used: cfg.Event().Used(), Tables: 1})
				ctx := context.Background()
				conn, err := store.Connect(ctx, true)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				raw := inner(conn).(*myConn).c // the run step's connection survives a restart (redial.go)
				before := comCounters(t, raw)
				if before["stmt_prepare"] != c.prepared {
					t.Errorf("the connection prepared %d statements, want %d as sysbench's", before["stmt_prepare"], c.prepared)
				}
				cl := b.NewClient(sb.StepRun, 0, conn)
				const events = 200
				for range events {
					if err := cl.Event(ctx); err != nil {
						t.Fatal(err)
					}
				}
				after := comCounters(t, raw)
				for k, w := range c.want {
					if d := after[k] - before[k]; d != w*events {
						t.Errorf("Com_%s rose by %d in %d events, want %d per event as sysbench's", k, d, events, w)
					}
				}
				if got := cl.ByStmt[sb.PointSelect] + cl.ByStmt[sb.SimpleRange] + cl.ByStmt[sb.SumRange] + cl.ByStmt[sb.OrderRange] + cl.ByStmt[sb.DistinctRange]; got != c.want["select"]*events {
					t.Errorf("dbperf counted %d selects, want %d", got, c.want["select"]*events)
				}
			})
		}
	}
}

// pgCounters reads sbtest1's row changes from PostgreSQL's statistics, which a backend flushes
// when it exits.
func pgCounters(t *testing.T, pg *sqldriver.Postgres) [3]int64 {
	t.Helper()
	var c [3]int64
	ctx := context.Background()
	if _, err := pg.Admin().Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		t.Fatal(err)
	}
	err := pg.Admin().QueryRow(ctx, "SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE relname = 'sbtest1'").Scan(&c[0], &c[1], &c[2])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPostgresCountersPerEvent runs 200 read_write events on one PostgreSQL connection, in
// both query modes, and reads what the server counted once the connection has closed: per event
// one row inserted, two updated, one deleted (pg_stat_user_tables). pg_stat_database's commits
// are no measure: every Sync of a prepare and the connection's setup count as one.
func TestPostgresCountersPerEvent(t *testing.T) {
	target, ok := sqlTargets(t, "dbperf_sysbench_pgstat")["postgres"]
	if !ok {
		t.Skip("-short without PostgreSQL")
	}
	for _, mode := range []string{sb.QueryPrepared, sb.QuerySimple} {
		cfg := sb.DefaultConfig()
		cfg.TableSize, cfg.Seed, cfg.QueryMode, cfg.Steps = 1000, 5, mode, []string{sb.StepPrepare}
		tg := testtargets.Open(t, target)
		b := bind(t, tg, cfg)
		runSession(t, tg, b)
		pg := tg.(*sqldriver.Postgres)
		store, _ := For(tg, Options{QueryMode: mode, Used: cfg.Event().Used(), Tables: 1})
		ctx := context.Background()
		before := pgCounters(t, pg)
		conn, err := store.Connect(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		cl := b.NewClient(sb.StepRun, 0, conn)
		const events = 200
		for range events {
			if err := cl.Event(ctx); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
		want := [3]int64{events, 2 * events, events}
		var after [3]int64
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			after = pgCounters(t, pg)
			if after[0]-before[0] >= events || time.Now().After(deadline) {
				break
			}
		}
		for i, name := range []string{"inserted", "updated", "deleted"} {
			if d := after[i] - before[i]; d != want[i] {
				t.Errorf("%s: %d rows %s in %d events, want %d", mode, d, name, events, want[i])
			}
		}
		if cl.Reads != 14*events || cl.Writes != 4*events || cl.Other != 2*events {
			t.Errorf("%s: dbperf counted %d/%d/%d reads/writes/other, want 14/4/2 per event", mode, cl.Reads, cl.Writes, cl.Other)
		}
		tg.Close()
	}
}

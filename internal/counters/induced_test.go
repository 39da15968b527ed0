package counters_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/jackc/pgx/v5"
)

// An induced event in the middle of a monitored step must be named by the counters that moved
// in the window around it. These tests run the real monitor against real servers and engines,
// with a steady load beside it; they assert no timing, only which counters moved.

// induced monitors a step (runStep: ticks on schedule, never waiting for the DBMS) while load
// runs; after tick eventTick it calls event, and at the step's end requires done to say the
// DBMS counted it. It returns the counters that moved in the window from two ticks before the
// event to two after it returned (for work the event starts but does not wait for: a flush of
// dirty pages); Movers widens it by the DBMS's publishing delay.
func induced(t *testing.T, tg driver.Target, kind archive.Target, load func(ctx context.Context) error, event func() error, done func() bool) []counters.Moved {
	t.Helper()
	var to int
	dir := runStep(t, tg, kind, load, func(*stepRun) error { return event() }, func(r *stepRun) archive.Step {
		r.mon.End(t.Context(), monitor.Totals{})
		to = min(r.eventEnd+2, totalTicks)
		return archive.Step{Step: "s"}
	})
	if !done() {
		t.Fatal("the DBMS had not counted the event by the step's end")
	}
	meta, _, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := counters.LoadStep(dir, meta, "s")
	if err != nil {
		t.Fatal(err)
	}
	// Every counter that moved: the servers are shared with other work, whose own events may
	// outrank the induced one in the window.
	moved := s.Movers(counters.Window{From: eventTick - 2, To: to}, 10000, counters.Vitals())
	t.Logf("moved in ticks %d-%d (%d): %s", eventTick-2, to, len(moved), names(moved[:min(len(moved), 12)]))
	return moved
}

func named(moved []counters.Moved, names ...string) bool {
	for _, m := range moved {
		for _, n := range names {
			if m.Name == n {
				return true
			}
		}
	}
	return false
}

func counter(t *testing.T, tg driver.Target, names ...string) float64 {
	c, err := tg.(monitor.CounterSet).DBMSCounterSet(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, n := range names {
		sum += c[n]
	}
	return sum
}

func envURL(t *testing.T, name string) string {
	u := os.Getenv(name)
	if u == "" {
		if testing.Short() {
			t.Skip(name + " is not set (-short)")
		}
		t.Fatal(name + " is not set: start the test servers (scripts/test.sh) or use go test -short")
	}
	return u
}

func open(t *testing.T, spec string) driver.Target {
	s, err := driver.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := driver.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// openPostgres opens database db of the test PostgreSQL as a target, and one connection for
// the test's own statements; both are closed when the test ends.
func openPostgres(t *testing.T, db string) (*sqldriver.Postgres, *pgx.Conn) {
	t.Helper()
	u, err := url.Parse(envURL(t, "DBPERF_TEST_POSTGRES"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	p := open(t, u.String()).(*sqldriver.Postgres)
	conn, err := p.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return p, conn
}

// TestInducedCheckpoint: a CHECKPOINT on PostgreSQL shows as requested checkpoints.
func TestInducedCheckpoint(t *testing.T) {
	p, conn := openPostgres(t, "dbperf_counters_induced")
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS induced; CREATE TABLE induced (id bigserial PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	req := []string{"bgwriter.checkpoints_req", "checkpointer.num_requested"}
	before := counter(t, p, req...)
	moved := induced(t, p, archive.Target{Kind: "postgres"},
		func(ctx context.Context) error {
			_, err := conn.Exec(ctx, "INSERT INTO induced (v) SELECT repeat('x', 200) FROM generate_series(1, 50)")
			return err
		},
		func() error { _, err := p.Admin().Exec(ctx, "CHECKPOINT"); return err },
		func() bool { return counter(t, p, req...) > before })
	if !named(moved, req...) {
		t.Errorf("CHECKPOINT: the counters that moved do not name it: %v", names(moved))
	}
}

func names(m []counters.Moved) string {
	var out []string
	for _, x := range m {
		out = append(out, fmt.Sprintf("%s %.3g (median %.3g)", x.Name, x.Window, x.Median))
	}
	return strings.Join(out, ", ")
}

// TestInducedFlushMySQL: InnoDB flushing every dirty page (innodb_max_dirty_pages_pct = 0 for
// a moment) shows as pages flushed; MyRocks' forced memtable flush as flush bytes, and in the
// table's own column family (dbperf_induced, which no other work writes) as the bytes its
// flushes and compactions wrote (its Sum row, which a new family has before its first flush;
// its L0 row appears with its first file).
func TestInducedFlushMySQL(t *testing.T) {
	base := envURL(t, "DBPERF_TEST_MYSQL")
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) {
			u, err := url.Parse(base)
			if err != nil {
				t.Fatal(err)
			}
			u.Path = "/dbperf_counters_induced"
			q := u.Query()
			q.Set("engine", engine)
			u.RawQuery = q.Encode()
			tg := open(t, u.String())
			db := tg.(*sqldriver.MySQL).DB()
			ctx := context.Background()
			cf := ""
			if engine == "rocksdb" {
				cf = " COMMENT 'cfname=dbperf_induced'"
			}
			for _, s := range []string{"DROP TABLE IF EXISTS induced", "CREATE TABLE induced (id bigint AUTO_INCREMENT, v varchar(300), PRIMARY KEY (id)" + cf + ") ENGINE=" + engine} {
				if _, err := db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			load := func(ctx context.Context) error {
				_, err := db.ExecContext(ctx, "INSERT INTO induced (v) VALUES (REPEAT('x', 200)), (REPEAT('y', 200)), (REPEAT('z', 200))")
				return err
			}
			want := []string{"innodb_buffer_pool_pages_flushed"}
			event := func() error {
				var pct string
				if err := db.QueryRowContext(ctx, "SELECT @@innodb_max_dirty_pages_pct").Scan(&pct); err != nil {
					return err
				}
				restore := "SET GLOBAL innodb_max_dirty_pages_pct = " + pct
				t.Cleanup(func() { db.ExecContext(context.Background(), restore) })
				before := counter(t, tg, want...)
				if _, err := db.ExecContext(ctx, "SET GLOBAL innodb_max_dirty_pages_pct = 0"); err != nil {
					return err
				}
				// Until the page cleaner has flushed (InnoDB counts as it writes; the ticks go on),
				// then back: under the load it would flush for as long as the setting stays, and
				// a step of flushing has flushing for its median second.
				for deadline := time.Now().Add(30 * time.Second); counter(t, tg, want...) <= before && time.Now().Before(deadline); {
					time.Sleep(50 * time.Millisecond)
				}
				_, err := db.ExecContext(ctx, restore)
				return err
			}
			perCF := ""
			if engine == "rocksdb" {
				want, perCF = []string{"rocksdb_flush_write_bytes"}, "rocksdb_compaction.dbperf_induced.sum.writegb"
				event = func() error {
					_, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1")
					return err
				}
			}
			before, beforeCF := counter(t, tg, want...), counter(t, tg, perCF)
			moved := induced(t, tg, archive.Target{Kind: "mysql", Settings: map[string]any{"engine": engine}}, load, event,
				func() bool {
					return counter(t, tg, want...) > before && (perCF == "" || counter(t, tg, perCF) > beforeCF)
				})
			if !named(moved, want...) {
				t.Errorf("a forced flush: the counters that moved do not name it: %v", names(moved))
			}
			if perCF != "" && !named(moved, perCF) {
				t.Errorf("a forced flush: the counters that moved do not name the column family's %s: %v", perCF, names(moved))
			}
		})
	}
}

// TestInducedFlushPebble: a forced flush of Pebble's memtable (Settle's) shows as flushes.
func TestInducedFlushPebble(t *testing.T) {
	tg := open(t, "pebble:"+filepath.Join(t.TempDir(), "db"))
	db := tg.(*kvdriver.DB)
	var n int64
	load := func(context.Context) error {
		return db.Write(func(w kvdriver.Writer) error {
			for range 20 {
				n++
				if err := w.Set(kvdriver.AppendInt(nil, n), make([]byte, 100)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	before := counter(t, tg, "flush_count")
	moved := induced(t, tg, archive.Target{Kind: "pebble", Engine: "Pebble"}, load,
		func() error { // Pebble's Settle: a flush, then compactions until L0 is empty
			_, err := db.Engine.(interface {
				Settle(context.Context) (string, error)
			}).Settle(context.Background())
			return err
		},
		func() bool { return counter(t, tg, "flush_count") > before })
	if !named(moved, "flush_count", "pebble.flush.count") {
		t.Errorf("a flush: the counters that moved do not name it: %v", names(moved))
	}
}

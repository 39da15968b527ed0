package sqldriver

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/monitor"
)

// counterSet checks that a target has monitor.CounterSet and samples it.
func counterSet(t *testing.T, tg any) (monitor.CounterSet, map[string]float64) {
	t.Helper()
	cs, ok := tg.(monitor.CounterSet)
	if !ok {
		t.Fatalf("%T has no CounterSet", tg)
	}
	m, err := cs.DBMSCounterSet(context.Background())
	if err != nil {
		t.Fatalf("DBMSCounterSet: %v", err)
	}
	return cs, m
}

func isGauge(cs monitor.CounterSet, name string) bool {
	for _, g := range cs.DBMSGauges() {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// TestPostgresCounterSet: the full set has every curated counter, more columns of the same
// views, one row of counters per table and per index of the database, named by it, and lock
// and activity gauges; a CHECKPOINT moves the requested checkpoints; an expired context gives
// an error, not a stale value.
func TestPostgresCounterSet(t *testing.T) {
	ctx := context.Background()
	tg, err := driver.Open(ctx, mustSpec(t, postgresMonitorURL(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	p := tg.(*Postgres)
	defer p.admin.Exec(ctx, "DROP TABLE IF EXISTS cs_t")
	monitorLoad(t, func(ctx context.Context, q string) error {
		_, err := p.admin.Exec(ctx, q)
		return err
	}, "cs_t", "", 300)
	if _, err := p.admin.Exec(ctx, "CREATE INDEX cs_t_data ON cs_t (data); SELECT count(*) FROM cs_t WHERE id = 5"); err != nil {
		t.Fatal(err)
	}
	cur := sampleCounters(t, p, "db.xact_commit")
	var m map[string]float64
	var cs monitor.CounterSet
	deadline := time.Now().Add(20 * time.Second)
	for {
		cs, m = counterSet(t, tg)
		if m["table.cs_t.n_tup_ins"] >= 300 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for n := range cur {
		if _, ok := m[n]; !ok {
			t.Errorf("the full set lacks the curated %s", n)
		}
	}
	for _, n := range []string{"db.numbackends", "db.session_time", "table.cs_t.n_tup_ins", "table.cs_t.heap_blks_hit",
		"table.cs_t.n_dead_tup", "index.cs_t_pkey.idx_scan", "index.cs_t_data.idx_blks_hit", "locks.waiting",
		"activity.active", "replication.standbys"} {
		if _, ok := m[n]; !ok {
			t.Errorf("DBMSCounterSet has no %s", n)
		}
	}
	if m["table.cs_t.n_tup_ins"] < 300 {
		t.Errorf("table.cs_t.n_tup_ins = %g after 300 rows", m["table.cs_t.n_tup_ins"])
	}
	if !isGauge(cs, "table.cs_t.n_dead_tup") || !isGauge(cs, "db.numbackends") || isGauge(cs, "table.cs_t.n_tup_ins") || isGauge(cs, "db.blks_read") {
		t.Errorf("kinds: %v", cs.DBMSGauges())
	}
	before := m["bgwriter.checkpoints_req"]
	if _, err := p.admin.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	// The checkpointer publishes its counts when it is done; another session may checkpoint too.
	after := before
	for end := time.Now().Add(10 * time.Second); after <= before && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		_, c := counterSet(t, tg)
		after = c["bgwriter.checkpoints_req"]
	}
	if after < before+1 {
		t.Errorf("checkpoints_req %g, then %g after CHECKPOINT", before, after)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if v, err := cs.DBMSCounterSet(done); err == nil || len(v) > 0 {
		t.Errorf("an expired context: %d values, %v", len(v), err)
	}
}

// TestMySQLCounterSet: every numeric status variable, the InnoDB metrics (with their gauges),
// and for MyRocks its column families' and compaction statistics.
func TestMySQLCounterSet(t *testing.T) {
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) {
			m := openMySQLTest(t, engine)
			userstatRows(t, m, engine)
			cs, c := counterSet(t, m)
			if len(c) < 400 {
				t.Errorf("%d counters: SHOW GLOBAL STATUS alone has more", len(c))
			}
			want := []string{"uptime", "innodb_buffer_pool_reads", "innodb_metrics.trx_rseg_history_len", "threads_running"}
			if engine == "rocksdb" {
				want = append(want, "rocksdb_cf.default.compaction_pending", "rocksdb_stall_micros")
			}
			for _, n := range want {
				if _, ok := c[n]; !ok {
					t.Errorf("DBMSCounterSet has no %s", n)
				}
			}
			// Per-table and per-index statistics (userstat=ON, which dbperf server start sets).
			for _, n := range []string{"table.us_t.rows_changed", "table.us_t.rows_read", "index.us_t.primary.rows_read"} {
				if c[n] <= 0 { // MyRocks counts 2 rows read for the 3-row range
					t.Errorf("%s = %g, want the rows written and read counted", n, c[n])
				}
			}
			if engine == "rocksdb" && !slices.ContainsFunc(slices.Collect(maps.Keys(c)), func(n string) bool {
				return strings.HasPrefix(n, "rocksdb_compaction.") && strings.HasSuffix(n, ".compcount")
			}) {
				t.Errorf("no rocksdb_compaction.*.compcount")
			}
			for _, g := range []string{"innodb_buffer_pool_pages_dirty", "innodb_metrics.trx_rseg_history_len", "threads_running", "rocksdb_cf.default.compaction_pending"} {
				if !isGauge(cs, g) {
					t.Errorf("%s is not a gauge", g)
				}
			}
			for _, n := range []string{"innodb_buffer_pool_pages_flushed", "innodb_os_log_written", "rocksdb_compaction.default.l0.compcount"} {
				if isGauge(cs, n) {
					t.Errorf("%s is a gauge", n)
				}
			}
			// A table the server lacks is not asked again; a timeout is only this sample's.
			st := m.monState()
			done, cancel := context.WithCancel(context.Background())
			cancel()
			if err := m.readSource(done, st, "x.", "SELECT 'a', 1, '' FROM information_schema.TABLE_STATISTICS", map[string]float64{}); err == nil || st.missing["x."] {
				t.Errorf("a canceled query: %v, missing %v", err, st.missing)
			}
			if err := m.readSource(context.Background(), st, "y.", "SELECT 'a', 1, '' FROM information_schema.NO_SUCH_TABLE", map[string]float64{}); err != nil || !st.missing["y."] {
				t.Errorf("an unknown table: %v, missing %v", err, st.missing)
			}
		})
	}
}

// userstatRows writes and reads 3 rows of a table us_t, for its TABLE_STATISTICS and
// INDEX_STATISTICS rows; the test server must keep them (userstat=ON).
func userstatRows(t *testing.T, m *MySQL, engine string) {
	t.Helper()
	ctx := context.Background()
	var on bool
	if err := m.DB().QueryRowContext(ctx, "SELECT @@userstat").Scan(&on); err != nil {
		t.Fatal(err)
	}
	if !on {
		t.Fatal("the test server runs with userstat=OFF, so it keeps no per-table statistics: start it with dbperf server start (which sets userstat = ON) or run SET GLOBAL userstat = ON")
	}
	for _, q := range []string{"CREATE TABLE us_t (id int PRIMARY KEY, v int) ENGINE=" + engine,
		"INSERT INTO us_t VALUES (1, 1), (2, 2), (3, 3)", "SELECT COUNT(v) FROM us_t FORCE INDEX (PRIMARY) WHERE id BETWEEN 1 AND 3"} {
		if _, err := m.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

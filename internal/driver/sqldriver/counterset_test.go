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
				want = append(want, "rocksdb_cf.default.compaction_pending", "rocksdb_stall_micros",
					"rocksdb_cf_stalls.default.level0_slowdown", "rocksdb_cf_stalls.default.memtable_slowdown",
					"rocksdb_cf_stalls.__system__.total")
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
			for _, g := range []string{"innodb_buffer_pool_pages_dirty", "innodb_metrics.trx_rseg_history_len", "threads_running", "rocksdb_cf.default.compaction_pending",
				"innodb_ibuf_free_list", "innodb_ibuf_size", "innodb_ibuf_segment_size", "innodb_metrics.os_pending_reads", "prepared_stmt_count"} {
				if !isGauge(cs, g) {
					t.Errorf("%s is not a gauge", g)
				}
			}
			for _, g := range []string{"rocksdb_compaction.default.l0.compactedfiles", "rocksdb_compaction.default.sum.numfiles"} {
				if !isGauge(cs, g) {
					t.Errorf("%s is not a gauge", g)
				}
			}
			mysqlValueGauges(t, m, cs, c)
			for _, n := range []string{"innodb_buffer_pool_pages_flushed", "innodb_os_log_written", "rocksdb_compaction.default.l0.compcount", "innodb_metrics.lock_deadlocks",
				"rocksdb_compaction.default.l0.writegb", "rocksdb_cf_stalls.default.level0_slowdown", "rocksdb_cf_stalls.default.total"} {
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

// mysqlValueGauges: the kinds follow INNODB_METRICS' TYPE column, read from the server: every
// enabled row of TYPE 'value' sampled is a gauge unless it is one of innodbValueTotals, and
// every SHOW GLOBAL STATUS variable the list names as a level exists on this server (a name
// that matches nothing is a typo).
func mysqlValueGauges(t *testing.T, m *MySQL, cs monitor.CounterSet, c map[string]float64) {
	t.Helper()
	rows, err := m.DB().Query("SELECT LOWER(NAME) FROM information_schema.INNODB_METRICS WHERE ENABLED AND TYPE = 'value'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if _, ok := c["innodb_metrics."+name]; !ok {
			continue
		}
		n++
		if isGauge(cs, "innodb_metrics."+name) == innodbValueTotals[name] {
			t.Errorf("innodb_metrics.%s (TYPE value): gauge %v", name, isGauge(cs, "innodb_metrics."+name))
		}
	}
	if n == 0 {
		t.Error("no INNODB_METRICS row of TYPE value was sampled")
	}
	for _, g := range []string{"innodb_ibuf_free_list", "innodb_ibuf_size", "innodb_ibuf_segment_size", "innodb_available_undo_logs",
		"aria_pagecache_blocks_used", "prepared_stmt_count", "table_open_cache_active_instances", "stack_usage"} {
		if _, ok := c[g]; !ok {
			t.Errorf("SHOW GLOBAL STATUS has no %s", g)
		}
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

// TestCFStalls parses a column family's stall counts in both of RocksDB's formats: MariaDB
// 10.11's (lines from its SHOW ENGINE ROCKSDB STATUS) and newer RocksDB's.
func TestCFStalls(t *testing.T) {
	old := "Cumulative compaction: 0.00 GB write, 0.00 MB/s write, 0.00 GB read, 0.00 MB/s read, 0.0 seconds\n" +
		"Stalls(count): 1 level0_slowdown, 0 level0_slowdown_with_compaction, 0 level0_numfiles, 0 level0_numfiles_with_compaction, " +
		"0 stop for pending_compaction_bytes, 2 slowdown for pending_compaction_bytes, 0 memtable_compaction, 4 memtable_slowdown, interval 1 total count\n" +
		"Block cache LRUCache@0x564068b8c830#24582 capacity: 409.00 MB collections: 1\n"
	got := cfStalls(old)
	want := map[string]float64{"level0_slowdown": 1, "level0_slowdown_with_compaction": 0, "level0_numfiles": 0,
		"level0_numfiles_with_compaction": 0, "stop_for_pending_compaction_bytes": 0, "slowdown_for_pending_compaction_bytes": 2,
		"memtable_compaction": 0, "memtable_slowdown": 4, "total": 7}
	if !maps.Equal(got, want) {
		t.Errorf("MariaDB 10.11's format:\ngot  %v\nwant %v", got, want)
	}
	newer := "Write Stall (count): cf-l0-file-count-limit-delays-with-ongoing-compaction: 0, l0-file-count-limit-stops: 5, " +
		"pending-compaction-bytes-delays: 12, total-delays: 12, total-stops: 5\n"
	got = cfStalls(newer)
	want = map[string]float64{"cf_l0_file_count_limit_delays_with_ongoing_compaction": 0, "l0_file_count_limit_stops": 5,
		"pending_compaction_bytes_delays": 12, "total_delays": 12, "total_stops": 5}
	if !maps.Equal(got, want) {
		t.Errorf("the newer format:\ngot  %v\nwant %v", got, want)
	}
	if got := cfStalls("** Compaction Stats [default] **\n"); len(got) != 0 {
		t.Errorf("no stall line: %v", got)
	}
}

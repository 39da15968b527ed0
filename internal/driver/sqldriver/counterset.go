package sqldriver

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Every numeric counter of each SQL target, for the monitor's counters.csv.gz
// (monitor.CounterSet; docs/counters.md lists them). Per-table and per-index rows are named by
// the table or index, so the set changes as tables come and go. A part that cannot be read
// (its query timed out, a view this server lacks) is left out of that sample; the rest is kept.

// ---- PostgreSQL

// pgGauges are PostgreSQL's levels; every other counter is a running total.
var pgGauges = []string{"db.numbackends", "table.*.n_live_tup", "table.*.n_dead_tup",
	"table.*.n_mod_since_analyze", "table.*.n_ins_since_vacuum", "locks.*", "activity.*", "replication.*"}

// DBMSGauges implements monitor.CounterSet.
func (p *Postgres) DBMSGauges() []string { return pgGauges }

// pgMiscSQL: lock waiters and locks held, backends by what they do, and standbys with their
// replay lag in bytes (0 without standbys), in one row.
const pgMiscSQL = `SELECT
  (SELECT count(*) FROM pg_locks WHERE NOT granted)::float8,
  (SELECT count(*) FROM pg_locks)::float8,
  (SELECT count(*) FROM pg_stat_activity WHERE state = 'active')::float8,
  (SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%')::float8,
  (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock')::float8,
  (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'LWLock')::float8,
  (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'IO')::float8,
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker')::float8,
  (SELECT count(*) FROM pg_stat_replication)::float8,
  (SELECT COALESCE(max(pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
     ELSE pg_current_wal_lsn() END, replay_lsn)), 0) FROM pg_stat_replication)::float8`

var pgMiscNames = []string{"locks.waiting", "locks.held", "activity.active", "activity.idle_in_transaction",
	"activity.wait_lock", "activity.wait_lwlock", "activity.wait_io", "activity.autovacuum_workers",
	"replication.standbys", "replication.replay_lag_bytes"}

// DBMSCounterSet implements monitor.CounterSet: every numeric column of the views of
// DBMSCounters; per table of the benchmark's database pg_stat_user_tables and
// pg_statio_user_tables ("table.NAME.*", NAME with its schema unless public); per index
// pg_stat_user_indexes and pg_statio_user_indexes ("index.NAME.*"); and pgMiscNames.
func (p *Postgres) DBMSCounterSet(ctx context.Context) (map[string]float64, error) {
	out, err := p.pgViewCounters(ctx)
	if out == nil {
		out = map[string]float64{}
	}
	errs := []error{err}
	errs = append(errs, p.withMonitor(ctx, func(m *pgMonitor, c *pgx.Conn) error {
		if m.tablesSQL == "" {
			if err := m.buildRelSQL(ctx, c); err != nil {
				return err
			}
		}
		e1 := pgRelRows(ctx, c, m.tablesSQL, "table.", m.tableCols, out)
		e2 := pgRelRows(ctx, c, m.indexesSQL, "index.", m.indexCols, out)
		vals := make([]float64, len(pgMiscNames))
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		e3 := c.QueryRow(ctx, pgMiscSQL).Scan(dest...)
		if e3 == nil {
			for i, n := range pgMiscNames {
				out[n] = vals[i]
			}
		}
		return errors.Join(e1, e2, e3)
	}))
	return out, errors.Join(errs...)
}

// buildRelSQL builds the per-table and per-index queries from the numeric columns the server's
// views have: the statistics and the I/O views joined, one row per relation.
func (m *pgMonitor) buildRelSQL(ctx context.Context, c *pgx.Conn) error {
	has, err := pgNumericCols(ctx, c, []string{"pg_stat_user_tables", "pg_statio_user_tables",
		"pg_stat_user_indexes", "pg_statio_user_indexes"})
	if err != nil {
		return err
	}
	sel := func(alias string, cols []string, seen map[string]bool) (exprs, names []string) {
		for _, col := range cols {
			if !seen[col] {
				seen[col] = true
				exprs, names = append(exprs, alias+"."+col+"::float8"), append(names, col)
			}
		}
		return exprs, names
	}
	build := func(stat, statio, name, key string) (string, []string) {
		seen := map[string]bool{}
		e1, n1 := sel("s", has[stat], seen)
		e2, n2 := sel("io", has[statio], seen)
		q := "SELECT s.schemaname, s." + name + ", " + strings.Join(append(e1, e2...), ", ") +
			" FROM pg_catalog." + stat + " s JOIN pg_catalog." + statio + " io USING (" + key + ")"
		return q, append(n1, n2...)
	}
	m.tablesSQL, m.tableCols = build("pg_stat_user_tables", "pg_statio_user_tables", "relname", "relid")
	m.indexesSQL, m.indexCols = build("pg_stat_user_indexes", "pg_statio_user_indexes", "indexrelname", "indexrelid")
	return nil
}

// pgRelRows reads one of buildRelSQL's queries into out as prefix+relation+"."+column.
func pgRelRows(ctx context.Context, c *pgx.Conn, q, prefix string, cols []string, out map[string]float64) error {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]*float64, len(cols))
	var schema, name string
	dest := []any{&schema, &name}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		rel := name
		if schema != "public" {
			rel = schema + "." + name
		}
		for i, v := range vals {
			if v != nil {
				out[prefix+rel+"."+cols[i]] = *v
			}
		}
	}
	return rows.Err()
}

// ---- MySQL and MariaDB

// mysqlGauges are the levels among SHOW GLOBAL STATUS (lower case) and the information_schema
// tables read; every other counter is a running total, and a drop in one is read as a reset.
// SHOW GLOBAL STATUS says nothing of a variable's kind, so its levels are listed here (checked
// against MariaDB 10.11's 639 numeric variables); INNODB_METRICS has a TYPE column, and its
// rows of TYPE 'value' are gauges as they are seen (mysqlState.gauges) but for
// innodbValueTotals, so only its 'counter' rows that are levels are listed (innodb_metrics.*).
var mysqlGauges = []string{
	"innodb_buffer_pool_pages_data", "innodb_buffer_pool_pages_dirty", "innodb_buffer_pool_pages_free",
	"innodb_buffer_pool_pages_misc", "innodb_buffer_pool_pages_old", "innodb_buffer_pool_pages_total",
	"innodb_buffer_pool_bytes_*", "innodb_checkpoint_age", "innodb_checkpoint_max_age",
	"innodb_history_list_length", "innodb_row_lock_current_waits", "innodb_row_lock_time_avg",
	"innodb_row_lock_time_max", "innodb_data_pending_*", "innodb_os_log_pending_*", "innodb_page_size",
	"innodb_mem_*", "innodb_num_open_files", "innodb_buffer_pool_load_*", "innodb_buffer_pool_dump_*",
	"innodb_undo_*_size", "threads_*", "open_*", "max_used_connections", "memory_used*",
	"key_blocks_*", "qcache_free_*", "qcache_queries_in_cache", "qcache_total_blocks", "tc_log_page_size",
	"slave_open_temp_tables", "rocksdb_memtable_total", "rocksdb_memtable_unflushed", "rocksdb_block_cache_usage", "rocksdb_num_iterators",
	"rocksdb_cf.*", "rocksdb_compaction.*.avgsec", "rocksdb_compaction.*.numfiles",
	"rocksdb_compaction.*.readmbps", "rocksdb_compaction.*.writembps", "rocksdb_compaction.*.score",
	"rocksdb_compaction.*.sizebytes", "rocksdb_compaction.*.writeamp", "rocksdb_compaction.*.compactedfiles",
	// the change buffer's pages (a drop is a merge, not a reset), undo logs, online DDL's progress
	"innodb_ibuf_free_list", "innodb_ibuf_size", "innodb_ibuf_segment_size", "innodb_available_undo_logs",
	"innodb_onlineddl_rowlog_pct_used", "innodb_onlineddl_pct_progress", "innodb_encryption_rotation_estimated_iops",
	// the server's other levels: caches, threads, statements, sessions, settings shown as status
	"aria_pagecache_blocks_not_flushed", "aria_pagecache_blocks_unused", "aria_pagecache_blocks_used",
	"acl_*", "binlog_snapshot_position", "delayed_insert_threads", "not_flushed_delayed_rows", "last_query_cost",
	"prepared_stmt_count", "stack_usage", "table_open_cache_active_instances", "tc_log_max_pages_used",
	"threadpool_idle_threads", "threadpool_threads", "rocksdb_manual_compactions_running",
	"rpl_semi_sync_master_clients", "rpl_semi_sync_master_net_avg_wait_time", "rpl_semi_sync_master_tx_avg_wait_time",
	"rpl_semi_sync_master_wait_sessions", "slave_heartbeat_period", "slaves_connected", "slaves_running",
	"ssl_ctx_verify_depth", "ssl_ctx_verify_mode", "ssl_default_timeout", "ssl_session_cache_size",
	"ssl_used_session_cache_entries", "ssl_verify_depth", "ssl_verify_mode",
	"wsrep_cluster_size", "wsrep_cluster_conf_id", "wsrep_local_index", "wsrep_*thread_count",
	// INNODB_METRICS rows of TYPE 'counter' that go down as well as up: pending I/O, locks held,
	// DDL in progress, and the flushing heuristics' averages and percentages of each pass
	"innodb_metrics.os_pending_*", "innodb_metrics.lock_rec_locks", "innodb_metrics.lock_table_locks",
	"innodb_metrics.ddl_pending_alter_table", "innodb_metrics.ddl_background_drop_indexes",
	"innodb_metrics.ddl_online_create_index", "innodb_metrics.buffer_flush_*avg*", "innodb_metrics.buffer_flush_pct_for_*",
	"innodb_metrics.buffer_flush_n_to_flush_*",
}

// innodbValueTotals are the INNODB_METRICS rows of TYPE 'value' (shown as their current value,
// not since the metric was reset) that still only grow: running totals.
var innodbValueTotals = map[string]bool{"lock_deadlocks": true, "lock_timeouts": true, "log_checkpoints": true,
	"purge_resume_count": true, "purge_stop_count": true}

// mysqlState is what the monitor learned about one MySQL target: the InnoDB metrics that are
// gauges, and the sources this server lacks (not asked again). It is kept beside the target,
// not in it, so that the sampler stays in the monitor's files.
type mysqlState struct {
	mu      sync.Mutex
	gauges  []string
	missing map[string]bool
}

var mysqlStates sync.Map // *MySQL -> *mysqlState

func (m *MySQL) monState() *mysqlState {
	st, _ := mysqlStates.LoadOrStore(m, &mysqlState{missing: map[string]bool{}})
	return st.(*mysqlState)
}

// DBMSGauges implements monitor.CounterSet.
func (m *MySQL) DBMSGauges() []string {
	st := m.monState()
	st.mu.Lock()
	defer st.mu.Unlock()
	return append(append([]string(nil), mysqlGauges...), st.gauges...)
}

// mysqlSources are the queries of DBMSCounterSet beside SHOW GLOBAL STATUS: each row is a
// name's parts, its value and (for InnoDB metrics) its type. TABLE_ and INDEX_STATISTICS have
// rows only with userstat=ON; the ROCKSDB_ tables only with MyRocks loaded.
var mysqlSources = []struct{ prefix, sql string }{
	{"innodb_metrics.", "SELECT NAME, COUNT, TYPE FROM information_schema.INNODB_METRICS WHERE ENABLED AND TYPE <> 'status_counter'"},
	{"table.", "SELECT CONCAT(TABLE_NAME, '.rows_read'), ROWS_READ, '' FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = DATABASE() " +
		"UNION ALL SELECT CONCAT(TABLE_NAME, '.rows_changed'), ROWS_CHANGED, '' FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = DATABASE() " +
		"UNION ALL SELECT CONCAT(TABLE_NAME, '.rows_changed_x_indexes'), ROWS_CHANGED_X_INDEXES, '' FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = DATABASE()"},
	{"index.", "SELECT CONCAT(TABLE_NAME, '.', INDEX_NAME, '.rows_read'), ROWS_READ, '' FROM information_schema.INDEX_STATISTICS WHERE TABLE_SCHEMA = DATABASE()"},
	{"rocksdb_cf.", "SELECT LOWER(CONCAT(CF_NAME, '.', STAT_TYPE)), VALUE, '' FROM information_schema.ROCKSDB_CFSTATS"},
	{"rocksdb_compaction.", "SELECT LOWER(CONCAT(CF_NAME, '.', LEVEL, '.', TYPE)), VALUE, '' FROM information_schema.ROCKSDB_COMPACTION_STATS"},
}

// DBMSCounterSet implements monitor.CounterSet: every numeric SHOW GLOBAL STATUS variable (by
// lower-case name, as DBMSCounters), and mysqlSources.
func (m *MySQL) DBMSCounterSet(ctx context.Context) (map[string]float64, error) {
	out, err := m.status(ctx, "SHOW GLOBAL STATUS")
	if out == nil {
		out = map[string]float64{}
	}
	errs := []error{err}
	st := m.monState()
	for _, src := range mysqlSources {
		st.mu.Lock()
		skip := st.missing[src.prefix] || src.prefix == "rocksdb_cf." && !m.engine.rocksDB() ||
			src.prefix == "rocksdb_compaction." && !m.engine.rocksDB()
		st.mu.Unlock()
		if skip {
			continue
		}
		errs = append(errs, m.readSource(ctx, st, src.prefix, src.sql, out))
	}
	st.mu.Lock()
	skip := st.missing[cfStallsPrefix] || !m.engine.rocksDB()
	st.mu.Unlock()
	if !skip {
		errs = append(errs, m.readCFStalls(ctx, st, out))
	}
	return out, errors.Join(errs...)
}

// readSource reads one of mysqlSources into out. A table the server does not have (MySQL has
// no TABLE_STATISTICS; no MyRocks: errors 1109 and 1146) is remembered and not asked again;
// any other error (a timeout, a lost connection) only leaves this sample without it.
func (m *MySQL) readSource(ctx context.Context, st *mysqlState, prefix, q string, out map[string]float64) error {
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == 1109 || me.Number == 1146) { // unknown table: not this server's
			st.mu.Lock()
			st.missing[prefix] = true
			st.mu.Unlock()
			return nil
		}
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, value, typ string
		if err := rows.Scan(&name, &value, &typ); err != nil {
			return err
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		n := prefix + strings.ToLower(name)
		out[n] = v
		if typ == "value" && !innodbValueTotals[strings.ToLower(name)] {
			st.addGauge(n)
		}
	}
	return rows.Err()
}

// cfStallsPrefix names each column family's write stalls by cause, running totals that
// MyRocks shows nowhere but in SHOW ENGINE ROCKSDB STATUS (ROCKSDB_CFSTATS has no stalls, and
// the rocksdb_stall_* status variables add up every column family).
const cfStallsPrefix = "rocksdb_cf_stalls."

// readCFStalls reads each column family's stall counts from SHOW ENGINE ROCKSDB STATUS's
// CF_COMPACTION rows into out as rocksdb_cf_stalls.CF.CAUSE, with their sum as .total. A
// server without MyRocks (error 1286, unknown storage engine) is not asked again.
func (m *MySQL) readCFStalls(ctx context.Context, st *mysqlState, out map[string]float64) error {
	rows, err := m.db.QueryContext(ctx, "SHOW ENGINE ROCKSDB STATUS")
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1286 {
			st.mu.Lock()
			st.missing[cfStallsPrefix] = true
			st.mu.Unlock()
			return nil
		}
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var typ, name, status string
		if err := rows.Scan(&typ, &name, &status); err != nil {
			return err
		}
		if typ != "CF_COMPACTION" {
			continue
		}
		for cause, v := range cfStalls(status) {
			out[cfStallsPrefix+strings.ToLower(name)+"."+cause] = v
		}
	}
	return rows.Err()
}

// cfStalls parses one column family's stall counts from its compaction status text. MariaDB
// 10.11's RocksDB prints "Stalls(count): 0 level0_slowdown, ..., 0 memtable_slowdown, interval
// 0 total count", whose last figure counts since the previous status (left out); newer RocksDB
// prints "Write Stall (count): cf-l0-file-count-limit-delays-with-ongoing-compaction: 0, ...,
// total-delays: 0, total-stops: 0". Causes are lower case with '_' for spaces and '-'; total
// is the older format's sum (the newer one's totals are kept as printed).
func cfStalls(status string) map[string]float64 {
	out := map[string]float64{}
	name := func(s string) string {
		return strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	}
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "Stalls(count):"); ok {
			total := 0.0
			for _, part := range strings.Split(rest, ",") {
				num, cause, _ := strings.Cut(strings.TrimSpace(part), " ")
				v, err := strconv.ParseFloat(num, 64)
				if err != nil || cause == "" {
					continue // "interval N total count"
				}
				out[name(cause)] = v
				total += v
			}
			if len(out) > 0 {
				out["total"] = total
			}
		} else if rest, ok := strings.CutPrefix(line, "Write Stall (count):"); ok {
			for _, part := range strings.Split(rest, ",") {
				cause, num, _ := strings.Cut(part, ":")
				if v, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil && name(cause) != "" {
					out[name(cause)] = v
				}
			}
		}
	}
	return out
}

func (st *mysqlState) addGauge(n string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, g := range st.gauges {
		if g == n {
			return
		}
	}
	st.gauges = append(st.gauges, n)
}

// ---- SQLite

// DBMSGauges implements monitor.CounterSet: SQLite's figures are all levels.
func (s *SQLite) DBMSGauges() []string { return []string{"*"} }

// DBMSCounterSet implements monitor.CounterSet: DBMSCounters, which are all it keeps.
func (s *SQLite) DBMSCounterSet(ctx context.Context) (map[string]float64, error) {
	return s.DBMSCounters(ctx)
}

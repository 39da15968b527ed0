package sqldriver

import (
	"context"
	"errors"
	"fmt"
	"github.com/dbperf/dbperf/internal/hostproc"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// What the monitor samples on each SQL target: the DBMS's processes and data directory on this
// host (a server elsewhere has neither here), the database's size as the DBMS reports it, and
// the DBMS's own counters.

// ---- PostgreSQL

// pgMonitor is the monitor's own connection, opened on first use: the admin connection serves
// DDL, checks and Settle, which may run while the monitor samples from another goroutine, and a
// pgx connection is not safe for concurrent use. mu serializes the monitor's own calls.
type pgMonitor struct {
	mu     sync.Mutex
	conn   *pgx.Conn
	closed bool
	// The counters' query and the names of its columns, built on first use from the statistics
	// views this server has.
	countersSQL   string
	counterNames  []string
	counterValues []*float64
	// The per-table and per-index queries (counterset.go) and their columns.
	tablesSQL, indexesSQL string
	tableCols, indexCols  []string
}

// withMonitor runs fn on the monitor's connection, opening it if needed. A connection that a
// failed or interrupted query closed is opened again on the next call.
func (p *Postgres) withMonitor(ctx context.Context, fn func(m *pgMonitor, c *pgx.Conn) error) error {
	m := &p.mon
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("the target is closed")
	}
	if m.conn == nil || m.conn.IsClosed() {
		cfg := p.cfg.Copy()
		cfg.RuntimeParams["application_name"] = "dbperf-monitor"
		c, err := p.connectTo(ctx, cfg)
		if err != nil {
			return err
		}
		m.conn = c
	}
	return fn(m, m.conn)
}

// closeMonitor closes the monitor's connection, if it was opened, and keeps it closed.
func (p *Postgres) closeMonitor() {
	m := &p.mon
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.conn.Close(ctx)
		m.conn = nil
	}
}

// DBMSProcesses implements monitor.Processes: the postmaster and its children (background
// processes and one backend per connection), when the server runs on this host.
func (p *Postgres) DBMSProcesses(ctx context.Context) ([]int, bool, error) {
	if !isLocalHost(ctx, p.cfg.Host) {
		return nil, false, nil
	}
	var dir string
	var backend int
	err := p.withMonitor(ctx, func(_ *pgMonitor, c *pgx.Conn) error {
		if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
			return err
		}
		err := c.QueryRow(ctx, "SHOW data_directory").Scan(&dir)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) { // not superuser nor pg_read_all_settings: the backend's parent will do
			dir, err = "", nil
		}
		return err
	})
	if err != nil {
		return nil, false, err
	}
	pm := postmasterPID(dir, backend)
	if pm == 0 {
		return nil, false, nil
	}
	return append([]int{pm}, hostproc.Children(pm)...), false, nil
}

// postmasterPID finds the postmaster from the first line of dir/postmaster.pid and from the
// parent of this connection's backend; 0 when neither can be read here or they disagree (a
// server in another pid namespace, a data directory at the same path as another server's).
func postmasterPID(dir string, backend int) int {
	fromFile := 0
	if dir != "" {
		if pid, err := readPIDFile(filepath.Join(dir, "postmaster.pid")); err == nil && hostproc.Exists(pid) {
			fromFile = pid
		}
	}
	fromBackend := 0
	if backend > 0 && strings.Contains(strings.Join(hostproc.Cmdline(backend), " "), "postgres") {
		if ppid, err := hostproc.Parent(backend); err == nil && ppid > 1 && strings.Contains(strings.Join(hostproc.Cmdline(ppid), " "), "postgres") {
			fromBackend = ppid
		}
	}
	switch {
	case fromFile != 0 && fromBackend != 0 && fromFile != fromBackend:
		return 0
	case fromFile != 0:
		return fromFile
	default:
		return fromBackend
	}
}

// DataDir implements monitor.DataDir: the server's data_directory, when the server runs on this
// host (reading it needs superuser or pg_read_all_settings).
func (p *Postgres) DataDir(ctx context.Context) (string, error) {
	var dir string
	err := p.withMonitor(ctx, func(_ *pgMonitor, c *pgx.Conn) error {
		return c.QueryRow(ctx, "SHOW data_directory").Scan(&dir)
	})
	if err != nil {
		return "", fmt.Errorf("reading the server's data_directory: %v", err)
	}
	return localDir(ctx, p.cfg.Host, dir)
}

// DatabaseSize implements monitor.Size: pg_database_size of the target's database.
func (p *Postgres) DatabaseSize(ctx context.Context) (int64, error) {
	var n int64
	err := p.withMonitor(ctx, func(_ *pgMonitor, c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
	})
	return n, err
}

// pgCounterViews are the statistics views sampled, each column named prefix+column (or
// prefix+name where given). A view or column this server lacks is left out: pg_stat_checkpointer
// is PostgreSQL 17's (which moved the checkpoint columns out of pg_stat_bgwriter), pg_stat_wal
// 14's.
var pgCounterViews = []struct {
	view, alias, prefix, where string
	cols                       []string
}{
	{"pg_stat_database", "d", "db.", "d.datname = current_database()", []string{
		"xact_commit", "xact_rollback", "blks_read", "blks_hit", "tup_returned", "tup_fetched",
		"tup_inserted", "tup_updated", "tup_deleted", "temp_files", "temp_bytes", "deadlocks",
		"blk_read_time", "blk_write_time",
	}},
	{"pg_stat_bgwriter", "b", "bgwriter.", "", []string{
		"checkpoints_timed", "checkpoints_req", "checkpoint_write_time", "checkpoint_sync_time",
		"buffers_checkpoint", "buffers_clean", "maxwritten_clean", "buffers_backend",
		"buffers_backend_fsync", "buffers_alloc",
	}},
	{"pg_stat_checkpointer", "c", "checkpointer.", "", []string{
		"num_timed", "num_requested", "write_time", "sync_time", "buffers_written",
	}},
	{"pg_stat_wal", "w", "wal.", "", []string{
		"wal_records", "wal_fpi", "wal_buffers_full", "wal_write", "wal_sync",
	}},
}

// pgCountersSQL builds the counters' query from the numeric columns the server's views have
// (every one, not only pgCounterViews' curated ones): one row, one round trip, one snapshot of
// the statistics.
func pgCountersSQL(ctx context.Context, c *pgx.Conn) (string, []string, error) {
	var views []string
	for _, v := range pgCounterViews {
		views = append(views, v.view)
	}
	has, err := pgNumericCols(ctx, c, views)
	if err != nil {
		return "", nil, err
	}
	var cols, from, where, names []string
	for _, v := range pgCounterViews {
		for _, col := range has[v.view] {
			cols = append(cols, v.alias+"."+col+"::float8")
			names = append(names, pgCounterName(v.view, v.prefix, col))
		}
		if len(has[v.view]) > 0 {
			from = append(from, "pg_catalog."+v.view+" "+v.alias)
			if v.where != "" {
				where = append(where, v.where)
			}
		}
	}
	// WAL written since initdb (a standby: replayed); also a cheap clock of the write volume.
	cols = append(cols, "(CASE WHEN pg_is_in_recovery() THEN pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0') "+
		"ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') END)::float8")
	names = append(names, "wal_bytes")
	q := "SELECT " + strings.Join(cols, ", ")
	if len(from) > 0 {
		q += " FROM " + strings.Join(from, ", ")
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return q, names, nil
}

// pgCounterName is a view's column as a counter: prefix+column, pg_stat_wal's without "wal_".
func pgCounterName(view, prefix, col string) string {
	if view == "pg_stat_wal" {
		col = strings.TrimPrefix(col, "wal_")
	}
	return prefix + col
}

// pgNumericCols are the numeric columns of each of the views, in their order; a view the
// server lacks has none.
func pgNumericCols(ctx context.Context, c *pgx.Conn, views []string) (map[string][]string, error) {
	rows, err := c.Query(ctx, `SELECT c.relname, a.attname FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'pg_catalog' AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
    AND a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'float4'::regtype,
                       'float8'::regtype, 'numeric'::regtype)
  ORDER BY c.relname, a.attnum`, views)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	has := map[string][]string{}
	for rows.Next() {
		var view, col string
		if err := rows.Scan(&view, &col); err != nil {
			return nil, err
		}
		has[view] = append(has[view], col)
	}
	return has, rows.Err()
}

// pgCurated are the names DBMSCounters reports (dbms.csv's columns): pgCounterViews' lists.
func pgCurated() map[string]bool {
	out := map[string]bool{"wal_bytes": true}
	for _, v := range pgCounterViews {
		for _, col := range v.cols {
			out[pgCounterName(v.view, v.prefix, col)] = true
		}
	}
	return out
}

// DBMSCounters implements monitor.Counters: pg_stat_database of the target's database
// ("db.*"), pg_stat_bgwriter ("bgwriter.*"), pg_stat_checkpointer on PostgreSQL 17+
// ("checkpointer.*"), pg_stat_wal ("wal.*", without the columns' "wal_" prefix), and
// "wal_bytes", the WAL's position in bytes: pgCounterViews' columns of DBMSCounterSet. All are
// running totals (times in ms). PostgreSQL publishes a backend's statistics when its
// transaction ends, at most once a second, so a sample lags the work by up to a second (longer
// for a session that stays busy).
func (p *Postgres) DBMSCounters(ctx context.Context) (map[string]float64, error) {
	all, err := p.pgViewCounters(ctx)
	if err != nil {
		return nil, err
	}
	keep := pgCurated()
	for n := range all {
		if !keep[n] {
			delete(all, n)
		}
	}
	return all, nil
}

// pgViewCounters reads every numeric column of pgCounterViews in one query.
func (p *Postgres) pgViewCounters(ctx context.Context) (map[string]float64, error) {
	out := map[string]float64{}
	err := p.withMonitor(ctx, func(m *pgMonitor, c *pgx.Conn) error {
		if m.countersSQL == "" {
			q, names, err := pgCountersSQL(ctx, c)
			if err != nil {
				return err
			}
			m.countersSQL, m.counterNames = q, names
			m.counterValues = make([]*float64, len(names))
		}
		dest := make([]any, len(m.counterValues))
		for i := range m.counterValues {
			m.counterValues[i] = nil
			dest[i] = &m.counterValues[i]
		}
		if err := c.QueryRow(ctx, m.countersSQL).Scan(dest...); err != nil {
			return err
		}
		for i, v := range m.counterValues {
			if v != nil { // NULL: not collected (e.g. no WAL position yet)
				out[m.counterNames[i]] = *v
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ---- MySQL and MariaDB

// DBMSProcesses implements monitor.Processes: the server's process (mariadbd or mysqld), from its
// pid file, when the server runs on this host.
func (m *MySQL) DBMSProcesses(ctx context.Context) ([]int, bool, error) {
	if !isLocalHost(ctx, m.host()) {
		return nil, false, nil
	}
	var pidFile, dataDir string
	var port int
	err := m.db.QueryRowContext(ctx, "SELECT COALESCE(@@pid_file, ''), @@datadir, @@port").Scan(&pidFile, &dataDir, &port)
	if err != nil {
		return nil, false, err
	}
	if pid := mysqldPID(pidFile, dataDir, port); pid != 0 {
		return []int{pid}, false, nil
	}
	return nil, false, nil
}

// mysqldPID reads the server's pid file (a relative path is relative to the data directory). When
// it cannot be read, a mariadbd or mysqld process whose command line names the data directory
// or the port is taken; 0 when there is none.
func mysqldPID(pidFile, dataDir string, port int) int {
	if pidFile != "" {
		if !filepath.IsAbs(pidFile) {
			pidFile = filepath.Join(dataDir, pidFile)
		}
		if pid, err := readPIDFile(pidFile); err == nil && hostproc.Exists(pid) {
			return pid
		}
	}
	dataDir = filepath.Clean(dataDir)
	found := 0
	for _, pid := range hostproc.All() {
		args := hostproc.Cmdline(pid)
		if len(args) == 0 {
			continue
		}
		if exe := filepath.Base(args[0]); exe != "mariadbd" && exe != "mysqld" {
			continue
		}
		for i, a := range args[1:] {
			v, isDir := strings.CutPrefix(a, "--datadir=")
			if isDir && filepath.Clean(v) == dataDir ||
				a == "--port="+strconv.Itoa(port) || (a == "--port" || a == "-P") && i+2 < len(args) && args[i+2] == strconv.Itoa(port) {
				if found != 0 && found != pid {
					return 0 // ambiguous
				}
				found = pid
			}
		}
	}
	return found
}

// host is the server's host name or address; empty for a unix socket.
func (m *MySQL) host() string {
	if m.cfg.Net == "unix" {
		return ""
	}
	host, _, err := net.SplitHostPort(m.cfg.Addr)
	if err != nil {
		return m.cfg.Addr
	}
	return host
}

// DataDir implements monitor.DataDir: the server's @@datadir, when it runs on this host.
func (m *MySQL) DataDir(ctx context.Context) (string, error) {
	var dir string
	if err := m.db.QueryRowContext(ctx, "SELECT @@datadir").Scan(&dir); err != nil {
		return "", fmt.Errorf("reading the server's datadir: %v", err)
	}
	return localDir(ctx, m.host(), dir)
}

// DatabaseSize implements monitor.Size as the reference's dbsize.sh (dbsize.sh:21-32), which
// does not trust information_schema ("SHOW TABLE STATUS and IS.innodb_tablestats are not
// reliable", dbsize.sh:16): the bytes of the database's directory for InnoDB, of .rocksdb (all
// of MyRocks' data) for MyRocks, when the server runs on this host. Elsewhere it falls back to
// InformationSchemaSize.
func (m *MySQL) DatabaseSize(ctx context.Context) (int64, error) {
	dir, err := m.DataDir(ctx)
	if err != nil {
		return m.InformationSchemaSize(ctx)
	}
	sub := "SELECT DATABASE()"
	if m.engine.rocksDB() {
		sub = "SELECT @@rocksdb_datadir" // .rocksdb in FB MySQL, #rocksdb in MariaDB
	}
	var rel string
	if err := m.db.QueryRowContext(ctx, sub).Scan(&rel); err != nil {
		return 0, err
	}
	if !filepath.IsAbs(rel) {
		rel = filepath.Join(dir, rel)
	}
	if _, err := os.ReadDir(rel); err != nil { // not readable by this user
		return m.InformationSchemaSize(ctx)
	}
	return apparentSize(rel)
}

// InformationSchemaSize is data and index bytes of the database's tables as
// information_schema.tables reports them (InnoDB's from its statistics, MyRocks' estimates).
func (m *MySQL) InformationSchemaSize(ctx context.Context) (int64, error) {
	var n int64
	err := m.db.QueryRowContext(ctx, "SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS SIGNED) "+
		"FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&n)
	return n, err
}

// apparentSize is du -bs: the sum of the sizes of the files below dir.
func apparentSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // removed while walking (compaction)
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total, err
}

// mysqlStatusCounters are the SHOW GLOBAL STATUS variables sampled besides every rocksdb_* one.
// A variable the server does not have is left out.
var mysqlStatusCounters = []string{
	"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_write_requests",
	"Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_data", "Innodb_buffer_pool_pages_free",
	"Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_wait_free",
	"Innodb_data_read", "Innodb_data_reads", "Innodb_data_written", "Innodb_data_writes", "Innodb_data_fsyncs",
	"Innodb_os_log_written", "Innodb_log_waits", "Innodb_log_writes", "Innodb_checkpoint_age",
	"Innodb_history_list_length", "Innodb_row_lock_waits", "Innodb_row_lock_time",
	"Innodb_pages_created", "Innodb_pages_read", "Innodb_pages_written",
	// MySQL's; MariaDB (10.6 and later) has no Innodb_rows_*, and Handler_* counts the rows of
	// every engine on both.
	"Innodb_rows_inserted", "Innodb_rows_deleted", "Innodb_rows_updated", "Innodb_rows_read",
	"Handler_write", "Handler_delete", "Handler_update", "Handler_read_key", "Handler_read_next",
	"Handler_read_rnd_next", "Handler_commit", "Rows_read",
	"Com_insert", "Com_delete", "Com_select", "Com_update", "Com_commit", "Questions",
	"Threads_running", "Threads_connected", "Bytes_received", "Bytes_sent",
}

var mysqlStatusSQL = "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(mysqlStatusCounters, "', '") +
	"') OR Variable_name LIKE 'rocksdb\\_%'"

// DBMSCounters implements monitor.Counters: the numeric SHOW GLOBAL STATUS variables of
// mysqlStatusCounters and every rocksdb_* one (MyRocks), by lower-case name. Most are running
// totals; Innodb_buffer_pool_pages_*, Innodb_checkpoint_age, Innodb_history_list_length and
// Threads_* are gauges.
func (m *MySQL) DBMSCounters(ctx context.Context) (map[string]float64, error) {
	return m.status(ctx, mysqlStatusSQL)
}

// status reads the numeric variables of a SHOW GLOBAL STATUS statement, by lower-case name.
func (m *MySQL) status(ctx context.Context, q string) (map[string]float64, error) {
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			out[strings.ToLower(name)] = v
		}
	}
	return out, rows.Err()
}

// ---- SQLite

// DBMSProcesses implements monitor.Processes: SQLite runs in this process.
func (s *SQLite) DBMSProcesses(context.Context) ([]int, bool, error) {
	return []int{os.Getpid()}, true, nil
}

// DataDir implements monitor.DataDir: the directory of the database file.
func (s *SQLite) DataDir(context.Context) (string, error) {
	path, err := filepath.Abs(s.path)
	if err != nil {
		return "", err
	}
	return filepath.Dir(path), nil
}

// DatabaseSize implements monitor.Size: page_count × page_size, the database file's size once
// the WAL is checkpointed into it.
func (s *SQLite) DatabaseSize(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, "SELECT p.page_count * s.page_size FROM pragma_page_count() p, pragma_page_size() s").Scan(&n)
	return n, err
}

// DBMSCounters implements monitor.Counters, all gauges: page_count and freelist_count (pages),
// page_size, and wal_bytes, the size of the WAL file (0 when there is none); the WAL grows until
// a checkpoint restarts it from the beginning, and TRUNCATE checkpoints (Settle) empty it.
func (s *SQLite) DBMSCounters(ctx context.Context) (map[string]float64, error) {
	var pages, free, size int64
	err := s.db.QueryRowContext(ctx, "SELECT p.page_count, f.freelist_count, s.page_size "+
		"FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s").Scan(&pages, &free, &size)
	if err != nil {
		return nil, err
	}
	var wal int64
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		wal = fi.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return map[string]float64{
		"page_count": float64(pages), "freelist_count": float64(free), "page_size": float64(size),
		"wal_bytes": float64(wal),
	}, nil
}

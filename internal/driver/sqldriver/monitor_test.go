package sqldriver

import (
	"context"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/monitor"
)

func TestPIDFiles(t *testing.T) {
	dir := t.TempDir()
	self := os.Getpid()
	if err := os.WriteFile(filepath.Join(dir, "s.pid"), []byte(strconv.Itoa(self)+"\n"+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid, err := readPIDFile(filepath.Join(dir, "s.pid")); err != nil || pid != self {
		t.Errorf("readPIDFile = %d, %v; want %d", pid, err, self)
	}
	// MySQL's pid_file may be relative to the data directory.
	if pid := mysqldPID("s.pid", dir, 1); pid != self {
		t.Errorf("mysqldPID(relative) = %d, want %d", pid, self)
	}
	if pid := mysqldPID(filepath.Join(dir, "s.pid"), "/elsewhere", 1); pid != self {
		t.Errorf("mysqldPID(absolute) = %d, want %d", pid, self)
	}
	if pid := mysqldPID("missing.pid", dir, 1); pid != 0 {
		t.Errorf("mysqldPID(missing file, no such server) = %d, want 0", pid)
	}
	// PostgreSQL: the file and the backend's parent must agree.
	if pid := postmasterPID(dir, 0); pid != 0 {
		t.Errorf("postmasterPID(no postmaster.pid) = %d", pid)
	}
	if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readPIDFile(filepath.Join(dir, "postmaster.pid")); err == nil {
		t.Error("readPIDFile of a file without a pid: no error")
	}
}

func TestLocalHost(t *testing.T) {
	ctx := context.Background()
	for _, h := range []string{"", "/var/run/postgresql", "127.0.0.1", "::1", "localhost", "0.0.0.0"} {
		if !isLocalHost(ctx, h) {
			t.Errorf("isLocalHost(%q) = false", h)
		}
	}
	for _, h := range []string{"192.0.2.1", "2001:db8::1", "no-such-host.invalid"} {
		if isLocalHost(ctx, h) {
			t.Errorf("isLocalHost(%q) = true", h)
		}
	}
	dir := t.TempDir()
	if got, err := localDir(ctx, "127.0.0.1", dir+"/"); err != nil || got != dir {
		t.Errorf("localDir(here) = %q, %v", got, err)
	}
	if _, err := localDir(ctx, "192.0.2.1", dir); err == nil || !strings.Contains(err.Error(), "not on this one") {
		t.Errorf("localDir(a remote host) = %v", err)
	}
	if _, err := localDir(ctx, "127.0.0.1", dir+"/missing"); err == nil {
		t.Error("localDir(a missing directory): no error")
	}
}

// monitored checks that a target has every monitor ability and returns them.
func monitored(t *testing.T, tg driver.Target) (monitor.Processes, monitor.DataDir, monitor.Size, monitor.Counters) {
	t.Helper()
	p, ok1 := tg.(monitor.Processes)
	d, ok2 := tg.(monitor.DataDir)
	s, ok3 := tg.(monitor.Size)
	c, ok4 := tg.(monitor.Counters)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatalf("%T lacks a monitor ability: Processes %v DataDir %v Size %v Counters %v", tg, ok1, ok2, ok3, ok4)
	}
	return p, d, s, c
}

func sampleCounters(t *testing.T, c monitor.Counters, want ...string) map[string]float64 {
	t.Helper()
	m, err := c.DBMSCounters(context.Background())
	if err != nil {
		t.Fatalf("DBMSCounters: %v", err)
	}
	for _, name := range want {
		if _, ok := m[name]; !ok {
			t.Fatalf("DBMSCounters has no %s: %v", name, m)
		}
	}
	return m
}

func databaseSize(t *testing.T, s monitor.Size) int64 {
	t.Helper()
	n, err := s.DatabaseSize(context.Background())
	if err != nil {
		t.Fatalf("DatabaseSize: %v", err)
	}
	return n
}

// waitCounter samples until name reaches at least want, for up to 20 seconds: servers publish
// their statistics with a delay.
func waitCounter(t *testing.T, c monitor.Counters, name string, want float64) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := sampleCounters(t, c, name)
		if m[name] >= want {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %g after 20s, want %g or more", name, m[name], want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// execer runs one statement on a target's connection.
type execer func(ctx context.Context, q string) error

// monitorLoad creates table (engine clause opts) and inserts n rows of 400 to 600 random
// letters, 100 a statement: enough writes for every counter to move.
func monitorLoad(t *testing.T, exec execer, table, opts string, n int) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (id bigint PRIMARY KEY, data varchar(4000))" + opts} {
		if err := exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	r := rand.New(rand.NewPCG(3, 3))
	for first := 1; first <= n; first += 100 {
		var b strings.Builder
		b.WriteString("INSERT INTO " + table + " (id, data) VALUES ")
		for id := first; id < first+100 && id <= n; id++ {
			if id > first {
				b.WriteString(",")
			}
			data := make([]byte, 400+r.IntN(201))
			for i := range data {
				data[i] = 'a' + byte(r.IntN(26))
			}
			b.WriteString("(" + strconv.Itoa(id) + ",'" + string(data) + "')")
		}
		if err := exec(ctx, b.String()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSQLiteMonitor(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.sqlite")
	tg, err := driver.Open(ctx, mustSpec(t, "sqlite:"+path))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	proc, dd, sz, cnt := monitored(t, tg)
	pids, embedded, err := proc.DBMSProcesses(ctx)
	if err != nil || !embedded || !slices.Equal(pids, []int{os.Getpid()}) {
		t.Fatalf("DBMSProcesses = %v, %v, %v; want this process, embedded", pids, embedded, err)
	}
	if dir, err := dd.DataDir(ctx); err != nil || dir != filepath.Dir(path) {
		t.Fatalf("DataDir = %q, %v; want %q", dir, err, filepath.Dir(path))
	}
	names := []string{"page_count", "freelist_count", "page_size", "wal_bytes"}
	c0 := sampleCounters(t, cnt, names...)
	size0 := databaseSize(t, sz)

	lite := tg.(*SQLite)
	monitorLoad(t, func(ctx context.Context, q string) error {
		_, err := lite.db.ExecContext(ctx, q)
		return err
	}, "m", "", 1000)
	c1 := sampleCounters(t, cnt, names...)
	size1 := databaseSize(t, sz)
	if c1["page_count"] <= c0["page_count"] || c1["wal_bytes"] <= 0 || size1 <= size0 || size1 != int64(c1["page_count"]*c1["page_size"]) {
		t.Fatalf("after 1000 rows: size %d (before %d), counters %v (before %v)", size1, size0, c1, c0)
	}
	if _, err := lite.Settle(ctx, []string{"m"}); err != nil {
		t.Fatal(err)
	}
	if c2 := sampleCounters(t, cnt, names...); c2["wal_bytes"] != 0 {
		t.Fatalf("after Settle's TRUNCATE checkpoint: %v", c2)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != databaseSize(t, sz) {
		t.Fatalf("after the checkpoint the file's size is page_count × page_size: %v, %v", fi.Size(), err)
	}
}

// postgresMonitorURL is DBPERF_TEST_POSTGRES with the test's own database.
func postgresMonitorURL(t *testing.T, user string) string {
	t.Helper()
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("DBPERF_TEST_POSTGRES is not set (-short)")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: start a PostgreSQL server (dbperf server start postgres) and set it to postgres://USER:PASSWORD@HOST:PORT/DB, or use go test -short to leave PostgreSQL out")
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/dbperf_sqldb_monitor"
	if user != "" {
		u.User = url.UserPassword(user, "dbperf-monitor-test")
	}
	return u.String()
}

func TestPostgresMonitor(t *testing.T) {
	ctx := context.Background()
	tg, err := driver.Open(ctx, mustSpec(t, postgresMonitorURL(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	p := tg.(*Postgres)
	proc, dd, sz, cnt := monitored(t, tg)

	pids, embedded, err := proc.DBMSProcesses(ctx)
	if err != nil || embedded || len(pids) < 4 {
		t.Fatalf("DBMSProcesses = %v, %v, %v; want the postmaster and its children", pids, embedded, err)
	}
	if cmd := strings.Join(hostproc.Cmdline(pids[0]), " "); !strings.Contains(cmd, "postgres") {
		t.Fatalf("the postmaster %d runs %q", pids[0], cmd)
	}
	for _, pid := range pids[1:] {
		if ppid, err := hostproc.Parent(pid); err != nil || ppid != pids[0] {
			t.Errorf("process %d: parent %d, %v; want the postmaster %d", pid, ppid, err, pids[0])
		}
	}
	var backend int
	if err := p.admin.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pids, backend) {
		t.Errorf("DBMSProcesses %v lacks the admin connection's backend %d", pids, backend)
	}
	dir, err := dd.DataDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := readPIDFile(filepath.Join(dir, "postmaster.pid")); err != nil || pid != pids[0] {
		t.Errorf("DataDir %s: postmaster.pid has %d, %v; want %d", dir, pid, err, pids[0])
	}
	// Without the data directory, the backend's parent.
	if pm := postmasterPID("", backend); pm != pids[0] {
		t.Errorf("postmasterPID from the backend = %d, want %d", pm, pids[0])
	}
	if pm := postmasterPID(t.TempDir(), backend); pm != pids[0] {
		t.Errorf("postmasterPID without postmaster.pid = %d, want %d", pm, pids[0])
	}

	names := []string{
		"db.xact_commit", "db.xact_rollback", "db.blks_read", "db.blks_hit", "db.tup_returned",
		"db.tup_fetched", "db.tup_inserted", "db.tup_updated", "db.tup_deleted", "db.temp_bytes",
		"db.deadlocks", "bgwriter.buffers_clean", "bgwriter.buffers_alloc", "wal_bytes",
	}
	c0 := sampleCounters(t, cnt, names...)
	_, hasOld := c0["bgwriter.checkpoints_timed"]
	_, hasNew := c0["checkpointer.num_timed"]
	if !hasOld && !hasNew {
		t.Errorf("no checkpoint counters: %v", c0)
	}
	if hasOld {
		sampleCounters(t, cnt, "bgwriter.checkpoints_req", "bgwriter.buffers_checkpoint", "bgwriter.buffers_backend", "wal.records", "wal.fpi")
	}

	if _, err := p.admin.Exec(ctx, "DROP TABLE IF EXISTS mon_t; CREATE TABLE mon_t (id bigint PRIMARY KEY, data varchar(4000))"); err != nil {
		t.Fatal(err)
	}
	defer p.admin.Exec(ctx, "DROP TABLE IF EXISTS mon_t")
	size0 := databaseSize(t, sz)
	c0 = sampleCounters(t, cnt, names...)

	// The monitor's calls are safe while the admin connection works and clients insert.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := proc.DBMSProcesses(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := cnt.DBMSCounters(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := sz.DatabaseSize(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	client, err := p.Connect(ctx) // a client's own connection, as a workload's
	if err != nil {
		t.Fatal(err)
	}
	monitorLoad(t, func(ctx context.Context, q string) error {
		_, err := client.Exec(ctx, q)
		return err
	}, "mon_t", "", 1000)
	client.Close(ctx)
	var rows int
	if err := p.admin.QueryRow(ctx, "SELECT count(*) FROM mon_t").Scan(&rows); err != nil || rows != 1000 {
		t.Fatalf("mon_t has %d rows, %v", rows, err)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("monitor call during the inserts: %v", err)
	}

	c1 := waitCounter(t, cnt, "db.tup_inserted", c0["db.tup_inserted"]+1000)
	for _, n := range []string{"wal_bytes", "db.xact_commit"} {
		if c1[n] <= c0[n] {
			t.Errorf("%s: %g, then %g after 1000 rows", n, c0[n], c1[n])
		}
	}
	if c1["wal_bytes"]-c0["wal_bytes"] < 1000*400 {
		t.Errorf("wal_bytes grew by %g for 1000 rows of 400 bytes or more", c1["wal_bytes"]-c0["wal_bytes"])
	}
	if size1 := databaseSize(t, sz); size0 <= 0 || size1 <= size0 {
		t.Errorf("DatabaseSize %d, then %d after 1000 rows", size0, size1)
	}

	tg.Close()
	if _, err := cnt.DBMSCounters(ctx); err == nil {
		t.Error("DBMSCounters after Close: no error")
	}
}

// TestPostgresMonitorUnprivileged: a user who may not read data_directory still gets the
// server's processes (from its backend's parent) and every counter; DataDir says why not.
func TestPostgresMonitorUnprivileged(t *testing.T) {
	ctx := context.Background()
	const role = "dbperf_monitor_test"
	su, err := driver.Open(ctx, mustSpec(t, postgresMonitorURL(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close()
	admin := su.(*Postgres).admin
	if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+role); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN PASSWORD 'dbperf-monitor-test'"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, "DROP ROLE IF EXISTS "+role)

	tg, err := driver.Open(ctx, mustSpec(t, postgresMonitorURL(t, role)))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	proc, dd, sz, cnt := monitored(t, tg)
	pids, _, err := proc.DBMSProcesses(ctx)
	if err != nil || len(pids) < 4 || !strings.Contains(strings.Join(hostproc.Cmdline(pids[0]), " "), "postgres") {
		t.Fatalf("DBMSProcesses = %v, %v; want the postmaster and its children", pids, err)
	}
	if _, err := dd.DataDir(ctx); err == nil || !strings.Contains(err.Error(), "data_directory") {
		t.Errorf("DataDir without the privilege: %v", err)
	}
	sampleCounters(t, cnt, "db.tup_inserted", "bgwriter.buffers_alloc", "wal_bytes")
	if databaseSize(t, sz) <= 0 {
		t.Error("DatabaseSize is 0")
	}
	tg.Close()
}

func TestMySQLMonitor(t *testing.T) {
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) { testMySQLMonitor(t, engine) })
	}
}

func testMySQLMonitor(t *testing.T, engine string) {
	ctx := context.Background()
	m := openMySQLTest(t, engine)
	proc, dd, sz, cnt := monitored(t, m)

	pids, embedded, err := proc.DBMSProcesses(ctx)
	if err != nil || embedded || len(pids) != 1 {
		t.Fatalf("DBMSProcesses = %v, %v, %v; want the server's process", pids, embedded, err)
	}
	if cmd := strings.Join(hostproc.Cmdline(pids[0]), " "); !strings.Contains(cmd, "mariadbd") && !strings.Contains(cmd, "mysqld") {
		t.Fatalf("the server's process %d runs %q", pids[0], cmd)
	}
	dir, err := dd.DataDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "mysql")); err != nil || !fi.IsDir() {
		t.Errorf("DataDir %s has no mysql schema: %v", dir, err)
	}

	names := []string{
		"innodb_buffer_pool_reads", "innodb_buffer_pool_read_requests", "innodb_buffer_pool_pages_dirty",
		"innodb_buffer_pool_pages_flushed", "innodb_data_read", "innodb_data_written", "innodb_data_fsyncs",
		"innodb_os_log_written", "handler_write", "handler_delete", "com_insert", "com_delete",
		"com_select", "questions",
	}
	// MySQL counts InnoDB's rows; MariaDB 10.6 and later do not, and Handler_write counts every
	// engine's.
	rowsInserted := "handler_write"
	if c, err := cnt.DBMSCounters(ctx); err == nil && engine == "innodb" && c["innodb_rows_inserted"] > 0 {
		rowsInserted = "innodb_rows_inserted"
		names = append(names, "innodb_rows_inserted", "innodb_rows_deleted", "innodb_rows_read")
	}
	if engine == "rocksdb" {
		rowsInserted = "rocksdb_rows_inserted"
		names = append(names, rowsInserted, "rocksdb_bytes_written", "rocksdb_bytes_read", "rocksdb_flush_write_bytes")
	}
	table := "mon_" + engine
	if err := m.exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		t.Fatal(err)
	}
	c0 := sampleCounters(t, cnt, names...)
	for n := range c0 {
		if n != strings.ToLower(n) {
			t.Errorf("counter %s is not lower-case", n)
		}
		if !slices.Contains(names, n) && !strings.HasPrefix(n, "rocksdb_") && !slices.ContainsFunc(mysqlStatusCounters, func(s string) bool { return strings.EqualFold(s, n) }) {
			t.Errorf("counter %s is not asked for", n)
		}
	}
	size0 := databaseSize(t, sz)

	monitorLoad(t, m.exec, table, " ENGINE="+m.Engine(), 1000)
	c1 := waitCounter(t, cnt, rowsInserted, c0[rowsInserted]+1000)
	for _, n := range []string{"com_insert", "questions"} {
		if c1[n] <= c0[n] {
			t.Errorf("%s: %g, then %g after 1000 rows", n, c0[n], c1[n])
		}
	}
	if engine == "innodb" && c1["innodb_os_log_written"] <= c0["innodb_os_log_written"] {
		t.Errorf("innodb_os_log_written: %g, then %g after 1000 rows", c0["innodb_os_log_written"], c1["innodb_os_log_written"])
	}
	// information_schema's sizes come from the engine's statistics, which ANALYZE TABLE and the
	// flush of Settle bring up to date.
	if _, err := m.Settle(ctx, []string{table}, SettleOptions{}); err != nil {
		t.Fatal(err)
	}
	// MyRocks' size is its whole RocksDB directory, which other tests' writes, drops and
	// compactions change at the same time (it shrank once in a run beside them): only InnoDB's,
	// the test database's own directory, must grow.
	if size1 := databaseSize(t, sz); size1 <= 0 || (engine != "rocksdb" && size1 <= size0) {
		t.Errorf("DatabaseSize %d, then %d after 1000 rows", size0, size1)
	}
	if engine == "rocksdb" {
		c2 := sampleCounters(t, cnt, names...)
		if c2["rocksdb_flush_write_bytes"] <= c0["rocksdb_flush_write_bytes"] {
			t.Errorf("rocksdb_flush_write_bytes: %g, then %g after Settle's flush", c0["rocksdb_flush_write_bytes"], c2["rocksdb_flush_write_bytes"])
		}
	}
}

package server

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// These tests start real servers from the machine's packages (scripts/test.sh installs them),
// on ports of their own, in data directories of their own.

// dataDir makes a data directory the server's system user can reach (t.TempDir is private).
func dataDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "dbperf-server-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir + "/srv"
}

func mustNew(t *testing.T, o Options) Server {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func start(t *testing.T, s Server) string {
	t.Helper()
	target, err := s.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if st, _ := s.Status(); st.Running {
			s.Stop(context.Background())
		}
	})
	return target
}

func pgSetting(t *testing.T, dsn, name string) (string, error) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		return "", err
	}
	defer c.Close(context.Background())
	var v string
	err = c.QueryRow(context.Background(), "SHOW "+name).Scan(&v)
	return v, err
}

func TestPostgresLifecycle(t *testing.T) {
	dir := dataDir(t)
	s := mustNew(t, Options{Kind: "postgres", DataDir: dir, Port: 15493, Config: "cached-by-os:48M"})
	target := start(t, s)
	if target != "postgres://postgres@127.0.0.1:15493/dbperf" {
		t.Errorf("target %q", target)
	}
	st, _ := s.Status()
	if !st.Running || st.Port != 15493 || st.Config != "cached-by-os:48M" || st.PID == 0 {
		t.Errorf("status after start: %+v", st)
	}
	if v, err := pgSetting(t, target, "shared_buffers"); err != nil || v != "48MB" {
		t.Errorf("shared_buffers = %q, %v; want cached-by-os:48M's 48MB", v, err)
	}
	// The Insert Benchmark's cache check finds the config and the cache size through the target.
	if spec, err := driver.Parse(target); err != nil {
		t.Error(err)
	} else if tg, err := driver.Open(context.Background(), spec); err != nil {
		t.Error(err)
	} else {
		ci, err := tg.(*sqldriver.Postgres).CacheInfo(context.Background())
		tg.Close()
		if err != nil || ci.Config != "cached-by-os:48M" || ci.Cache != 48<<20 || ci.Database <= 0 {
			t.Errorf("CacheInfo = %+v, %v; want cached-by-os:48M, 48 MB and a size", ci, err)
		}
	}
	// The published durability (cx8_bee:9).
	if v, err := pgSetting(t, target, "synchronous_commit"); err != nil || v != "off" {
		t.Errorf("synchronous_commit = %q, %v; want off as published", v, err)
	}
	if _, err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("a second start: %v", err)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Status(); st.Running {
		t.Errorf("running after stop: %+v", st)
	}
	if err := s.Stop(context.Background()); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("stop of a stopped server: %v", err)
	}

	// Restart the same data directory with another config and a password.
	s = mustNew(t, Options{Kind: "postgres", DataDir: dir, Port: 15493, Config: "cached-by-dbms", Password: "s3cret'x"})
	start(t, s)
	if v, err := pgSetting(t, "postgres://postgres:s3cret%27x@127.0.0.1:15493/dbperf", "shared_buffers"); err != nil || v != "4GB" {
		t.Errorf("after restart with cached-by-dbms: shared_buffers = %q, %v", v, err)
	}
	if _, err := pgSetting(t, target, "shared_buffers"); err == nil {
		t.Errorf("connected without the password that was set")
	}
	for _, f := range []string{"dbperf.conf", "pg_hba.conf", "postgresql.conf"} {
		b, _ := os.ReadFile(dir + "/data/" + f)
		if strings.Contains(string(b), "s3cret") {
			t.Errorf("%s contains the password", f)
		}
	}
}

func TestMariaDBLifecycle(t *testing.T) {
	dir := dataDir(t)
	s := mustNew(t, Options{Kind: "mariadb", DataDir: dir, Port: 13393, Config: "cached-by-os", Password: "pw"})
	target := start(t, s)
	if target != "mysql://dbperf@127.0.0.1:13393/dbperf?engine=innodb" {
		t.Errorf("target %q", target)
	}
	query := func(password, q string) (string, error) {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "dbperf", password, "tcp", "127.0.0.1:13393", "dbperf"
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			return "", err
		}
		db := sql.OpenDB(c)
		defer db.Close()
		var v string
		err = db.QueryRow(q).Scan(&v)
		return v, err
	}
	if v, err := query("pw", "SELECT @@innodb_buffer_pool_size"); err != nil || v != fmt.Sprint(OSCacheSize<<20) {
		t.Errorf("innodb_buffer_pool_size = %q, %v; want %dM", v, err, OSCacheSize)
	}
	// The published durability, binlog, buffered IO for by-OS and RocksDB's protected pool.
	for q, want := range map[string]string{
		"SELECT @@innodb_flush_log_at_trx_commit":    "2",
		"SELECT @@rocksdb_flush_log_at_trx_commit":   "2",
		"SELECT @@log_bin":                           "1",
		"SELECT @@sync_binlog":                       "0",
		"SELECT @@innodb_flush_method":               "fsync",
		"SELECT @@rocksdb_cache_high_pri_pool_ratio": "0.5",
	} {
		if v, err := query("pw", q); err != nil || v != want {
			t.Errorf("%s = %q, %v; want %s", q, v, err, want)
		}
	}
	if v, err := query("pw", "SELECT support FROM information_schema.engines WHERE engine = 'ROCKSDB'"); err != nil || v != "YES" {
		t.Errorf("RocksDB engine: %q, %v", v, err)
	}
	if _, err := query("wrong", "SELECT 1"); err == nil {
		t.Errorf("connected with a wrong password")
	}
	if st, _ := s.Status(); !st.Running || st.Port != 13393 || st.Config != "cached-by-os" {
		t.Errorf("status: %+v", st)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	s = mustNew(t, Options{Kind: "mariadb", DataDir: dir, Port: 13393, Config: "cached-by-dbms"})
	start(t, s)
	if v, err := query("", "SELECT @@innodb_buffer_pool_size"); err != nil || v != fmt.Sprint(4<<30) {
		t.Errorf("after restart with cached-by-dbms: innodb_buffer_pool_size = %q, %v", v, err)
	}
	if v, err := query("", "SELECT @@innodb_flush_method"); err != nil || v != "O_DIRECT_NO_FSYNC" {
		t.Errorf("cached-by-dbms: innodb_flush_method = %q, %v; want O_DIRECT_NO_FSYNC as published", v, err)
	}
}

func TestConfigFile(t *testing.T) {
	f := dataDir(t) + ".conf"
	os.WriteFile(f, []byte("shared_buffers = 48MB\nwork_mem = 8MB\n"), 0o644)
	s := mustNew(t, Options{Kind: "postgres", DataDir: dataDir(t), Port: 15494, Config: f})
	target := start(t, s)
	if v, err := pgSetting(t, target, "shared_buffers"); err != nil || v != "48MB" {
		t.Errorf("shared_buffers from the config file = %q, %v", v, err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Kind: "oracle"}, `unknown server "oracle": dbperf manages postgres and mariadb`},
		{Options{Kind: "postgres", Config: "huge"}, `--config "huge" is neither a named config (cached-by-dbms, cached-by-os) nor a readable file`},
		{Options{Kind: "mariadb", Port: 70000}, "--port must be in 1..65535 (got 70000)"},
	} {
		if _, err := New(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error saying %q", c.o, err, c.want)
		}
	}
}

func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for _, kind := range Kinds {
		s := mustNew(t, Options{Kind: kind, DataDir: dataDir(t), Port: port})
		if _, err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d on 127.0.0.1 is already in use", port)) {
			t.Errorf("%s on a busy port: %v", kind, err)
		}
	}
}

func TestNotInstalled(t *testing.T) {
	savedRoot, savedServers := pgRoot, mariadbServers
	defer func() { pgRoot, mariadbServers = savedRoot, savedServers }()
	pgRoot, mariadbServers = t.TempDir(), []string{t.TempDir() + "/mariadbd"}
	for kind, pkg := range map[string]string{"postgres": "install the Debian package postgresql-15", "mariadb": "install the Debian packages mariadb-server and mariadb-plugin-rocksdb"} {
		s := mustNew(t, Options{Kind: kind, DataDir: dataDir(t)})
		if _, err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), pkg) {
			t.Errorf("%s not installed: %v, want it to say %q", kind, err, pkg)
		}
	}
}

// Every setting of a named config says where it comes from, and cached-by-os:SIZE sets only the
// cache.
func TestNamedConfigsCiteSources(t *testing.T) {
	for name, kinds := range Configs {
		for kind, lines := range kinds {
			for i, l := range lines {
				if i%2 == 0 && (!strings.HasPrefix(l, "# ") || len(l) < 10) {
					t.Errorf("%s/%s line %d: %q is not a source comment", name, kind, i, l)
				}
			}
		}
	}
	for _, c := range []struct {
		in  string
		mb  int
		ok  bool
		bad bool
	}{{"cached-by-os:64M", 64, true, false}, {"cached-by-os:2G", 2048, true, false}, {"cached-by-os:2gb", 2048, true, false},
		{"cached-by-os:64", 0, true, true}, {"cached-by-os:8M", 0, true, true}, {"cached-by-dbms", 0, false, false}} {
		mb, ok, err := ParseOSCache(c.in)
		if mb != c.mb || ok != c.ok || (err != nil) != c.bad {
			t.Errorf("ParseOSCache(%q) = %d, %v, %v", c.in, mb, ok, err)
		}
	}
	lines, err := configLines("mariadb", "cached-by-os:64M")
	if err != nil || !slices.Contains(lines, "innodb_buffer_pool_size = 64M") || !slices.Contains(lines, "innodb_flush_method = fsync") {
		t.Errorf("cached-by-os:64M: %v %v", lines, err)
	}
}

package server

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

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
	s := mustNew(t, Options{Kind: "postgres", DataDir: dir, Port: 15461, Config: "cached-by-os"})
	target := start(t, s)
	if target != "postgres://postgres@127.0.0.1:15461/dbperf" {
		t.Errorf("target %q", target)
	}
	st, _ := s.Status()
	if !st.Running || st.Port != 15461 || st.Config != "cached-by-os" || st.PID == 0 {
		t.Errorf("status after start: %+v", st)
	}
	if v, err := pgSetting(t, target, "shared_buffers"); err != nil || v != "32MB" {
		t.Errorf("shared_buffers = %q, %v; want cached-by-os's 32MB", v, err)
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
	s = mustNew(t, Options{Kind: "postgres", DataDir: dir, Port: 15461, Config: "cached-by-dbms", Password: "s3cret'x"})
	start(t, s)
	if v, err := pgSetting(t, "postgres://postgres:s3cret%27x@127.0.0.1:15461/dbperf", "shared_buffers"); err != nil || v != "4GB" {
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
	s := mustNew(t, Options{Kind: "mariadb", DataDir: dir, Port: 13361, Config: "cached-by-os", Password: "pw"})
	target := start(t, s)
	if target != "mysql://dbperf@127.0.0.1:13361/dbperf?engine=innodb" {
		t.Errorf("target %q", target)
	}
	query := func(password, q string) (string, error) {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "dbperf", password, "tcp", "127.0.0.1:13361", "dbperf"
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
	if v, err := query("pw", "SELECT @@innodb_buffer_pool_size"); err != nil || v != fmt.Sprint(32<<20) {
		t.Errorf("innodb_buffer_pool_size = %q, %v; want 32M", v, err)
	}
	if v, err := query("pw", "SELECT support FROM information_schema.engines WHERE engine = 'ROCKSDB'"); err != nil || v != "YES" {
		t.Errorf("RocksDB engine: %q, %v", v, err)
	}
	if _, err := query("wrong", "SELECT 1"); err == nil {
		t.Errorf("connected with a wrong password")
	}
	if st, _ := s.Status(); !st.Running || st.Port != 13361 || st.Config != "cached-by-os" {
		t.Errorf("status: %+v", st)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	s = mustNew(t, Options{Kind: "mariadb", DataDir: dir, Port: 13361, Config: "cached-by-dbms"})
	start(t, s)
	if v, err := query("", "SELECT @@innodb_buffer_pool_size"); err != nil || v != fmt.Sprint(4<<30) {
		t.Errorf("after restart with cached-by-dbms: innodb_buffer_pool_size = %q, %v", v, err)
	}
}

func TestConfigFile(t *testing.T) {
	f := dataDir(t) + ".conf"
	os.WriteFile(f, []byte("shared_buffers = 48MB\nwork_mem = 8MB\n"), 0o644)
	s := mustNew(t, Options{Kind: "postgres", DataDir: dataDir(t), Port: 15462, Config: f})
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

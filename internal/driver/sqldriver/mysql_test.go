package sqldriver

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/go-sql-driver/mysql"
)

// The MySQL tests need a MySQL or MariaDB server with MyRocks, named by DBPERF_TEST_MYSQL
// (mysql://USER:PASSWORD@HOST:PORT/DB; the tests use their own database, dbperf_sqldb, on it).
// Without it they fail rather than skip, unless -short.
func mysqlTestURL(t *testing.T, engine string) string {
	t.Helper()
	dsn := os.Getenv("DBPERF_TEST_MYSQL")
	if dsn == "" {
		if testing.Short() {
			t.Skip("DBPERF_TEST_MYSQL is not set (-short)")
		}
		t.Fatal("DBPERF_TEST_MYSQL is not set: start a MySQL or MariaDB server with MyRocks and set it to mysql://USER:PASSWORD@HOST:PORT/DB, or use go test -short to leave MySQL out")
	}
	base, _, _ := strings.Cut(dsn, "?")
	return base[:strings.LastIndex(base, "/")+1] + "dbperf_sqldb?engine=" + engine
}

func mustSpec(t *testing.T, s string) driver.Spec {
	t.Helper()
	spec, err := driver.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestMySQLConfig(t *testing.T) {
	t.Setenv("MYSQL_PWD", "")
	for _, c := range []struct {
		url, dsn, engine string
	}{
		{"mysql://dbperf:pw@127.0.0.1:13399/dbperf_sqldb",
			"dbperf:pw@tcp(127.0.0.1:13399)/dbperf_sqldb?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "InnoDB"},
		{"mysql://dbperf:pw@127.0.0.1:13399/dbperf_sqldb?engine=innodb",
			"dbperf:pw@tcp(127.0.0.1:13399)/dbperf_sqldb?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "InnoDB"},
		{"mysql://dbperf:pw@127.0.0.1:13399/dbperf_sqldb?engine=rocksdb",
			"dbperf:pw@tcp(127.0.0.1:13399)/dbperf_sqldb?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "ROCKSDB"},
		{"mysql://u:p%40ss%2Fw@db.example:3307/ib?engine=RocksDB",
			"u:p@ss/w@tcp(db.example:3307)/ib?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "ROCKSDB"},
		{"mysql://root@localhost/ib", // default port, no password
			"root@tcp(localhost:3306)/ib?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "InnoDB"},
		{"mysql://root:pw@[::1]:3306/ib",
			"root:pw@tcp([::1]:3306)/ib?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "InnoDB"},
		{"mysql://root:pw@localhost/ib?socket=/tmp/mdb/s.sock&engine=rocksdb",
			"root:pw@unix(/tmp/mdb/s.sock)/ib?interpolateParams=true&timeout=15s&time_zone=%27%2B00%3A00%27", "ROCKSDB"},
	} {
		cfg, engine, err := mysqlConfig(mustSpec(t, c.url))
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if got := cfg.FormatDSN(); got != c.dsn {
			t.Errorf("%s: DSN\n%s, want\n%s", c.url, got, c.dsn)
		}
		if engine.name != c.engine {
			t.Errorf("%s: engine %s, want %s", c.url, engine.name, c.engine)
		}
		if cfg.ParseTime || !cfg.InterpolateParams || cfg.Params["time_zone"] != "'+00:00'" {
			t.Errorf("%s: ParseTime %v InterpolateParams %v Params %v", c.url, cfg.ParseTime, cfg.InterpolateParams, cfg.Params)
		}
	}

	t.Setenv("MYSQL_PWD", "from-env")
	cfg, _, err := mysqlConfig(mustSpec(t, "mysql://root@h:1/db"))
	if err != nil || cfg.Passwd != "from-env" {
		t.Errorf("MYSQL_PWD: password %q, %v", cfg.Passwd, err)
	}
	cfg, _, _ = mysqlConfig(mustSpec(t, "mysql://root:url@h:1/db"))
	if cfg.Passwd != "url" {
		t.Errorf("the URL's password must win over MYSQL_PWD: %q", cfg.Passwd)
	}

	for _, c := range []struct{ url, want string }{
		{"mysql://u:hunter2@h:1/db?engine=myisam", `unknown engine "myisam": give engine=innodb or engine=rocksdb`},
		{"mysql://u:hunter2@h:1/db?engin=rocksdb", `unknown parameter "engin"`},
		{"mysql://u:hunter2@h:1/", "names no database"},
		{"mysql://u:hunter2@h:1", "names no database"},
		{"mysql://u:hunter2@/db", "names no host"},
	} {
		_, _, err := mysqlConfig(mustSpec(t, c.url))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error shows the password: %v", c.url, err)
		}
	}
}

func TestParseDateTime(t *testing.T) {
	for _, s := range []string{"2026-01-02 03:04:05", "1970-01-01 00:00:00", "2038-01-19 03:14:08", "2000-02-29 23:59:59.000000"} {
		want, _ := time.Parse(time.DateTime, s[:19])
		got, err := ParseDateTime([]byte(s))
		if err != nil || got != want.Unix() {
			t.Errorf("ParseDateTime(%q) = %d, %v; want %d", s, got, err, want.Unix())
		}
	}
	for _, s := range []string{"", "2026-01-02", "2026-01-02T03:04:05", "2026-01-0x 03:04:05"} {
		if _, err := ParseDateTime([]byte(s)); err == nil {
			t.Errorf("ParseDateTime(%q): no error", s)
		}
	}
}

// openMySQLTest opens the test server's database afresh (dropped first, so that opening creates it).
func openMySQLTest(t *testing.T, engine string) *MySQL {
	t.Helper()
	url := mysqlTestURL(t, engine)
	spec := mustSpec(t, url)
	cfg, _, err := mysqlConfig(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin := cfg.Clone()
	admin.DBName = ""
	conn, err := mysql.NewConnector(admin)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(cfg.DBName)); err != nil {
		t.Fatal(driver.Scrub(spec, err))
	}
	db.Close()
	tg, err := driver.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*MySQL)
}

func mysqlPassword(t *testing.T) string {
	cfg, _, err := mysqlConfig(mustSpec(t, mysqlTestURL(t, "innodb")))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Passwd
}

func TestMySQLErrors(t *testing.T) {
	ctx := context.Background()
	open := func(url string) error {
		spec, err := driver.Parse(url)
		if err != nil {
			return err
		}
		tg, err := driver.Open(ctx, spec)
		if err == nil {
			tg.Close()
		}
		return err
	}
	// Nothing listens on port 1.
	err := open("mysql://dbperf:hunter2@127.0.0.1:1/db")
	if err == nil || !strings.Contains(err.Error(), "connection refused; is the server running") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("refused: %v", err)
	}
	t.Logf("refused: %v", err)
	err = open("mysql://dbperf:hunter2@127.0.0.1:1/db?engine=aria")
	if err == nil || !strings.Contains(err.Error(), `unknown engine "aria"`) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad engine: %v", err)
	}

	url := mysqlTestURL(t, "rocksdb")
	wrong := strings.Replace(url, ":"+mysqlPassword(t)+"@", ":wrong-hunter2@", 1)
	if wrong == url {
		t.Fatalf("DBPERF_TEST_MYSQL must have a password for this test")
	}
	err = open(wrong)
	if err == nil || !strings.Contains(err.Error(), "access denied for user") || !strings.Contains(err.Error(), "check the user and password in the target URL (or MYSQL_PWD)") ||
		strings.Contains(err.Error(), "hunter2") {
		t.Errorf("wrong password: %v", err)
	}
	t.Logf("wrong password: %v", err)

	// A server without the engine asked for.
	m := openMySQLTest(t, "rocksdb")
	m.engine.name = "NOSUCHENGINE"
	err = m.checkEngine(ctx)
	if err == nil || !strings.Contains(err.Error(), "has no NOSUCHENGINE storage engine") || !strings.Contains(err.Error(), "install mariadb-plugin-rocksdb and load ha_rocksdb") {
		t.Errorf("missing engine: %v", err)
	}
	t.Logf("missing engine: %v", err)
}

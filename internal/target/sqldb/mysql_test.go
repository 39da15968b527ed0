package sqldb

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/target"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
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

func mustSpec(t *testing.T, s string) target.Spec {
	t.Helper()
	spec, err := target.Parse(s)
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

func TestMySQLDialect(t *testing.T) {
	inno, rocks := mysqlDialect(mysqlEngines[0]), mysqlDialect(mysqlEngines[1])
	if got := inno.recreateTable("t")[1]; !strings.HasSuffix(got, "PRIMARY KEY (transactionid)) ENGINE=InnoDB") ||
		!strings.Contains(got, "transactionid bigint NOT NULL AUTO_INCREMENT") {
		t.Errorf("innodb DDL:\n%s", got)
	}
	if got := rocks.recreateTable("t")[1]; !strings.HasSuffix(got, ") ENGINE=ROCKSDB") {
		t.Errorf("rocksdb DDL:\n%s", got)
	}
	wantAll := []string{"ALTER TABLE t ADD INDEX t_marketsegment (productid, customerid, price), " +
		"ADD INDEX t_registersegment (cashregisterid, customerid, price), ADD INDEX t_pdc (price, dateandtime, customerid)"}
	if got := inno.createIndexes("t"); !reflect.DeepEqual(got, wantAll) {
		t.Errorf("innodb indexes:\n%q\nwant\n%q", got, wantAll)
	}
	wantEach := []string{
		"ALTER TABLE t ADD INDEX t_marketsegment (productid, customerid, price)",
		"ALTER TABLE t ADD INDEX t_registersegment (cashregisterid, customerid, price)",
		"ALTER TABLE t ADD INDEX t_pdc (price, dateandtime, customerid)",
	}
	if got := rocks.createIndexes("t"); !reflect.DeepEqual(got, wantEach) {
		t.Errorf("rocksdb indexes:\n%q\nwant\n%q", got, wantEach)
	}
	if got := sqlite.createIndexes("t"); len(got) != 3 || got[2] != "CREATE INDEX t_pdc ON t (price, dateandtime, customerid)" {
		t.Errorf("sqlite indexes: %q", got)
	}
	if got, want := inno.deleteOldest("t"), "DELETE FROM t WHERE transactionid >= ? AND transactionid < ? ORDER BY transactionid LIMIT ?"; got != want {
		t.Errorf("delete: %s, want %s", got, want)
	}
	for idx, want := range map[ib.Index]string{
		ib.MarketSegment:   "SELECT productid, customerid, price FROM t FORCE INDEX (t_marketsegment) WHERE productid >= ? ORDER BY productid, customerid, price LIMIT 10",
		ib.RegisterSegment: "SELECT cashregisterid, customerid, price FROM t FORCE INDEX (t_registersegment) WHERE cashregisterid > ? ORDER BY cashregisterid, customerid, price LIMIT 10",
		ib.PDC:             "SELECT price, dateandtime, customerid FROM t FORCE INDEX (t_pdc) WHERE price >= ? ORDER BY price, dateandtime, customerid LIMIT 10",
	} {
		if got := rocks.rangeQuery("t", idx); got != want {
			t.Errorf("range query %s:\n%s\nwant\n%s", idx, got, want)
		}
	}
	rows := []ib.Row{
		{ID: 1, CashRegister: 2, Customer: 3, Product: 4, Price: 5, Data: []byte("aa'b")},
		{ID: 2, CashRegister: 6, Customer: 7, Product: 8, Price: 9, Data: []byte(`a\'`)},
	}
	got := string(appendInsertLiteral(nil, "t", rows, "2026-01-02 03:04:05", true))
	want := "INSERT INTO t (" + insertColumns + ") VALUES (1,'2026-01-02 03:04:05',2,3,4,5,'aa''b'),(2,'2026-01-02 03:04:05',6,7,8,9,X'615c27')"
	if got != want {
		t.Errorf("mysql insert:\n%s\nwant\n%s", got, want)
	}
	got = string(appendInsertLiteral(nil, "t", rows[1:], "x", false))
	if want := `(2,'x',6,7,8,9,'a\''')`; !strings.HasSuffix(got, want) {
		t.Errorf("postgres insert %s, want it to end with %s", got, want)
	}
}

func TestParseDateTime(t *testing.T) {
	for _, s := range []string{"2026-01-02 03:04:05", "1970-01-01 00:00:00", "2038-01-19 03:14:08", "2000-02-29 23:59:59.000000"} {
		want, _ := time.Parse(time.DateTime, s[:19])
		got, err := parseDateTime([]byte(s))
		if err != nil || got != want.Unix() {
			t.Errorf("parseDateTime(%q) = %d, %v; want %d", s, got, err, want.Unix())
		}
	}
	for _, s := range []string{"", "2026-01-02", "2026-01-02T03:04:05", "2026-01-0x 03:04:05"} {
		if _, err := parseDateTime([]byte(s)); err == nil {
			t.Errorf("parseDateTime(%q): no error", s)
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
		t.Fatal(target.Scrub(spec, err))
	}
	db.Close()
	tg, err := target.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*MySQL)
}

func TestMySQLStore(t *testing.T) {
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) { testMySQLStore(t, engine) })
	}
}

func testMySQLStore(t *testing.T, engine string) {
	m := openMySQLTest(t, engine)
	ctx := context.Background()
	table := "my_" + engine
	if err := m.CreateTables(ctx, []string{table}); err != nil {
		t.Fatal(err)
	}
	conn, err := m.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var tz string
	if err := conn.(*sqlConn).c.QueryRowContext(ctx, "SELECT @@session.time_zone").Scan(&tz); err != nil || tz != "+00:00" {
		t.Errorf("session time_zone %q, %v; want +00:00", tz, err)
	}

	// 2000 rows, 100 a statement, each statement a second later; the last row's data has a
	// quote and a backslash.
	const n = 2000
	gen := ib.NewGenerator(rand.New(rand.NewPCG(5, 5)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Unix()
	var all []ib.Row
	batch := make([]ib.Row, 100)
	for id := int64(1); id <= n; id += 100 {
		gen.Fill(batch, id, base+id/100)
		if id+100 > n {
			batch[99].Data = []byte(`it's a \ back'slash`)
		}
		for _, r := range batch {
			r.Data = slices.Clone(r.Data)
			all = append(all, r)
		}
		if err := conn.Insert(ctx, table, batch); err != nil {
			t.Fatal(err)
		}
	}
	st, err := m.Stats(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != n || st.MinID != 1 || st.MaxID != n || st.IndexRows != nil || st.Problems != nil {
		t.Fatalf("stats before indexes: %+v", st)
	}

	if err := m.CreateIndexes(ctx, table); err != nil {
		t.Fatal(err)
	}
	st, err = m.Stats(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.IndexRows, []int64{n, n, n}) || st.Problems != nil {
		t.Fatalf("stats after indexes: %+v", st)
	}

	for idx := range ib.NumIndexes {
		keys := make([]ib.IndexRow, len(all))
		for i := range all {
			keys[i] = all[i].IndexKey(idx)
		}
		slices.SortFunc(keys, func(a, b ib.IndexRow) int { return slices.Compare(a[:], b[:]) })
		for _, x := range []int64{-1, 0, 1, 7, 250, 499, 500, 999, 5000, 9999, 10000} {
			var want []ib.IndexRow
			for _, k := range keys {
				if (k[0] > x || (k[0] == x && !idx.Strict())) && len(want) < ib.RowsPerQuery {
					want = append(want, k)
				}
			}
			got, err := conn.RangeQuery(ctx, table, idx, x, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("range query %s from %d:\n got %v\nwant %v", idx, x, got, want)
			}
		}
	}

	ids := []int64{1, 5, 5, 1999, n, n + 1, 0}
	got, err := conn.PointQuery(ctx, table, ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b ib.PointRow) int { return int(a.ID - b.ID) })
	var want []ib.PointRow
	for _, id := range []int64{1, 5, 1999, n} {
		r := all[id-1]
		want = append(want, ib.PointRow{ID: r.ID, Product: r.Product, Data: r.Data})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("point query %v:\n got %v\nwant %v", ids, got, want)
	}

	if d, err := conn.DeleteOldest(ctx, table, 1, 101); err != nil || d != 100 {
		t.Errorf("DeleteOldest(1, 101) = %d, %v; want 100", d, err)
	}
	if d, err := conn.DeleteOldest(ctx, table, 1, 151); err != nil || d != 50 {
		t.Errorf("DeleteOldest(1, 151) after 100 = %d, %v; want 50", d, err)
	}
	st, err = m.Stats(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != n-150 || st.MinID != 151 || st.MaxID != n || !reflect.DeepEqual(st.IndexRows, []int64{n - 150, n - 150, n - 150}) || st.Problems != nil {
		t.Errorf("stats after deletes: %+v", st)
	}

	globals := func() (v [3]float64) {
		if err := m.db.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct, @@GLOBAL.innodb_max_dirty_pages_pct_lwm, @@GLOBAL.innodb_io_capacity").Scan(&v[0], &v[1], &v[2]); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := globals()
	desc, err := m.Settle(ctx, []string{table})
	if err != nil {
		t.Fatal(err)
	}
	wantDesc := "innodb flushed"
	if engine == "rocksdb" {
		wantDesc = "rocksdb memtable flush and L0 compaction"
	}
	if !strings.Contains(desc, "analyze table of 1 tables") || !strings.Contains(desc, wantDesc) {
		t.Errorf("Settle: %q, want analyze and %q", desc, wantDesc)
	}
	t.Logf("settle: %s", desc)
	if after := globals(); after != before {
		t.Errorf("innodb_max_dirty_pages_pct, _lwm, innodb_io_capacity = %v after Settle, want them restored to %v", after, before)
	}

	// A missing index is a problem, not an error.
	if _, err := m.db.ExecContext(ctx, "ALTER TABLE "+table+" DROP INDEX "+table+"_pdc"); err != nil {
		t.Fatal(err)
	}
	st, err = m.Stats(ctx, table)
	if err != nil || len(st.Problems) != 1 || !strings.Contains(st.Problems[0], "index "+table+"_pdc does not exist") || st.IndexRows[0] != n-150 {
		t.Errorf("stats without one index: %+v, %v", st, err)
	}

	info := m.Info(ctx)
	if info.Kind != "mysql" || (info.Engine != "MariaDB" && info.Engine != "MySQL") || info.Version == "" || strings.HasPrefix(info.Version, "unknown") {
		t.Errorf("info: %+v", info)
	}
	for _, k := range []string{"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "default_storage_engine",
		"rocksdb_block_cache_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_max_background_jobs"} {
		if _, ok := info.Settings[k]; !ok {
			t.Errorf("info has no setting %s: %v", k, info.Settings)
		}
	}
	if info.Settings["engine"] != map[string]string{"innodb": "InnoDB", "rocksdb": "ROCKSDB"}[engine] {
		t.Errorf("info engine %v", info.Settings["engine"])
	}
	if strings.Contains(info.Target, ":"+mysqlPassword(t)+"@") {
		t.Errorf("info shows the password: %s", info.Target)
	}
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
		spec, err := target.Parse(url)
		if err != nil {
			return err
		}
		tg, err := target.Open(ctx, spec)
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
	if err == nil || !strings.Contains(err.Error(), "access denied for user") || !strings.Contains(err.Error(), "check the user and password in the target URL") ||
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

package ycsbdb

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/jackc/pgx/v5"
)

// TestQueryModes: in each --query-mode, on SQLite, PostgreSQL and MariaDB (InnoDB, MyRocks),
// the operations work and values with a quote and a backslash come back byte for byte; and the
// server saw the mode: PostgreSQL's last query of the connection has the key written in
// (simple) or $1 (extended, prepared), and only prepared leaves a prepared statement; MariaDB's
// session counters show 3 reads as 0 prepares and 0 executes (simple), 3 and 3 (extended), 1 and
// 3 (prepared).
func TestQueryModes(t *testing.T) {
	ctx := context.Background()
	targets := testtargets.All(t, "dbperf_ycsb_mode", "ycsbmode")
	delete(targets, "pebble")
	delete(targets, "bbolt")
	value := `it's a \ test, '' \\ '\'`
	for name, target := range targets {
		for _, mode := range []string{ycsb.QuerySimple, ycsb.QueryExtended, ycsb.QueryPrepared} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				tg := testtargets.Open(t, target)
				st, err := ForMode(tg, mode)
				if err != nil {
					t.Fatal(err)
				}
				if got := st.(interface{ QueryMode() string }).QueryMode(); got != mode {
					t.Errorf("QueryMode %q, want %q", got, mode)
				}
				if err := st.Create(ctx, 2, true); err != nil {
					t.Fatal(err)
				}
				c, err := st.Connect(ctx, 2)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				for _, k := range []string{"user3", "user1", "user2"} {
					if err := c.Insert(ctx, k, [][]byte{[]byte(value), []byte("b")}); err != nil {
						t.Fatal(err)
					}
				}
				if err := c.Update(ctx, "user2", []int{1}, [][]byte{[]byte(value)}); err != nil {
					t.Fatal(err)
				}
				if err := c.Update(ctx, "user3", []int{0, 1}, [][]byte{[]byte("x"), []byte(value)}); err != nil {
					t.Fatal(err)
				}
				if n, err := c.Scan(ctx, "user2", 10); err != nil || n != 2 {
					t.Errorf("scan from user2: %d rows, %v; want 2", n, err)
				}
				want := map[string][2]string{"user1": {value, "b"}, "user2": {value, value}, "user3": {"x", value}}
				for k, w := range want {
					if got := fields(t, tg, k); got != w {
						t.Errorf("%s holds %q, want %q", k, got, w)
					}
				}
				inner, err := c.(*redialConn).Conn()
				if err != nil {
					t.Fatal(err)
				}
				switch ic := inner.(type) {
				case *pgConn:
					checkPostgresMode(t, tg.(*sqldriver.Postgres), ic, mode)
				case *dbConn:
					if name != "sqlite" {
						checkMySQLMode(t, ic, mode)
					}
				}
			})
		}
	}
}

// fields reads a record's two fields through the target's own connection.
func fields(t *testing.T, tg any, key string) (got [2]string) {
	t.Helper()
	var err error
	switch tg := tg.(type) {
	case *sqldriver.Postgres:
		err = tg.Admin().QueryRow(context.Background(), "SELECT FIELD0, FIELD1 FROM usertable WHERE YCSB_KEY = $1", key).Scan(&got[0], &got[1])
	case interface{ DB() *sql.DB }:
		err = tg.DB().QueryRowContext(context.Background(), "SELECT FIELD0, FIELD1 FROM usertable WHERE YCSB_KEY = ?", key).Scan(&got[0], &got[1])
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkPostgresMode reads a record and looks at what the server holds of the connection.
func checkPostgresMode(t *testing.T, pg *sqldriver.Postgres, c *pgConn, mode string) {
	ctx := context.Background()
	if found, err := c.Read(ctx, "user1", -1); err != nil || !found {
		t.Fatalf("read: %v %v", found, err)
	}
	var last string
	if err := pg.Admin().QueryRow(ctx, "SELECT query FROM pg_stat_activity WHERE pid = $1", c.c.PgConn().PID()).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if literal := strings.Contains(last, "'user1'"); literal != (mode == ycsb.QuerySimple) || !literal && !strings.Contains(last, "$1") {
		t.Errorf("%s: the server's last query of the connection is %q", mode, last)
	}
	var prepared int
	if err := c.c.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT * FROM usertable%'",
		pgx.QueryExecModeSimpleProtocol).Scan(&prepared); err != nil {
		t.Fatal(err)
	}
	if (prepared > 0) != (mode == ycsb.QueryPrepared) {
		t.Errorf("%s: %d prepared statements read usertable", mode, prepared)
	}
}

// checkMySQLMode reads a record 3 times between two readings of the session's counters.
func checkMySQLMode(t *testing.T, c *dbConn, mode string) {
	ctx := context.Background()
	count := func(name string) int {
		var n int
		var v string
		if err := c.c.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	prep0, exec0 := count("Com_stmt_prepare"), count("Com_stmt_execute")
	for range 3 {
		if found, err := c.Read(ctx, "user1", -1); err != nil || !found {
			t.Fatalf("read: %v %v", found, err)
		}
	}
	prep, exec := count("Com_stmt_prepare")-prep0, count("Com_stmt_execute")-exec0
	want := map[string][2]int{ycsb.QuerySimple: {0, 0}, ycsb.QueryExtended: {3, 3}, ycsb.QueryPrepared: {1, 3}}[mode]
	if [2]int{prep, exec} != want {
		t.Errorf("%s: 3 reads made %d prepares and %d executes, want %d and %d", mode, prep, exec, want[0], want[1])
	}
}

// TestQueryModeOnKeyValue: a key-value engine refuses a query mode in one sentence, and runs
// without one.
func TestQueryModeOnKeyValue(t *testing.T) {
	tg := testtargets.Open(t, "pebble:"+t.TempDir())
	if _, err := ForMode(tg, ycsb.QuerySimple); err == nil || !strings.Contains(err.Error(), "--query-mode applies to SQL targets only") {
		t.Errorf("pebble with simple: %v", err)
	}
	if _, err := ForMode(tg, ""); err != nil {
		t.Error(err)
	}
}

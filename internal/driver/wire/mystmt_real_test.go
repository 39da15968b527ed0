package wire

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/go-sql-driver/mysql"
)

// realMy opens a lean path on the server DBPERF_TEST_MYSQL names (its database dbperf_wire),
// beside a database/sql connection to check what it did.
func realMy(t *testing.T) (*MySQL, *sqldriver.MySQL) {
	t.Helper()
	w, _, my := realMyConn(t)
	return w, my
}

// realMyConn is realMy, also returning the database/sql connection whose socket the lean path
// uses, so that a test can hand the connection back to go-sql-driver.
func realMyConn(t *testing.T) (*MySQL, *sql.Conn, *sqldriver.MySQL) {
	t.Helper()
	dsn := os.Getenv("DBPERF_TEST_MYSQL")
	if dsn == "" {
		if testing.Short() {
			t.Skip("DBPERF_TEST_MYSQL is not set (-short)")
		}
		t.Fatal("DBPERF_TEST_MYSQL is not set: set it to mysql://USER:PASSWORD@HOST:PORT/DB, or use go test -short")
	}
	base, _, _ := strings.Cut(dsn, "?")
	spec, err := driver.Parse(base[:strings.LastIndex(base, "/")+1] + "dbperf_wire?engine=innodb")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, err := driver.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	my := tg.(*sqldriver.MySQL)
	c, err := my.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sock, err := my.Socket(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	w := NewMySQL(sock, false)
	t.Cleanup(func() { w.Close(); c.Close() })
	return w, c, my
}

func mustExec(t *testing.T, w *MySQL, q string) {
	t.Helper()
	if _, err := w.Exec(context.Background(), []byte(q)); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestMyStmtReal: prepared statements on a real server write what database/sql reads back, and
// read each integer width and sign, NULLs, binary strings and a 1 MiB value; a statement's error
// leaves the connection usable.
func TestMyStmtReal(t *testing.T) {
	w, my := realMy(t)
	ctx := context.Background()
	mustExec(t, w, "DROP TABLE IF EXISTS stmt_t")
	mustExec(t, w, `CREATE TABLE stmt_t (id bigint unsigned PRIMARY KEY, i int, u int unsigned, tn tinyint,
		s smallint, m mediumint, b varbinary(255), blob_ mediumblob, d decimal(10,2), f double)`)
	ins, err := w.Prepare(ctx, []byte("INSERT INTO stmt_t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
	if err != nil || ins.Params != 10 {
		t.Fatalf("prepare: %v, %+v", err, ins)
	}
	big := bytes.Repeat([]byte{0, 0xff, '\'', '\\', 'x'}, 1<<20/5)
	rows := [][]any{
		{int64(1), int64(-5), int64(4000000000), int64(-128), int64(-300), int64(-8000000), []byte{0, 1, 0xfe, 0xff}, big, "12.50", 1.5},
		{uint64(1<<63 - 1), nil, nil, nil, nil, nil, nil, []byte{}, nil, nil},
	}
	for _, r := range rows {
		if n, err := w.ExecuteNoRows(ctx, ins, r); err != nil || n != 1 {
			t.Fatalf("insert %v: %d, %v", r[0], n, err)
		}
	}
	var b []byte
	if err := my.DB().QueryRowContext(ctx, "SELECT blob_ FROM stmt_t WHERE id = 1").Scan(&b); err != nil || !bytes.Equal(b, big) {
		t.Fatalf("the blob through database/sql: %d bytes, %v", len(b), err)
	}
	sel, err := w.Prepare(ctx, []byte("SELECT id, i, u, tn, s, m, b, blob_, d, f, count(*) over () FROM stmt_t WHERE id >= ? ORDER BY id"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // twice: MariaDB sends the columns' definitions only the first time
		got := readStmt(t, w, sel, int64(0))
		want := []string{"1,-5,4000000000,-128,-300,-8000000,\x00\x01\xfe\xff,BIG,12.50,?,2", "9223372036854775807,NULL,NULL,NULL,NULL,NULL,NULL,,NULL,NULL,2"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("rows:\n got %q\nwant %q", got, want)
		}
	}
	// A statement's error is the driver's error type; the connection goes on.
	if _, err := w.ExecuteNoRows(ctx, ins, rows[0]); !isMyErr(err, 1062) {
		t.Fatalf("duplicate key: %v", err)
	}
	if _, err := w.Prepare(ctx, []byte("SELEC 1")); !isMyErr(err, 1064) {
		t.Fatalf("syntax error: %v", err)
	}
	if _, _, err := w.Execute(ctx, sel, nil); err == nil {
		t.Fatal("no error for missing arguments")
	}
	upd, err := w.Prepare(ctx, []byte("UPDATE stmt_t SET i = i + 1 WHERE id < ?"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := w.ExecuteNoRows(ctx, upd, []any{int64(10)}); err != nil || n != 1 {
		t.Fatalf("update: %d, %v", n, err)
	}
	if err := w.CloseStmt(upd); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExecuteNoRows(ctx, upd, []any{int64(10)}); !isMyErr(err, 1243) { // unknown statement handler
		t.Fatalf("a closed statement: %v", err)
	}
	if got := readStmt(t, w, sel, int64(2)); len(got) != 1 {
		t.Fatalf("after the errors: %q", got)
	}
	mustExec(t, w, "DROP TABLE stmt_t")
}

func isMyErr(err error, number uint16) bool {
	var e *mysql.MySQLError
	return errors.As(err, &e) && e.Number == number
}

// readStmt runs st and returns its rows, each value as text: integers through Int, a value
// longer than 100 bytes as BIG, a double as ?.
func readStmt(t *testing.T, w *MySQL, st *MyStmt, args ...any) []string {
	t.Helper()
	rows, _, err := w.Execute(context.Background(), st, args)
	if err != nil || !rows {
		t.Fatalf("execute: %v, %v", rows, err)
	}
	var got []string
	for {
		vals, ok, err := w.NextRow()
		if !ok {
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		s := make([]string, len(vals))
		for i, v := range vals {
			switch n, isInt := st.Int(i, v); {
			case v == nil:
				s[i] = "NULL"
			case st.cols[i].typ == myTypeDouble:
				s[i] = "?"
			case len(v) > 100:
				s[i] = "BIG"
			case isInt:
				s[i] = strconv.FormatInt(n, 10)
			default:
				s[i] = string(v)
			}
		}
		got = append(got, strings.Join(s, ","))
	}
}

// TestMyQueueReal: BEGIN queued before a prepared INSERT opens the transaction the INSERT runs
// in (a ROLLBACK undoes it), on a real server.
func TestMyQueueReal(t *testing.T) {
	w, _ := realMy(t)
	ctx := context.Background()
	mustExec(t, w, "DROP TABLE IF EXISTS queue_t")
	mustExec(t, w, "CREATE TABLE queue_t (id bigint PRIMARY KEY)")
	ins, err := w.Prepare(ctx, []byte("INSERT INTO queue_t VALUES (?)"))
	if err != nil {
		t.Fatal(err)
	}
	w.Queue([]byte("BEGIN"))
	if n, err := w.ExecuteNoRows(ctx, ins, []any{int64(1)}); err != nil || n != 1 {
		t.Fatalf("insert: %d, %v", n, err)
	}
	mustExec(t, w, "ROLLBACK")
	if rows, _, err := w.Query(ctx, []byte("SELECT count(*) FROM queue_t")); err != nil || !rows {
		t.Fatalf("count: %v, %v", rows, err)
	}
	if got, err := readAll(t, w); err != nil || len(got) != 1 || got[0] != "0" {
		t.Fatalf("rows after the rollback: %q, %v (the INSERT ran outside a transaction)", got, err)
	}
	mustExec(t, w, "DROP TABLE queue_t")
}

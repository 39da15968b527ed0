package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
)

// The MySQL lean path's edges: contracts the other tests leave out.

// TestMySQLOKLenenc: affected rows and last insert ids of each length-encoded size (1, 3, 4
// and 9 bytes), then the status flags after them (SERVER_STATUS_IN_TRANS) read at the right
// offset. The fake tests had 1- and 3-byte counts and a 1-byte insert id only.
func TestMySQLOKLenenc(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		for _, n := range []uint64{7, 300, 70000, 1<<24 + 5, 1<<40 + 3} {
			for _, id := range []uint64{0, 300, 70000, 1 << 33} {
				f := newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
				p := appendLenenc([]byte{0}, n)
				p = appendLenenc(p, id)
				p = binary.LittleEndian.AppendUint16(p, serverInTrans)
				f.answer(0, newReply().pkt(append(p, 0, 0)...).b, newReply().ok(0, 1, 0).b)
				got, err := f.w.Exec(context.Background(), []byte("UPDATE t SET a = 1"))
				if err != nil || got != int64(n) || !f.w.InTransaction() {
					t.Fatalf("affected %d, id %d: got %d, %v, in transaction %v", n, id, got, err, f.w.InTransaction())
				}
				if _, err := f.w.Exec(context.Background(), []byte("COMMIT")); err != nil || f.w.InTransaction() {
					t.Fatalf("commit: %v, in transaction %v", err, f.w.InTransaction())
				}
			}
		}
	})
}

// TestMySQLBigRow: a row of 16 MiB or more comes in packets of 0xffffff bytes numbered on,
// the last shorter (possibly empty); its value is read whole and the sequence goes on to the
// rows' end. No other test sent a reply packet of 16 MiB.
func TestMySQLBigRow(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		for _, size := range []int{maxPayload - 4, maxPayload + 100} { // payload exactly 0xffffff: an empty packet follows
			for _, dep := range []bool{false, true} {
				var caps uint32
				if dep {
					caps = sqldriver.MySQLClientDeprecateEOF
				}
				f := newMyFake(t, poll, caps)
				val := bytes.Repeat([]byte{'v'}, size)
				payload := append(appendLenenc(nil, uint64(size)), val...)
				r := newReply().pkt(1).pkt([]byte("\x03def\x00\x00\x00\x01c\x00\x0c\x3f\x00\x14\x00\x00\x00\xfc\x81\x00\x00\x00\x00")...)
				if !dep {
					r.eof(0)
				}
				for {
					n := min(len(payload), maxPayload)
					r.pkt(payload[:n]...)
					payload = payload[n:]
					if n < maxPayload {
						break
					}
				}
				r.pkt(1, 'x')
				if dep {
					r.ok(0xfe, 0, 0)
				} else {
					r.eof(0)
				}
				f.answer(0, r.b)
				rows, _, err := f.w.Query(context.Background(), []byte("SELECT c FROM t"))
				if err != nil || !rows {
					t.Fatalf("size %d: %v, %v", size, rows, err)
				}
				v, ok, err := f.w.NextRow()
				if !ok || err != nil || !bytes.Equal(v[0], val) {
					t.Fatalf("size %d dep %v: big row: %v, %v, %d bytes", size, dep, ok, err, len(v))
				}
				if got, err := readAll(t, f.w); err != nil || len(got) != 1 || got[0] != "x" {
					t.Fatalf("size %d dep %v: after the big row: %q, %v", size, dep, got, err)
				}
				usable(t, f, dep)
			}
		}
	})
}

// TestMySQLErrorMidRowsReal: an error the server raises while it sends rows (BIGINT overflow
// at the second row: 1690), in text and binary rows, is the statement's error with the server's
// code, and the connection goes on. The real-server tests had errors as the first reply only.
func TestMySQLErrorMidRowsReal(t *testing.T) {
	w, _, _ := realMyConn(t)
	ctx := context.Background()
	const q = "SELECT seq, 9223372036854775806 + CAST(seq AS SIGNED) FROM seq_1_to_1000"
	rows, _, err := w.Query(ctx, []byte(q))
	if err != nil || !rows {
		t.Fatalf("query: %v, %v", rows, err)
	}
	got, err := readAll(t, w)
	if !isMyErr(err, 1690) || len(got) != 1 { // the first row fits; the second overflows
		t.Fatalf("text rows: %d rows, %v; want 1 row, then error 1690", len(got), err)
	}
	st, err := w.Prepare(ctx, []byte("SELECT seq, ? + CAST(seq AS SIGNED) FROM seq_1_to_1000 WHERE seq > ?"))
	if err != nil {
		t.Fatal(err)
	}
	if rows, _, err = w.Execute(ctx, st, []any{int64(1<<63 - 2), int64(0)}); err == nil && rows {
		for ok := true; ok; _, ok, err = w.NextRow() {
		}
	}
	if !isMyErr(err, 1690) {
		t.Fatalf("binary rows: %v; want error 1690", err)
	}
	if got := readStmt(t, w, st, int64(0), int64(999)); len(got) != 1 {
		t.Fatalf("after the errors: %q", got)
	}
}

// lockedRow creates table with the row id 1, dropped when the test ends, and holds that row's
// lock in a transaction through database/sql until the test ends.
func lockedRow(t *testing.T, w *MySQL, my *sqldriver.MySQL, table string) {
	t.Helper()
	mustExec(t, w, "CREATE TABLE IF NOT EXISTS "+table+" (id int PRIMARY KEY, v int)")
	mustExec(t, w, "REPLACE INTO "+table+" VALUES (1, 0)")
	t.Cleanup(func() { my.DB().Exec("DROP TABLE IF EXISTS " + table) })
	tx, err := my.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	if _, err := tx.Exec("UPDATE " + table + " SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
}

// TestMySQLLockWaitReal: a lock wait timeout (1205) inside a transaction is the statement's
// error; the transaction stays open (innodb_rollback_on_timeout is off) and InTransaction says
// so; the connection goes on.
func TestMySQLLockWaitReal(t *testing.T) {
	w, _, my := realMyConn(t)
	ctx := context.Background()
	lockedRow(t, w, my, "wire_edge_lock")
	mustExec(t, w, "SET SESSION innodb_lock_wait_timeout = 1")
	mustExec(t, w, "BEGIN")
	if _, err := w.Exec(ctx, []byte("UPDATE wire_edge_lock SET v = 2 WHERE id = 1")); !isMyErr(err, 1205) {
		t.Fatalf("locked row: %v, want 1205", err)
	}
	if !w.InTransaction() {
		t.Fatal("the transaction is open after 1205, InTransaction says not")
	}
	mustExec(t, w, "ROLLBACK")
	if w.InTransaction() {
		t.Fatal("InTransaction after ROLLBACK")
	}
}

// TestMySQLCancelKillsReal: a lean-path statement canceled while the real server runs it
// (waiting for a row lock, where the server does not notice the closed socket) is stopped on
// the server by KILL QUERY on another connection, not left waiting; the fake test only saw the
// kill function called. Without the kill the statement waits for the lock 600 s.
func TestMySQLCancelKillsReal(t *testing.T) {
	w, _, my := realMyConn(t)
	ctx := context.Background()
	lockedRow(t, w, my, "wire_edge_kill")
	mustExec(t, w, "SET SESSION innodb_lock_wait_timeout = 600")
	const q = "UPDATE wire_edge_kill SET v = 2 WHERE id = 1 /* wire_edge */"
	waiting := func() bool {
		var k int
		my.DB().QueryRow("SELECT count(*) FROM information_schema.processlist WHERE info = ?", q).Scan(&k)
		return k > 0
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		for !waiting() {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := w.Exec(cctx, []byte(q)); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled while waiting: %v", err)
	}
	deadline := time.Now().Add(time.Minute) // only so that a statement left waiting fails
	for waiting() {
		if time.Now().After(deadline) {
			t.Fatal("the canceled statement still waits on the server after a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMySQLReprepareReal: a prepared statement whose table changes (ALTER TABLE adds a column)
// is re-prepared by the server at its next execution, which sends the new column definitions
// (MariaDB's metadata-follows byte set); the lean path reads the rows by them. The real tests
// never changed a statement's columns.
func TestMySQLReprepareReal(t *testing.T) {
	w, _, my := realMyConn(t)
	ctx := context.Background()
	mustExec(t, w, "DROP TABLE IF EXISTS wire_edge_reprep")
	mustExec(t, w, "CREATE TABLE wire_edge_reprep (id bigint PRIMARY KEY, a int)")
	t.Cleanup(func() { my.DB().Exec("DROP TABLE IF EXISTS wire_edge_reprep") })
	mustExec(t, w, "INSERT INTO wire_edge_reprep VALUES (1, 10)")
	st, err := w.Prepare(ctx, []byte("SELECT * FROM wire_edge_reprep WHERE id = ?"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readStmt(t, w, st, int64(1)); strings.Join(got, "|") != "1,10" {
		t.Fatalf("before: %q", got)
	}
	mustExec(t, w, "ALTER TABLE wire_edge_reprep ADD COLUMN s varchar(10) DEFAULT 'new', MODIFY a bigint")
	for range 2 {
		if got := readStmt(t, w, st, int64(1)); strings.Join(got, "|") != "1,10,new" {
			t.Fatalf("after ALTER TABLE: %q", got)
		}
	}
}

// TestMySQLStatementTimeoutReal: MariaDB's max_statement_time stopping a statement while it
// sends rows gives its error (1969) with the server's code; the connection goes on.
func TestMySQLStatementTimeoutReal(t *testing.T) {
	w, _, _ := realMyConn(t)
	ctx := context.Background()
	q := "SET STATEMENT max_statement_time = 0.05 FOR SELECT seq, BENCHMARK(200000, MD5(seq)) FROM seq_1_to_100000"
	rows, _, err := w.Query(ctx, []byte(q))
	n := 0
	if err == nil && rows {
		for ok := true; ok; _, ok, err = w.NextRow() {
			n++
		}
	}
	if !isMyErr(err, 1969) {
		t.Fatalf("after %d rows: %v; want error 1969", n, err)
	}
	t.Logf("error 1969 after %d rows", n-1)
	if got := readStmt(t, w, mustPrepare(t, w, "SELECT ?"), int64(5)); len(got) != 1 || got[0] != "5" {
		t.Fatalf("after the error: %q", got)
	}
}

func mustPrepare(t *testing.T, w *MySQL, q string) *MyStmt {
	t.Helper()
	st, err := w.Prepare(context.Background(), []byte(q))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return st
}

// TestMySQLRebindReal: one prepared statement executed with parameters of changing types (an
// integer, a string over 250 bytes, NULL, binary bytes over 64 KiB, a negative integer) comes
// back as sent: the types are bound anew at each execution and the result's column type, which
// follows the parameter's, is read from the definitions the server sends when it changes.
func TestMySQLRebindReal(t *testing.T) {
	w, _, _ := realMyConn(t)
	st := mustPrepare(t, w, "SELECT ?")
	t.Logf("cache metadata %v, deprecate EOF %v", w.cacheMeta, w.deprecateEOF)
	long := strings.Repeat("é'\\", 100)
	bin := bytes.Repeat([]byte{0, 0xff, 0xfb, 0xfe}, 70000/4)
	for i, arg := range []any{int64(7), long, nil, bin, int64(-9), long} {
		rows, _, err := w.Execute(context.Background(), st, []any{arg})
		if err != nil || !rows {
			t.Fatalf("execution %d: %v, %v", i, rows, err)
		}
		vals, ok, err := w.NextRow()
		if !ok || err != nil {
			t.Fatalf("execution %d: no row: %v", i, err)
		}
		var got any
		switch n, isInt := st.Int(0, vals[0]); {
		case vals[0] == nil:
		case isInt && (arg == int64(7) || arg == int64(-9)):
			got = n
		default:
			got = string(vals[0])
		}
		if _, ok, err := w.NextRow(); ok || err != nil {
			t.Fatalf("execution %d: rows' end: %v, %v", i, ok, err)
		}
		want := arg
		if b, ok := arg.([]byte); ok {
			want = string(b)
		}
		if got != want {
			t.Fatalf("execution %d: got %.40q (%T), want %.40q", i, got, got, want)
		}
	}
}

// TestMySQLPreparedCallReal: a prepared CALL whose procedure returns two result sets of
// different columns (a string, then two integers), executed twice: the first result set's rows
// are read by its own columns each time, though reading the second (drain) replaced the
// statement's columns.
func TestMySQLPreparedCallReal(t *testing.T) {
	w, _, my := realMyConn(t)
	mustExec(t, w, "DROP PROCEDURE IF EXISTS wire_edge_two")
	mustExec(t, w, "CREATE PROCEDURE wire_edge_two() BEGIN SELECT 'abc' AS s; SELECT 1 AS a, 2 AS b; END")
	t.Cleanup(func() { my.DB().Exec("DROP PROCEDURE IF EXISTS wire_edge_two") })
	st := mustPrepare(t, w, "CALL wire_edge_two()")
	for i := range 3 {
		rows, _, err := w.Execute(context.Background(), st, nil)
		if err != nil || !rows {
			t.Fatalf("execution %d: %v, %v", i, rows, err)
		}
		vals, ok, err := w.NextRow()
		if !ok || err != nil || len(vals) != 1 || string(vals[0]) != "abc" {
			t.Fatalf("execution %d: first row %q, %v, %v", i, vals, ok, err)
		}
		if _, ok, err := w.NextRow(); ok || err != nil {
			t.Fatalf("execution %d: the reply's end: %v, %v", i, ok, err)
		}
	}
}

// TestMySQLMultiResultErrorReal: a CALL whose procedure returns a result set, then fails
// (SIGNAL: error 1644 with its message), as a text statement and a prepared one: the error of
// the later result is the statement's, after the first result's rows; the connection goes on.
func TestMySQLMultiResultErrorReal(t *testing.T) {
	w, _, my := realMyConn(t)
	ctx := context.Background()
	mustExec(t, w, "DROP PROCEDURE IF EXISTS wire_edge_fail")
	mustExec(t, w, "CREATE PROCEDURE wire_edge_fail() BEGIN SELECT 1 AS a; SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'the procedure says no'; END")
	t.Cleanup(func() { my.DB().Exec("DROP PROCEDURE IF EXISTS wire_edge_fail") })
	check := func(how string, rows bool, err error) {
		t.Helper()
		if err != nil || !rows {
			t.Fatalf("%s: %v, %v", how, rows, err)
		}
		got, err := readAll(t, w)
		if !isMyErr(err, 1644) || len(got) != 1 || got[0] == "" {
			t.Fatalf("%s: %q, %v; want one row, then error 1644", how, got, err)
		}
		if !strings.Contains(err.Error(), "the procedure says no") {
			t.Fatalf("%s: %v, without the server's message", how, err)
		}
	}
	rows, _, err := w.Query(ctx, []byte("CALL wire_edge_fail()"))
	check("text", rows, err)
	st := mustPrepare(t, w, "CALL wire_edge_fail()")
	rows, _, err = w.Execute(ctx, st, nil)
	check("prepared", rows, err)
	mustExec(t, w, "DO 1")
}

// TestMySQLBigCommandReal: a statement of more than 16 MiB (a COM_QUERY and a COM_STMT_EXECUTE
// whose payload is split into packets of 0xffffff bytes, numbered on) reaches the real server
// whole, or, beyond its max_allowed_packet, fails with the server's error 1153 and a closed
// connection (go-sql-driver refuses it before sending: ErrPktTooLarge, connection kept).
func TestMySQLBigCommandReal(t *testing.T) {
	w, _, my := realMyConn(t)
	var maxPacket int64
	if err := my.DB().QueryRow("SELECT @@max_allowed_packet").Scan(&maxPacket); err != nil {
		t.Fatal(err)
	}
	const size = maxPayload + 1000
	val := strings.Repeat("z", size)
	rows, _, err := w.Query(context.Background(), []byte("SELECT LENGTH('"+val+"')"))
	if maxPacket < size+1000 {
		if !isMyErr(err, 1153) {
			t.Fatalf("beyond max_allowed_packet %d: %v, want error 1153", maxPacket, err)
		}
		_, err = w.Exec(context.Background(), []byte("DO 1"))
		t.Logf("fatal after 1153: %v; the next statement: %v", w.err != nil, err)
		if err == nil {
			t.Fatal("the server closes the connection after 1153; the next statement ran")
		}
		return
	}
	if err != nil || !rows {
		t.Fatalf("text: %v, %v", rows, err)
	}
	if got, err := readAll(t, w); err != nil || len(got) != 1 || got[0] != "16778215" {
		t.Fatalf("text: %q, %v", got, err)
	}
	st := mustPrepare(t, w, "SELECT LENGTH(?)")
	if got := readStmt(t, w, st, val); len(got) != 1 || got[0] != "16778215" {
		t.Fatalf("prepared: %q", got)
	}
}

// TestMySQLDeadlockReal: a deadlock inside a lean-path transaction (the lighter one, so the
// server's victim) is its statement's error 1213; the server rolled the transaction back, and
// the connection goes on. InTransaction still says open (an ERR carries no status), which
// callers' ROLLBACK after a failure (script/run.go) makes right.
func TestMySQLDeadlockReal(t *testing.T) {
	w, _, my := realMyConn(t)
	ctx := context.Background()
	mustExec(t, w, "DROP TABLE IF EXISTS wire_edge_dead")
	mustExec(t, w, "CREATE TABLE wire_edge_dead (id int PRIMARY KEY, v int)")
	mustExec(t, w, "INSERT INTO wire_edge_dead SELECT seq, 0 FROM seq_1_to_50")
	t.Cleanup(func() { my.DB().Exec("DROP TABLE IF EXISTS wire_edge_dead") })
	tx, err := my.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE wire_edge_dead SET v = 1 WHERE id >= 2"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, w, "BEGIN")
	mustExec(t, w, "UPDATE wire_edge_dead SET v = 2 WHERE id = 1")
	other := make(chan error, 1)
	go func() { // waits for the lean path's row
		_, err := tx.ExecContext(ctx, "UPDATE wire_edge_dead SET v = 1 WHERE id = 1")
		other <- err
	}()
	for {
		var k int
		if err := my.DB().QueryRow("SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'").Scan(&k); err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err = w.Exec(ctx, []byte("UPDATE wire_edge_dead SET v = 2 WHERE id = 2"))
	if err == nil {
		t.Skipf("the server chose the other transaction: %v", <-other)
	}
	if !isMyErr(err, 1213) {
		t.Fatalf("deadlock: %v, want 1213", err)
	}
	if err := <-other; err != nil {
		t.Fatalf("the other transaction: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, w, "ROLLBACK")
	if rows, _, err := w.Query(ctx, []byte("SELECT v FROM wire_edge_dead WHERE id = 1")); err != nil || !rows {
		t.Fatal(err)
	}
	if got, err := readAll(t, w); err != nil || len(got) != 1 || got[0] != "1" {
		t.Fatalf("after the deadlock: %q, %v (want the other transaction's 1)", got, err)
	}
}

// TestMySQLKilledByOtherReal: KILL QUERY from another session (an operator, a watchdog) stops
// a lean-path statement waiting for a lock: its error is the server's 1317, and the connection
// goes on (the kill ends the statement, not the connection).
func TestMySQLKilledByOtherReal(t *testing.T) {
	w, _, my := realMyConn(t)
	ctx := context.Background()
	lockedRow(t, w, my, "wire_edge_kill2")
	mustExec(t, w, "SET SESSION innodb_lock_wait_timeout = 600")
	const q = "UPDATE wire_edge_kill2 SET v = 2 WHERE id = 1 /* wire_edge kill */"
	go func() {
		for {
			var id int64
			err := my.DB().QueryRow("SELECT id FROM information_schema.processlist WHERE info = ?", q).Scan(&id)
			if err == nil {
				my.DB().Exec("KILL QUERY " + strconv.FormatInt(id, 10))
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if _, err := w.Exec(ctx, []byte(q)); !isMyErr(err, 1317) {
		t.Fatalf("killed: %v, want error 1317", err)
	}
	mustExec(t, w, "DO 1")
}

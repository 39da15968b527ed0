package ibsql

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	wirepkg "github.com/dbperf/dbperf/internal/driver/wire"
	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/go-sql-driver/mysql"
)

// myConns returns two connections to st: one sending the text statements on the socket
// (wire.MySQL), one through database/sql.
func myConns(t *testing.T, st *myStore) (wire, plain *sqlConn) {
	t.Helper()
	ctx := context.Background()
	for _, p := range []**sqlConn{&wire, &plain} {
		c, err := st.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		*p = inner(c).(*sqlConn)
	}
	if wire.wire == nil { // --client-path driver
		sock, err := st.t.Socket(ctx, wire.c)
		if err != nil {
			t.Fatal(err)
		}
		wire.wire = wirepkg.NewMySQL(sock, false)
	}
	if plain.wire != nil {
		plain.wire.Close()
		plain.wire = nil
	}
	return wire, plain
}

// TestMyWireMatchesSQL checks, on InnoDB and MyRocks, that the socket path and database/sql
// insert the same rows and return the same range and point query results and deleted rows.
func TestMyWireMatchesSQL(t *testing.T) {
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			st := openMySQLTest(t, engine)
			tw, tp := "wire_eq_w", "wire_eq_p" // filled by the socket path and by database/sql
			if err := st.CreateTables(ctx, []string{tw, tp}); err != nil {
				t.Fatal(err)
			}
			wire, plain := myConns(t, st)
			gen := ib.NewGenerator(rand.New(rand.NewPCG(5, 5)), ib.DataSpec{Min: 10, Max: 40, RandomPct: 50})
			rows := make([]ib.Row, 100)
			for id := int64(1); id <= 1000; id += 100 {
				gen.Fill(rows, id, 1795363200+id)
				if err := wire.Insert(ctx, tw, rows); err != nil {
					t.Fatal(err)
				}
				if err := plain.Insert(ctx, tp, rows); err != nil {
					t.Fatal(err)
				}
			}
			// A NULL data column (nil on both paths) and an empty one (empty, not nil).
			for _, tbl := range []string{tw, tp} {
				if err := st.exec(ctx, "UPDATE "+tbl+" SET data = NULL WHERE transactionid = 7"); err != nil {
					t.Fatal(err)
				}
				if err := st.exec(ctx, "UPDATE "+tbl+" SET data = '' WHERE transactionid = 3"); err != nil {
					t.Fatal(err)
				}
			}
			for _, tbl := range []string{tw, tp} {
				if err := st.CreateIndexes(ctx, tbl); err != nil {
					t.Fatal(err)
				}
			}
			for idx := range ib.NumIndexes {
				for range 20 {
					x := gen.RangeStart(idx)
					got, err := wire.RangeQuery(ctx, tw, idx, x, nil)
					if err != nil {
						t.Fatal(err)
					}
					want, err := plain.RangeQuery(ctx, tp, idx, x, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(want) == 0 || !reflect.DeepEqual(got, want) {
						t.Fatalf("range query on %s from %d:\nsocket %v\nsql    %v", idx, x, got, want)
					}
				}
			}
			ids := []int64{7, 1, 2, 3, 500, 999, 1000, 1001, 5000, 42}
			var got, want []ib.PointRow
			for range 2 { // the second time into the first's storage
				var err error
				if got, err = wire.PointQuery(ctx, tw, ids, got[:0]); err != nil {
					t.Fatal(err)
				}
				if want, err = plain.PointQuery(ctx, tp, ids, want[:0]); err != nil {
					t.Fatal(err)
				}
				if len(want) != 8 || !reflect.DeepEqual(got, want) {
					t.Fatalf("point query:\nsocket %v\nsql    %v", got, want)
				}
			}
			for _, r := range got {
				if (r.ID == 7) != (r.Data == nil) || (r.ID == 3) != (r.Data != nil && len(r.Data) == 0) {
					t.Fatalf("row %d: data %q (only row 7's is NULL, only row 3's empty)", r.ID, r.Data)
				}
			}
			for _, del := range [][2]int64{{1, 51}, {51, 52}, {52, 52}, {990, 2000}} {
				nw, err := wire.DeleteOldest(ctx, tw, del[0], del[1])
				if err != nil {
					t.Fatal(err)
				}
				np, err := plain.DeleteOldest(ctx, tp, del[0], del[1])
				if err != nil {
					t.Fatal(err)
				}
				if nw != np {
					t.Fatalf("delete %v: %d rows on the socket, %d through database/sql", del, nw, np)
				}
			}
			sw, err := st.Stats(ctx, tw)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := st.Stats(ctx, tp)
			if err != nil {
				t.Fatal(err)
			}
			if sw.Rows != 938 || !reflect.DeepEqual(sw, sp) {
				t.Fatalf("after the deletes: socket's table %+v, database/sql's %+v (want 938 rows)", sw, sp)
			}
		})
	}
}

// TestMyWireErrors checks that a server error on the socket path is the driver's MySQLError
// with its number, and that the connection stays usable on both paths after it.
func TestMyWireErrors(t *testing.T) {
	ctx := context.Background()
	st := openMySQLTest(t, "innodb")
	if err := st.CreateTables(ctx, []string{"wire_err"}); err != nil {
		t.Fatal(err)
	}
	wire, _ := myConns(t, st)
	var myErr *mysql.MySQLError
	_, err := wire.RangeQuery(ctx, "wire_missing", ib.PDC, 1, nil)
	if !errors.As(err, &myErr) || myErr.Number != 1146 || !strings.Contains(myErr.Message, "wire_missing") {
		t.Fatalf("query on a missing table: %v, want MySQL error 1146", err)
	}
	rows := make([]ib.Row, 10)
	ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), ib.DataSpec{Min: 10, Max: 20}).Fill(rows, 1, 1795363200)
	if err := wire.Insert(ctx, "wire_err", rows); err != nil {
		t.Fatal(err)
	}
	err = wire.Insert(ctx, "wire_err", rows) // the same ids again
	if !errors.As(err, &myErr) || myErr.Number != 1062 || string(myErr.SQLState[:]) != "23000" {
		t.Fatalf("duplicate insert: %v, want MySQL error 1062 (23000)", err)
	}
	got, err := wire.PointQuery(ctx, "wire_err", []int64{1, 5, 10, 11}, nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("point query after the errors: %d rows, %v; want 3", len(got), err)
	}
	var n int
	if err := wire.c.QueryRowContext(ctx, "SELECT COUNT(*) FROM wire_err").Scan(&n); err != nil || n != 10 {
		t.Fatalf("database/sql on the same connection after the socket path: %d, %v", n, err)
	}
	if n, err := wire.DeleteOldest(ctx, "wire_err", 1, 4); err != nil || n != 3 {
		t.Fatalf("delete after database/sql: %d, %v", n, err)
	}
	// A statement with a second result (a multi-statement text is refused by the server
	// without CLIENT_MULTI_STATEMENTS): its error, and the connection still in step.
	if _, err := wire.wire.Exec(ctx, []byte("DELETE FROM wire_err WHERE transactionid = 4; SELECT 1")); !errors.As(err, &myErr) || myErr.Number != 1064 {
		t.Fatalf("two statements: %v, want a syntax error (1064)", err)
	}
	if n, err := wire.DeleteOldest(ctx, "wire_err", 4, 5); err != nil || n != 1 {
		t.Fatalf("delete after the syntax error: %d, %v", n, err)
	}
}

// TestMyWireCancel checks that a canceled context ends a statement on the socket path: before
// it starts (the connection stays usable), and while the server runs it (the connection is
// closed, and database/sql's next statement on it fails rather than hangs).
func TestMyWireCancel(t *testing.T) {
	ctx := context.Background()
	st := openMySQLTest(t, "innodb")
	if err := st.CreateTables(ctx, []string{"wire_cancel"}); err != nil {
		t.Fatal(err)
	}
	wire, _ := myConns(t, st)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := wire.PointQuery(cctx, "wire_cancel", []int64{1}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	if _, err := wire.PointQuery(ctx, "wire_cancel", []int64{1}, nil); err != nil {
		t.Fatalf("after a canceled context: %v", err)
	}
	var id int64
	if err := wire.c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	cctx, cancel = context.WithCancel(ctx)
	defer cancel()
	go func() { // cancel once the server runs the statement
		defer cancel()
		for {
			var n int
			err := st.t.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND info LIKE 'SELECT SLEEP%'", id).Scan(&n)
			if err != nil || n > 0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, _, err := wire.wire.Query(cctx, []byte("SELECT SLEEP(60)"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled while running: %v", err)
	}
	if _, err := wire.PointQuery(ctx, "wire_cancel", []int64{1}, nil); err == nil {
		t.Fatal("the socket path after its socket was closed: no error")
	}
	if err := wire.c.QueryRowContext(ctx, "SELECT 1").Scan(&id); err == nil {
		t.Fatal("database/sql after the socket was closed: no error")
	}
}

// TestMyWireLarge checks results and statements larger than the read buffer and than one
// packet (16 MiB), against database/sql's.
func TestMyWireLarge(t *testing.T) {
	ctx := context.Background()
	st := openMySQLTest(t, "innodb")
	if err := st.exec(ctx, "SET GLOBAL max_allowed_packet = 64*1024*1024"); err != nil {
		t.Fatal(err)
	}
	st.t.DB().SetMaxIdleConns(0) // new connections see the new maximum
	st.t.DB().SetMaxIdleConns(64)
	wire, plain := myConns(t, st)
	for _, size := range []int{100 << 10, 17 << 20} {
		q := []byte("SELECT REPEAT('ab', " + strconv.Itoa(size/2) + "), 1 UNION ALL SELECT 'c', 2")
		rows, _, err := wire.wire.Query(ctx, q)
		if err != nil || !rows {
			t.Fatalf("%d bytes: %v (rows %v)", size, err, rows)
		}
		var got [][]byte
		for v, ok, err := wire.wire.NextRow(); ; v, ok, err = wire.wire.NextRow() {
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, bytes.Clone(v[0]))
		}
		var want []byte
		if err := plain.c.QueryRowContext(ctx, string(q)).Scan(&want, new(int)); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || !bytes.Equal(got[0], want) || len(want) != size || string(got[1]) != "c" {
			t.Fatalf("%d bytes: got %d rows", size, len(got))
		}
		// The statement's text as large: sent in packets of 16 MiB.
		long := "SELECT LENGTH('" + strings.Repeat("x", size) + "')"
		if rows, _, err := wire.wire.Query(ctx, []byte(long)); err != nil || !rows {
			t.Fatalf("statement of %d bytes: %v", len(long), err)
		}
		v, ok, err := wire.wire.NextRow()
		if err != nil || !ok || string(v[0]) != strconv.Itoa(size) {
			t.Fatalf("statement of %d bytes: %q, %v", len(long), v, err)
		}
		wire.wire.Finish()
	}
}

// openMySQLPath opens the test server on a client path and binds the benchmark.
func openMySQLPath(t *testing.T, path driver.ClientPath) *myStore {
	t.Helper()
	tg := testtargets.OpenPath(t, mysqlTestURL(t, "innodb"), path)
	if used, fallback := tg.(*sqldriver.MySQL).ClientPath(); used != path {
		t.Fatalf("asked for %s, got %s: %s", path, used, fallback)
	}
	st, _ := Bind(tg)
	return st.(*myStore)
}

// TestMyWireCall: a CALL's reply has several results (its result sets, then its OK); the
// socket path reads them all and the connection stays usable (it was closed when the second
// result ended).
func TestMyWireCall(t *testing.T) {
	ctx := context.Background()
	st := openMySQLTest(t, "innodb")
	for _, q := range []string{"DROP PROCEDURE IF EXISTS wire_two", "CREATE PROCEDURE wire_two() BEGIN SELECT 1; SELECT 2, 3 UNION ALL SELECT 4, 5; END"} {
		if err := st.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	wire, _ := myConns(t, st)
	for range 2 {
		rows, _, err := wire.wire.Query(ctx, []byte("CALL wire_two()"))
		if err != nil || !rows {
			t.Fatalf("call: %v, %v", rows, err)
		}
		v, ok, err := wire.wire.NextRow()
		if !ok || err != nil || string(v[0]) != "1" {
			t.Fatalf("first row: %q, %v", v, err)
		}
		if _, ok, err := wire.wire.NextRow(); ok || err != nil {
			t.Fatalf("the results after the first: %v, %v", ok, err)
		}
		if n, err := wire.wire.Exec(ctx, []byte("DO 1")); err != nil || n != 0 {
			t.Fatalf("the next statement: %d, %v", n, err)
		}
	}
}

// running tells whether connection id runs a statement starting with prefix.
func running(t *testing.T, st *myStore, id int64, prefix string) bool {
	var n int
	err := st.t.DB().QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND info LIKE ?", id, prefix+"%").Scan(&n)
	if err != nil {
		t.Error(err)
	}
	return n > 0
}

// cancelWhenRunning cancels once connection id runs a statement starting with prefix.
func cancelWhenRunning(t *testing.T, st *myStore, id int64, prefix string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for !running(t, st, id, prefix) && !t.Failed() {
			time.Sleep(time.Millisecond)
		}
	}()
	return ctx
}

// TestMyCancelStopsOnServer: on every client path, a statement whose context is canceled stops
// on the server, not only in the client (go-sql-driver and the socket path close the
// connection, and the server would run the statement to its end): a canceled SELECT SLEEP
// leaves the process list at once, and a DELETE canceled while it waits on a row lock does
// not delete anything when the lock holder rolls back.
func TestMyCancelStopsOnServer(t *testing.T) {
	for _, path := range driver.ClientPaths {
		t.Run(string(path), func(t *testing.T) {
			ctx := context.Background()
			st := openMySQLPath(t, path)
			conn := func() (*sqlConn, int64) {
				ic, err := st.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ic.Close() })
				c := inner(ic).(*sqlConn)
				var id int64
				if err := c.c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
					t.Fatal(err)
				}
				return c, id
			}
			c, id := conn()
			sleep := []byte("SELECT SLEEP(60)")
			cctx := cancelWhenRunning(t, st, id, "SELECT SLEEP")
			var err error
			if c.wire != nil {
				_, _, err = c.wire.Query(cctx, sleep)
			} else {
				_, err = c.c.ExecContext(cctx, string(sleep))
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("canceled sleep: %v", err)
			}
			// MariaDB's SLEEP notices a closed connection every 5 s by itself; killed, it ends
			// at once. The bound is only there so that a sleep left running fails.
			for start := time.Now(); running(t, st, id, "SELECT SLEEP"); time.Sleep(10 * time.Millisecond) {
				if time.Since(start) > 3*time.Second {
					t.Fatal("the canceled SLEEP still runs on the server")
				}
			}
			cancelDelete(t, st, conn)
		})
	}
}

// cancelDelete runs the DELETE half of TestMyCancelStopsOnServer.
func cancelDelete(t *testing.T, st *myStore, conn func() (*sqlConn, int64)) {
	ctx := context.Background()
	tbl := "cancel_del"
	if err := st.CreateTables(ctx, []string{tbl}); err != nil {
		t.Fatal(err)
	}
	c, id := conn()
	rows := make([]ib.Row, 10)
	ib.NewGenerator(rand.New(rand.NewPCG(3, 3)), ib.DataSpec{Min: 10, Max: 20}).Fill(rows, 1, 1795363200)
	if err := c.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := c.c.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 600"); err != nil {
		t.Fatal(err)
	}
	holder, err := st.t.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, "SELECT * FROM "+tbl+" WHERE transactionid = 1 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	cctx := cancelWhenRunning(t, st, id, "DELETE")
	if _, err := c.DeleteOldest(cctx, tbl, 1, 11); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled delete: %v", err)
	}
	// Killed, the DELETE leaves at once; the wait's bound only keeps a DELETE left waiting on
	// the lock from holding the test: it then deletes the rows once the lock is released.
	for start := time.Now(); running(t, st, id, "DELETE") && time.Since(start) < 20*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	holder.Rollback()
	for running(t, st, id, "DELETE") {
		time.Sleep(10 * time.Millisecond)
	}
	var n int
	if err := st.t.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+tbl).Scan(&n); err != nil || n != 10 {
		t.Fatalf("after the canceled DELETE and the lock holder's rollback: %d rows, %v (want all 10)", n, err)
	}
}

package ibsql

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/jackc/pgx/v5/pgconn"
)

// openPostgresTest opens the server named by DBPERF_TEST_POSTGRES, binds the benchmark and
// creates table. Without the variable the test fails rather than skips, unless -short, as the
// MySQL tests do (openMySQLTest).
func openPostgresTest(t *testing.T, table string) ib.Store {
	t.Helper()
	return openPostgresPath(t, table, driver.ClientRaw)
}

// openPostgresPath is openPostgresTest with the target's client path (--client-path).
func openPostgresPath(t *testing.T, table string, path driver.ClientPath) ib.Store {
	t.Helper()
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("DBPERF_TEST_POSTGRES is not set (-short)")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: start a server (dbperf server start postgres) and set it to postgres://USER:PASSWORD@HOST:PORT/DB, or use go test -short to leave PostgreSQL out")
	}
	ctx := context.Background()
	tg := testtargets.OpenPath(t, dsn, path)
	st, ok := Bind(tg)
	if !ok {
		t.Fatalf("%T is not a SQL target", tg)
	}
	if err := st.CreateTables(ctx, []string{table}); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPGWireErrors checks that a statement failing on the wire.Postgres path returns the server's error
// and leaves the connection usable, on the wire.Postgres path and on pgconn's after it.
func TestPGWireErrors(t *testing.T) {
	ctx := context.Background()
	st := openPostgresTest(t, "wire_t")
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows := make([]ib.Row, 10)
	ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), ib.DataSpec{Min: 10, Max: 20}).Fill(rows, 1, 1795363200)
	if err := conn.Insert(ctx, "wire_t", rows); err != nil {
		t.Fatal(err)
	}
	err = conn.Insert(ctx, "wire_t", rows) // the same ids again
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("duplicate insert: got %v, want a unique violation", err)
	}
	got, err := conn.PointQuery(ctx, "wire_t", []int64{1, 5, 10, 11}, nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("point query after the error: %d rows, %v; want 3 rows", len(got), err)
	}
	if n, err := conn.DeleteOldest(ctx, "wire_t", 1, 4); err != nil || n != 3 { // its row count from the tag
		t.Fatalf("delete after an error: %d rows, %v; want 3", n, err)
	}
	got, err = conn.PointQuery(ctx, "wire_t", []int64{1, 5}, nil)
	if err != nil || len(got) != 1 || got[0].ID != 5 {
		t.Fatalf("point query after pgx: %v, %v; want id 5", got, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := conn.PointQuery(cctx, "wire_t", []int64{5}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
}

// TestPGWireOutlivesContext: a context canceled after its statement (as a step's is at its end,
// or a benchmark's between runs) leaves the idle connection alone for the next context.
func TestPGWireOutlivesContext(t *testing.T) {
	ctx := context.Background()
	st := openPostgresTest(t, "wire_o")
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := range 3 {
		cctx, cancel := context.WithCancel(ctx)
		if _, err := conn.PointQuery(cctx, "wire_o", []int64{1}, nil); err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
		cancel()
		time.Sleep(50 * time.Millisecond) // the cancellation's callback has run (or, under load, not yet: then this checks less)
	}
	if _, err := conn.PointQuery(ctx, "wire_o", []int64{1}, nil); err != nil {
		t.Fatalf("after three canceled contexts: %v", err)
	}
}

// TestPGWireCancelWhileWaiting: a query waiting for its reply (blocked here by another session's
// lock on the table) is canceled on the server when its context is canceled: it returns the
// server's query_canceled error with the context's, and the connection stays usable.
func TestPGWireCancelWhileWaiting(t *testing.T) {
	ctx := context.Background()
	st := openPostgresTest(t, "wire_c")
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.PointQuery(ctx, "wire_c", []int64{1}, nil); err != nil { // prepares it
		t.Fatal(err)
	}
	locker, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	pg := inner(locker).(*pgConn).c
	if _, err := pg.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Exec(ctx, "LOCK TABLE wire_c IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	defer pg.Exec(ctx, "ROLLBACK")
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := conn.PointQuery(cctx, "wire_c", []int64{1}, nil)
		done <- err
	}()
	for waiting := 0; waiting == 0; { // until the query waits for the lock
		select {
		case err := <-done:
			t.Fatalf("the query returned while the table was locked: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		err := pg.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'wire_c'::regclass").Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	select {
	case err := <-done:
		var pgErr *pgconn.PgError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &pgErr) || pgErr.Code != "57014" {
			t.Errorf("canceled while waiting: %v, want the context's error and the server's 57014", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the query did not return within a minute of its context's cancellation")
	}
	if _, err := pg.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PointQuery(ctx, "wire_c", []int64{1}, nil); err != nil {
		t.Errorf("the connection after a statement canceled on the server: %v", err)
	}
}

// TestPGClientPaths: every client path runs the Insert Benchmark's statements with the same
// results, and --client-path driver builds no lean path at all (before, the Insert Benchmark
// built it unconditionally, so a connection the lean path cannot read, TLS, failed).
func TestPGClientPaths(t *testing.T) {
	ctx := context.Background()
	var want []ib.PointRow
	for _, path := range driver.ClientPaths {
		st := openPostgresPath(t, "wire_paths", path)
		conn, err := st.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if lean := inner(conn).(*pgConn).wire != nil; lean != path.Lean() {
			t.Errorf("--client-path %s: lean path built %v", path, lean)
		}
		rows := make([]ib.Row, 10) // the table is new for each path
		ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), ib.DataSpec{Min: 10, Max: 20}).Fill(rows, 1, 1795363200)
		if err := conn.Insert(ctx, "wire_paths", rows); err != nil {
			t.Fatalf("--client-path %s: %v", path, err)
		}
		got, err := conn.PointQuery(ctx, "wire_paths", []int64{1, 5, 10}, nil)
		if err != nil {
			t.Fatalf("--client-path %s: %v", path, err)
		}
		if want == nil {
			want = got
		} else if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("--client-path %s: %v, want %v", path, got, want)
		}
		conn.Close()
	}
	if len(want) != 3 {
		t.Errorf("%d rows, want 3", len(want))
	}
}

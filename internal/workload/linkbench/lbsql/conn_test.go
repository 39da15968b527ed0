package lbsql

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/jackc/pgx/v5/pgconn"
)

// openPGConn opens two connections to the test PostgreSQL: LinkBench's (through pgx, or the
// socket path with wirePath) and a plain pgx connection beside it. Without
// DBPERF_TEST_POSTGRES the test fails unless -short.
func openPGConn(t *testing.T, wirePath bool) (conn, *sqldriver.Postgres) {
	t.Helper()
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("DBPERF_TEST_POSTGRES is not set (-short)")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh, or use go test -short to leave PostgreSQL out")
	}
	ctx := context.Background()
	tg := testtargets.Open(t, dsn)
	pg, ok := tg.(*sqldriver.Postgres)
	if !ok {
		t.Fatalf("%T is not PostgreSQL", tg)
	}
	c, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var conn conn = pgConn{c}
	if wirePath {
		if conn, err = newPGWireConn(c, false); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { conn.close() })
	return conn, pg
}

// TestPGConnCancel: statements run under a canceled context return its error; a context that
// ends while the connection is idle leaves it usable; a statement waiting for its reply
// (blocked by another session's lock) is canceled on the server when its context is canceled:
// it returns the server's query_canceled, and the connection, now
// idle, is used again (pgx's CancelRequest handler on the driver path, the lean path's own).
func TestPGConnCancel(t *testing.T) {
	t.Run("pgx", func(t *testing.T) { testPGConnCancel(t, false) })
	t.Run("wire", func(t *testing.T) { testPGConnCancel(t, true) })
}

func testPGConnCancel(t *testing.T, wirePath bool) {
	ctx := context.Background()
	conn, pg := openPGConn(t, wirePath)
	if _, err := conn.exec(ctx, "CREATE TABLE IF NOT EXISTS lb_cancel (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	readOne := func(ctx context.Context) error {
		return conn.query(ctx, "SELECT count(*) FROM lb_cancel WHERE id >= $1", []any{int64(0)}, func(r rows) error {
			for r.Next() {
			}
			return nil
		})
	}
	done, cancelDone := context.WithCancel(ctx)
	cancelDone()
	if err := readOne(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("under a canceled context: %v, want context.Canceled", err)
	}
	step, cancelStep := context.WithCancel(ctx)
	defer cancelStep()
	for range 3 { // the same context many times: watched once
		if err := readOne(step); err != nil {
			t.Fatal(err)
		}
	}
	if err := readOne(ctx); err != nil { // a context that cannot end
		t.Fatal(err)
	}
	idle, cancelIdle := context.WithCancel(ctx)
	if err := readOne(idle); err != nil {
		t.Fatal(err)
	}
	cancelIdle() // as a step's context ends with its step, the connection idle
	if err := readOne(step); err != nil {
		t.Fatalf("after the context of an idle connection ended: %v", err)
	}

	locker, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	if _, err := locker.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := locker.Exec(ctx, "LOCK TABLE lb_cancel IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	defer locker.Exec(ctx, "ROLLBACK")
	res := make(chan error, 1)
	go func() { res <- readOne(step) }()
	for waiting := 0; waiting == 0; { // until the query waits for the lock
		select {
		case err := <-res:
			t.Fatalf("the query returned while the table was locked: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		err := locker.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'lb_cancel'::regclass").Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
	}
	cancelStep()
	select {
	case err := <-res:
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
			t.Errorf("canceled while waiting: %v, want the server's 57014", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the query did not return within a minute of its context's cancellation")
	}
	if _, err := locker.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := readOne(ctx); err != nil {
		t.Errorf("the connection after a statement canceled on the server: %v", err)
	}
}

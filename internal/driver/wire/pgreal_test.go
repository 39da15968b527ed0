package wire

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The guarantees against a real PostgreSQL, each through the lean path and through pgx: what
// the server did is what the statement reports.

// realPG opens the test server's database wire_real and returns a connection with its lean
// path (nil for the pgx side) and a second connection for setup and checks.
func realPG(t *testing.T, lean bool) (*pgx.Conn, *Postgres, *pgx.Conn) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no PostgreSQL")
	}
	dsn := testtargets.All(t, "wire_real", "x")["postgres"]
	pg := testtargets.Open(t, dsn).(*sqldriver.Postgres)
	ctx := context.Background()
	c, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx); other.Close(ctx) })
	if !lean {
		return c, nil, other
	}
	w, err := NewPostgres(c.PgConn(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return c, w, other
}

// exec runs q simply on the lean path or through pgx.
func exec(ctx context.Context, c *pgx.Conn, w *Postgres, q string) error {
	if w != nil {
		return w.ExecSimple(ctx, []byte(q))
	}
	_, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol)
	return err
}

func forBothPaths(t *testing.T, f func(t *testing.T, c *pgx.Conn, w *Postgres, other *pgx.Conn)) {
	for _, lean := range []bool{true, false} {
		name := map[bool]string{true: "lean", false: "pgx"}[lean]
		t.Run(name, func(t *testing.T) {
			c, w, other := realPG(t, lean)
			f(t, c, w, other)
		})
	}
}

// TestPGRealCanceledDeleteDoesNotCommit: a DELETE canceled while it waits for a row lock is
// canceled on the server: every row is still there once the lock is released.
func TestPGRealCanceledDeleteDoesNotCommit(t *testing.T) {
	forBothPaths(t, func(t *testing.T, c *pgx.Conn, w *Postgres, other *pgx.Conn) {
		ctx := context.Background()
		table := fmt.Sprintf("wire_del_%d", os.Getpid()) // a test run beside this one has its own
		for _, q := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (id int PRIMARY KEY)",
			"INSERT INTO " + table + " SELECT generate_series(1, 10)", "BEGIN", "SELECT * FROM " + table + " WHERE id = 1 FOR UPDATE"} {
			if _, err := other.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		defer other.Exec(ctx, "DROP TABLE IF EXISTS "+table)
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- exec(cctx, c, w, "DELETE FROM "+table) }()
		if !waitForLockWait(t, other, c.PgConn().PID()) {
			cancel()
			<-done // the statement ends before the connections close
			t.Fatal("no session waited for the lock within a minute")
		}
		cancel()
		err := <-done
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Errorf("canceled DELETE: %v, want the server's 57014", err)
		}
		if _, err := other.Exec(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := other.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 10 {
			t.Errorf("%d rows left (%v), want all 10: the canceled DELETE took effect", n, err)
		}
	})
}

// waitForLockWait tells, within a minute, that backend pid waits for a lock. It reads pg_locks,
// which is live: pg_stat_activity is read once per transaction (stats_fetch_consistency), and c
// holds the lock in an open transaction, so it would show the first look's state forever.
func waitForLockWait(t *testing.T, c *pgx.Conn, pid uint32) bool {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var waiting int
		err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted", int64(pid)).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return true
		}
	}
	return false
}

// TestPGRealCanceledSleepStops: a canceled pg_sleep is no longer running on the server once
// the statement returned.
func TestPGRealCanceledSleepStops(t *testing.T) {
	forBothPaths(t, func(t *testing.T, c *pgx.Conn, w *Postgres, other *pgx.Conn) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- exec(ctx, c, w, "SELECT pg_sleep(30) /* wire_sleep */") }()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if activeSleeps(t, other) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the sleep did not start within a minute")
			}
		}
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the canceled sleep returned no error")
		}
		if n := activeSleeps(t, other); n != 0 {
			t.Errorf("%d canceled sleeps still active on the server after the statement returned", n)
		}
	})
}

func activeSleeps(t *testing.T, c *pgx.Conn) int {
	var n int
	err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%wire_sleep%' AND pid <> pg_backend_pid()").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPGRealErrorsAfterCompletion: a deferred unique constraint violated at COMMIT, a simple
// query whose second statement fails, and the COMMIT of a failed transaction are errors.
func TestPGRealErrorsAfterCompletion(t *testing.T) {
	forBothPaths(t, func(t *testing.T, c *pgx.Conn, w *Postgres, other *pgx.Conn) {
		ctx := context.Background()
		for _, q := range []string{"DROP TABLE IF EXISTS wire_def",
			"CREATE TABLE wire_def (id int, UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)"} {
			if _, err := other.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		wantCode := func(what, code string, err error) {
			t.Helper()
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != code {
				t.Errorf("%s: %v, want %s", what, err, code)
			}
		}
		wantCode("deferred unique violation in one simple query",
			"23505", exec(ctx, c, w, "INSERT INTO wire_def VALUES (1), (1)"))
		wantCode("second statement of a simple query",
			"22012", exec(ctx, c, w, "INSERT INTO wire_def VALUES (2); SELECT 1/0"))
		if err := exec(ctx, c, w, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if err := exec(ctx, c, w, "INSERT INTO wire_def VALUES (3), (3)"); err != nil {
			t.Fatal(err) // deferred: no error until COMMIT
		}
		wantCode("deferred unique violation at COMMIT", "23505", exec(ctx, c, w, "COMMIT"))
		if err := exec(ctx, c, w, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		exec(ctx, c, w, "SELECT 1/0")
		err := exec(ctx, c, w, "COMMIT")
		if w != nil && !errors.Is(err, ErrCommitRollback) {
			t.Errorf("COMMIT of a failed transaction on the lean path: %v, want %v", err, ErrCommitRollback)
		}
		var n int
		if err := other.QueryRow(ctx, "SELECT count(*) FROM wire_def").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d rows (%v), want none: every insert failed", n, err)
		}
	})
}

// TestPGRealDiscardCounts: Discard counts a real reply's rows (large enough to arrive in
// several reads) as NextRow reads them, and returns an error raised after some rows were sent
// (the rows before it counted, as pgconn reads them), with the connection usable after either.
func TestPGRealDiscardCounts(t *testing.T) {
	c, w, _ := realPG(t, true)
	ctx := context.Background()
	pg := c.PgConn()
	if _, err := pg.Prepare(ctx, "dc", "SELECT repeat('x', 120) || g, 1/($1::int - g) FROM generate_series(1, 1000) g", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Release(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		div  string
		want int64
		code string
	}{{"2000", 1000, ""}, {"700", 699, "22012"}, {"5000", 1000, ""}} {
		if err := w.ExecPrepared(ctx, "dc", [][]byte{[]byte(tc.div)}); err != nil {
			t.Fatal(err)
		}
		n, err := w.Discard()
		var pe *pgconn.PgError
		switch {
		case tc.code == "" && (err != nil || n != tc.want):
			t.Errorf("divisor %s: %d rows, error %v; want %d rows", tc.div, n, err, tc.want)
		case tc.code != "" && (!errors.As(err, &pe) || pe.Code != tc.code || n != tc.want):
			t.Errorf("divisor %s: %d rows, error %v; want the server's %s", tc.div, n, err, tc.code)
		}
	}
}

package wire

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Contracts of the lean PostgreSQL path the other tests do not pin down.

// TestPGReleaseThenLeanKeepsUnread: bytes that arrived after a reply (here the start of
// a notification, whose rest comes later) go back to pgx's connection at Release
// (rawsock.Unreader). If the lean path takes the socket again before pgx read them, it must
// read them first, as pgconn would: the raw path reads the descriptor and skips them, so the
// next reply starts in the middle of the notification.
func TestPGReleaseThenLeanKeepsUnread(t *testing.T) {
	notif := msgs(&pgproto3.NotificationResponse{PID: 1, Channel: "c", Payload: "p"})
	for _, poll := range []bool{false, true} {
		t.Run(map[bool]string{false: "raw", true: "netconn"}[poll], func(t *testing.T) {
			f := newFakePG(t, 0)
			pg := f.connect(t, !poll)
			w, err := NewPostgres(pg, poll)
			if err != nil {
				t.Fatal(err)
			}
			f.replies <- append(msgs(complete("SELECT 0"), z), notif[:3]...)
			if err := w.ExecSimple(context.Background(), []byte("SELECT 0")); err != nil {
				t.Fatal(err)
			}
			if err := w.Release(); err != nil {
				t.Fatal(err)
			}
			f.replies <- append(append([]byte(nil), notif[3:]...), msgs(complete("SELECT 0"), z)...)
			// A desynchronized read waits for a message of the size it misread: the context ends
			// it (canceled on the server, then the socket shut down after the grace).
			w.grace = 300 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := w.ExecSimple(ctx, []byte("SELECT 0")); err != nil {
				t.Fatalf("the lean statement after Release (pgconn would read the notification given back first): %v", err)
			}
			if err := w.Release(); err != nil {
				t.Fatal(err)
			}
			f.replies <- msgs(complete("SELECT 0"), z)
			if _, err := pg.Exec(context.Background(), "SELECT 0").ReadAll(); err != nil {
				t.Errorf("pgconn after the second Release: %v", err)
			}
		})
	}
}

// TestPGRealStateAfterRelease: settings changed and a transaction failed on the lean
// path are what pgx sees after Release, against the real server (the fake tests check one
// ParameterStatus and status T).
func TestPGRealStateAfterRelease(t *testing.T) {
	c, w, _ := realPG(t, true)
	ctx := context.Background()
	for _, q := range []string{"SET application_name = 'lean_edge'", "SET TimeZone = 'Asia/Tokyo'",
		"SET DateStyle = 'SQL, DMY'", "BEGIN", "SELECT 1/0"} {
		err := w.ExecSimple(ctx, []byte(q))
		if (q == "SELECT 1/0") != (err != nil) {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := w.Release(); err != nil {
		t.Fatal(err)
	}
	pg := c.PgConn()
	for name, want := range map[string]string{"application_name": "lean_edge", "TimeZone": "Asia/Tokyo", "DateStyle": "SQL, DMY"} {
		if got := pg.ParameterStatus(name); got != want {
			t.Errorf("pgx's %s after Release: %q, want %q", name, got, want)
		}
	}
	if s := pg.TxStatus(); s != 'E' {
		t.Errorf("pgx's TxStatus after a failed statement in a block on the lean path: %q, want E", s)
	}
	if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	var tz string
	if err := c.QueryRow(ctx, "SHOW TimeZone").Scan(&tz); err != nil || tz != "Asia/Tokyo" {
		t.Errorf("pgx after ROLLBACK: TimeZone %q (%v)", tz, err)
	}
	if err := w.ExecSimple(ctx, []byte("SELECT 1 WHERE false")); err != nil || w.TxStatus() != 'I' {
		t.Errorf("the lean path after pgx's ROLLBACK: %v, status %q", err, w.TxStatus())
	}
}

// TestPGRealGivenStaysBounded: a ParameterStatus in every reply (a script that SETs
// application_name in every transaction) does not pile up for pgconn until the next Release:
// what is kept stays near maxGiven, and pgx still sees the last value.
func TestPGRealGivenStaysBounded(t *testing.T) {
	c, w, _ := realPG(t, true)
	ctx := context.Background()
	most := 0
	for i := range 5000 {
		if err := w.ExecSimple(ctx, fmt.Appendf(nil, "SET application_name = 'bounded_%d'", i)); err != nil {
			t.Fatal(err)
		}
		most = max(most, len(w.given))
	}
	if most > 2*maxGiven {
		t.Errorf("kept %d bytes of messages for pgconn, want about %d at most", most, maxGiven)
	}
	if err := w.Release(); err != nil {
		t.Fatal(err)
	}
	if got := c.PgConn().ParameterStatus("application_name"); got != "bounded_4999" {
		t.Errorf("pgx's application_name after Release: %q, want bounded_4999", got)
	}
}

// TestPGRealChangedResultType: a prepared statement whose table changed shape fails with
// the server's 0A000 (cached plan must not change result type) on the lean path as through
// pgconn, and the connection stays in sync for both.
func TestPGRealChangedResultType(t *testing.T) {
	c, w, other := realPG(t, true)
	ctx := context.Background()
	table := fmt.Sprintf("wire_shape_%d", os.Getpid())
	for _, q := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (a int)", "INSERT INTO " + table + " VALUES (1)"} {
		if _, err := other.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer other.Exec(ctx, "DROP TABLE IF EXISTS "+table)
	if _, err := c.PgConn().Prepare(ctx, "shape", "SELECT * FROM "+table, nil); err != nil {
		t.Fatal(err)
	}
	run := func() (int, error) {
		if err := w.ExecPrepared(ctx, "shape", nil); err != nil {
			return 0, err
		}
		n := 0
		for {
			_, ok, err := w.NextRow()
			if !ok {
				return n, err
			}
			n++
		}
	}
	if n, err := run(); n != 1 || err != nil {
		t.Fatalf("before the change: %d rows, %v", n, err)
	}
	if _, err := other.Exec(ctx, "ALTER TABLE "+table+" ADD COLUMN b int"); err != nil {
		t.Fatal(err)
	}
	_, err := run()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("after the change: %v, want the server's 0A000", err)
	}
	if err := w.ExecSimple(ctx, []byte("SELECT 1 WHERE false")); err != nil {
		t.Errorf("the lean path after 0A000: %v", err)
	}
	if err := w.Release(); err != nil {
		t.Fatal(err)
	}
	if err := c.PgConn().ExecPrepared(ctx, "shape", nil, nil, nil).Read().Err; !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("pgconn on the same statement: %v, want 0A000 too", err)
	}
	if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
		t.Errorf("pgx after Release: %v", err)
	}
}

// TestPGRealCancelNearTheEnd: a context canceled while a short statement finishes, or
// right after, must never cancel the next statement (run with a new context): each next
// statement sleeps a little (DO: ExecSimple takes no rows) so that a CancelRequest arriving
// late would hit it. Whatever the timing, the assertion holds for a correct path.
func TestPGRealCancelNearTheEnd(t *testing.T) {
	forBothPaths(t, func(t *testing.T, c *pgx.Conn, w *Postgres, other *pgx.Conn) {
		for i := range 20 {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- exec(ctx, c, w, "DO $$BEGIN PERFORM pg_sleep(0.002); END$$") }()
			if i%2 == 0 {
				time.Sleep(time.Duration(i) * 200 * time.Microsecond)
			}
			cancel()
			first := <-done
			if w == nil && c.IsClosed() {
				t.Skip("pgx closed the connection after the cancel (its deadline)")
			}
			if errors.Is(first, ErrShut) {
				t.Fatalf("round %d: the connection was shut: %v", i, first)
			}
			err := exec(context.Background(), c, w, "DO $$BEGIN PERFORM pg_sleep(0.05); END$$")
			if err != nil {
				t.Fatalf("round %d: the statement after a canceled one (%v): %v", i, first, err)
			}
		}
	})
}

// TestPGRealUnixSocket: a target on the server's Unix socket keeps the lean path (no
// fallback: the socket is the plain connection pgx dialed), and a canceled statement is canceled
// on the server through it (pgconn's CancelRequest dials the socket's directory, not the
// peer's relative name) with the connection usable after.
func TestPGRealUnixSocket(t *testing.T) {
	_, _, other := realPG(t, false)
	ctx := context.Background()
	var dirs string
	if err := other.QueryRow(ctx, "SHOW unix_socket_directories").Scan(&dirs); err != nil {
		t.Fatal(err)
	}
	dir, _, _ := strings.Cut(dirs, ",")
	dir = strings.TrimSpace(dir)
	u, err := url.Parse(os.Getenv("DBPERF_TEST_POSTGRES"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".s.PGSQL."+u.Port())); err != nil {
		t.Fatalf("the server's Unix socket (scripts/test.sh starts it in its data directory) is not there: %v", err)
	}
	q := url.Values{"host": {dir}, "port": {u.Port()}}
	dsn := fmt.Sprintf("postgres://%s@/wire_real?%s", u.User.String(), q.Encode())
	tg := testtargets.Open(t, dsn).(*sqldriver.Postgres)
	if path, why := tg.ClientPath(); path != driver.ClientKernel || why != "" {
		t.Errorf("Unix socket target: path %s (%q), want kernel without a fallback", path, why)
	}
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	w, err := NewPostgres(c.PgConn(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.ExecSimple(cctx, []byte("SELECT pg_sleep(30) /* wire_sleep */")) }()
	for deadline := time.Now().Add(time.Minute); activeSleeps(t, other) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatal("the sleep did not start within a minute")
		}
	}
	cancel()
	err = <-done
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" {
		t.Errorf("canceled sleep over the Unix socket: %v, want the server's 57014", err)
	}
	if err := w.ExecSimple(ctx, []byte("SELECT 1 WHERE false")); err != nil {
		t.Errorf("the connection after the cancel: %v", err)
	}
}

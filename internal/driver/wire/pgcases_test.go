package wire

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// outcome is how a statement ended: its error, the rows it read, and whether the connection
// still works.
type outcome struct {
	err     error
	rows    []string
	counted bool // the rows were counted (Discard), not read: rows holds as many empty strings
}

// pgCase is a request and the fake server's reply; want checks the outcome on every path,
// leanOnly cases are ones pgconn answers at a layer above it (pgx's Tx) or not at all.
type pgCase struct {
	name     string
	simple   string // a simple query; empty: a prepared statement's Bind/Execute/Sync
	reply    []byte
	closes   bool // the server closes the connection after the reply
	want     func(o outcome) error
	leanOnly bool
}

func wantCode(code string) func(o outcome) error {
	return func(o outcome) error {
		var pe *pgconn.PgError
		if !errors.As(o.err, &pe) || pe.Code != code {
			return fmt.Errorf("error %v, want the server's %s", o.err, code)
		}
		return nil
	}
}

func wantFailure(o outcome) error {
	if o.err == nil {
		return fmt.Errorf("no error (rows %q), want one", o.rows)
	}
	return nil
}

func wantRows(rows ...string) func(o outcome) error {
	return func(o outcome) error {
		if o.counted && o.err == nil && len(o.rows) == len(rows) {
			return nil
		}
		if o.err != nil || o.counted || fmt.Sprint(o.rows) != fmt.Sprint(rows) {
			return fmt.Errorf("rows %q, error %v; want rows %q", o.rows, o.err, rows)
		}
		return nil
	}
}

func row(v string) *pgproto3.DataRow { return &pgproto3.DataRow{Values: [][]byte{[]byte(v)}} }

func pgCases() []pgCase {
	notice := &pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "hello"}
	return []pgCase{
		{name: "error after CommandComplete (deferred constraint at the implicit commit)",
			reply: msgs(parsed, bound, noData, complete("INSERT 0 1"), pgError("ERROR", "23505", "duplicate key"), z),
			want:  wantCode("23505")},
		{name: "second statement of a simple query fails", simple: "INSERT INTO t VALUES (1); SELECT 1/0",
			reply: msgs(complete("INSERT 0 1"), pgError("ERROR", "22012", "division by zero"), z),
			want:  wantCode("22012")},
		{name: "COMMIT of a failed transaction answered ROLLBACK", simple: "COMMIT",
			reply: msgs(complete("ROLLBACK"), z), leanOnly: true,
			want: func(o outcome) error {
				if !errors.Is(o.err, ErrCommitRollback) {
					return fmt.Errorf("error %v, want %v", o.err, ErrCommitRollback)
				}
				return nil
			}},
		{name: "ROLLBACK answered ROLLBACK", simple: "rollback",
			reply: msgs(complete("ROLLBACK"), z), want: wantRows()},
		{name: "FATAL then close", simple: "SELECT 1",
			reply: msgs(pgError("FATAL", "57P01", "terminating connection due to administrator command")), closes: true,
			want: wantCode("57P01")},
		// pgconn reports an unexpected EOF here; the lean path keeps the server's error.
		{name: "error then close without ReadyForQuery", simple: "SELECT 1",
			reply: msgs(pgError("ERROR", "XX000", "internal error")), closes: true, leanOnly: true,
			want: wantCode("XX000")},
		{name: "field length -2", reply: append(msgs(parsed, bound, oneColumn()), 'D', 0, 0, 0, 10, 0, 1, 0xff, 0xff, 0xff, 0xfe),
			closes: true, want: wantFailure},
		{name: "NULL field", reply: msgs(parsed, bound, oneColumn(), &pgproto3.DataRow{Values: [][]byte{nil}}, complete("SELECT 1"), z),
			want: wantRows("<nil>")},
		{name: "notices and parameter status between rows",
			reply: msgs(parsed, bound, oneColumn(), row("a"), notice, &pgproto3.ParameterStatus{Name: "x", Value: "y"}, row("b"), complete("SELECT 2"), z),
			want:  wantRows("a", "b")},
		{name: "COPY where rows were expected", simple: "COPY t TO STDOUT",
			reply: msgs(&pgproto3.CopyOutResponse{}), closes: true, leanOnly: true, want: wantFailure},
		{name: "portal suspended although every row was asked for",
			reply: msgs(parsed, bound, oneColumn(), row("a"), &pgproto3.PortalSuspended{}, z), closes: true, leanOnly: true,
			want: wantFailure},
		{name: "corrupt length", reply: []byte{'C', 0, 0, 0, 2}, closes: true, want: wantFailure},
		{name: "failed-transaction status without an error", simple: "SELECT 1",
			reply: msgs(complete("SELECT 0"), zFailedTx), leanOnly: true, want: wantFailure},
	}
}

// leanOutcome runs c's request on the lean path, its rows read with NextRow or counted with
// Discard.
func leanOutcome(w *Postgres, c pgCase, discard bool) outcome {
	ctx := context.Background()
	if c.simple != "" {
		return outcome{err: w.ExecSimple(ctx, []byte(c.simple))}
	}
	var o outcome
	if o.err = w.ExecPrepared(ctx, "s", nil); o.err != nil {
		return o
	}
	if discard {
		n, err := w.Discard()
		return outcome{err: err, rows: make([]string, n), counted: true}
	}
	for {
		vals, ok, err := w.NextRow()
		if !ok {
			o.err = err
			return o
		}
		o.rows = append(o.rows, valString(vals[0]))
	}
}

// driverOutcome runs c's request through pgconn.
func driverOutcome(pg *pgconn.PgConn, c pgCase) outcome {
	ctx := context.Background()
	if c.simple != "" {
		_, err := pg.Exec(ctx, c.simple).ReadAll()
		return outcome{err: err}
	}
	r := pg.ExecParams(ctx, "SELECT a FROM t", nil, nil, nil, []int16{1}).Read()
	o := outcome{err: r.Err}
	for _, vals := range r.Rows {
		o.rows = append(o.rows, valString(vals[0]))
	}
	return o
}

func valString(v []byte) string {
	if v == nil {
		return "<nil>"
	}
	return string(v)
}

// TestPGWireCases runs every case through raw system calls, net.Conn and pgconn, and with the
// rows counted by Discard ("discard", raw system calls), with each reply written whole and a
// byte at a time; then checks that the connection is still usable unless the server closed
// it, and unusable if it did.
func TestPGWireCases(t *testing.T) {
	for _, c := range pgCases() {
		for _, split := range []int{0, 1} {
			for _, path := range []string{"raw", "netconn", "driver", "discard"} {
				if path == "driver" && c.leanOnly {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/split%d", c.name, path, split), func(t *testing.T) {
					f := newFakePG(t, split)
					pg := f.connect(t, path == "raw" || path == "discard")
					f.closeAfter = c.closes
					f.replies <- c.reply
					var o outcome
					var w *Postgres
					if path == "driver" {
						o = driverOutcome(pg, c)
					} else {
						var err error
						if w, err = NewPostgres(pg, path == "netconn"); err != nil {
							t.Fatal(err)
						}
						o = leanOutcome(w, c, path == "discard")
					}
					if err := c.want(o); err != nil {
						t.Fatal(err)
					}
					checkAfter(t, f, pg, w, c.closes)
				})
			}
		}
	}
}

// checkAfter runs one more statement: it must work unless the server closed the connection.
func checkAfter(t *testing.T, f *fakePG, pg *pgconn.PgConn, w *Postgres, closed bool) {
	t.Helper()
	if closed {
		close(f.replies) // a reconnect would find no reply
	} else {
		f.replies <- msgs(complete("SELECT 0"), z)
	}
	var err error
	if w != nil {
		err = w.ExecSimple(context.Background(), []byte("SELECT 0"))
	} else {
		_, err = pg.Exec(context.Background(), "SELECT 0").ReadAll()
	}
	if closed && err == nil {
		t.Error("the connection was used again after the server closed it")
	}
	if !closed && err != nil {
		t.Errorf("the next statement: %v", err)
	}
}

// TestPGWireGivesStateBack: what pgconn keeps state from and the lean path read (the
// transaction status, ParameterStatus, a notification right after ReadyForQuery) reaches
// pgconn at Release, and the notification does not make Release close a healthy connection.
func TestPGWireGivesStateBack(t *testing.T) {
	for _, poll := range []bool{false, true} {
		f := newFakePG(t, 0)
		pg := f.connect(t, !poll)
		w, err := NewPostgres(pg, poll)
		if err != nil {
			t.Fatal(err)
		}
		f.replies <- msgs(&pgproto3.ParameterStatus{Name: "application_name", Value: "after"}, complete("BEGIN"), zInTx,
			&pgproto3.NotificationResponse{PID: 1, Channel: "c", Payload: "p"})
		if err := w.ExecSimple(context.Background(), []byte("BEGIN")); err != nil {
			t.Fatal(err)
		}
		if w.TxStatus() != 'T' {
			t.Errorf("lean TxStatus %q after BEGIN, want T", w.TxStatus())
		}
		if err := w.Release(); err != nil {
			t.Fatalf("Release with a notification after the reply: %v", err)
		}
		if s := pg.TxStatus(); s != 'T' {
			t.Errorf("pgconn's TxStatus %q after the lean BEGIN, want T", s)
		}
		if v := pg.ParameterStatus("application_name"); v != "after" {
			t.Errorf("pgconn's application_name %q, want after", v)
		}
		f.replies <- msgs(complete("COMMIT"), z)
		if _, err := pg.Exec(context.Background(), "COMMIT").ReadAll(); err != nil {
			t.Errorf("pgconn after Release: %v", err)
		}
		if s := pg.TxStatus(); s != 'I' {
			t.Errorf("pgconn's TxStatus %q after COMMIT, want I", s)
		}
	}
}

// TestPGWireCancelOnServer: a canceled statement sends the server a CancelRequest with the
// connection's key; the server's reply (query canceled) is the statement's error, with the
// context's, and the connection stays usable. Without a reply within the grace, the socket is
// shut down and the connection fails.
func TestPGWireCancelOnServer(t *testing.T) {
	for _, answer := range []bool{true, false} {
		f := newFakePG(t, 0)
		pg := f.connect(t, true)
		w, err := NewPostgres(pg, false)
		if err != nil {
			t.Fatal(err)
		}
		w.grace = 300 * time.Millisecond
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.ExecSimple(ctx, []byte("SELECT pg_sleep(60)")) }()
		<-f.requests // the statement is on the server
		cancel()
		select {
		case <-f.canceled:
		case <-time.After(time.Minute):
			t.Fatal("no CancelRequest reached the server within a minute")
		}
		if answer {
			f.replies <- msgs(pgError("ERROR", "57014", "canceling statement due to user request"), z)
		}
		err = <-done
		if !answer {
			if !errors.Is(err, ErrShut) {
				t.Errorf("unanswered cancel: %v, want %v", err, ErrShut)
			}
			continue
		}
		if err := wantCode("57014")(outcome{err: err}); err != nil {
			t.Error(err)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled statement: %v, want it to wrap context.Canceled", err)
		}
		f.replies <- msgs(complete("SELECT 0"), z)
		if err := w.ExecSimple(context.Background(), []byte("SELECT 0")); err != nil {
			t.Errorf("the connection after a statement canceled on the server: %v", err)
		}
	}
}

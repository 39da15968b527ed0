package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Discard beside pgconn: what TestPGWireCases and TestPGRealDiscardCounts leave out.

// discardReply runs a prepared statement on a fresh lean connection to a fake server that
// writes reply in chunks of split bytes, and returns Discard's count and error.
func discardReply(t *testing.T, reply []byte, split int, poll bool) (*fakePG, *pgconn.PgConn, *Postgres, int64, error) {
	t.Helper()
	f := newFakePG(t, split)
	pg := f.connect(t, !poll)
	w, err := NewPostgres(pg, poll)
	if err != nil {
		t.Fatal(err)
	}
	f.replies <- reply
	if err := w.ExecPrepared(context.Background(), "s", nil); err != nil {
		t.Fatal(err)
	}
	n, err := w.Discard()
	return f, pg, w, n, err
}

// TestPGDiscardMalformedRow: a DataRow whose fields do not fit its message fails the
// statement through pgconn (pgproto3's DataRow.Decode); Discard counts it as a row and the
// statement succeeds. The server does not close the connection here (the "field length -2"
// case of pgCases does, which is what fails its discard path).
func TestPGDiscardMalformedRow(t *testing.T) {
	for name, bad := range map[string][]byte{
		"field length -2":             {'D', 0, 0, 0, 10, 0, 1, 0xff, 0xff, 0xff, 0xfe},
		"field longer than the row":   {'D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 9, 'x'},
		"two fields, one in the body": {'D', 0, 0, 0, 11, 0, 2, 0, 0, 0, 1, 'x'},
	} {
		t.Run(name, func(t *testing.T) {
			reply := append(msgs(parsed, bound, oneColumn(), row("a")), bad...)
			reply = append(reply, msgs(row("b"), complete("SELECT 3"), z)...)
			f := newFakePG(t, 0)
			pg := f.connect(t, true)
			f.replies <- reply
			if r := pg.ExecParams(context.Background(), "SELECT a FROM t", nil, nil, nil, []int16{1}).Read(); r.Err == nil {
				t.Fatalf("pgconn read the malformed row without an error (%d rows)", len(r.Rows))
			}
			for _, poll := range []bool{false, true} {
				if _, _, _, n, err := discardReply(t, reply, 0, poll); err == nil {
					t.Errorf("poll %v: Discard counted %d rows, no error; pgconn fails the statement", poll, n)
				}
			}
		})
	}
}

// TestPGDiscardErrorAfterRows: an ErrorResponse after some rows, with a notice, a
// ParameterStatus and a notification among them, fails the statement with the server's error;
// the rows before it are counted as pgconn reads them, the others not; the failed transaction's
// status is the caller's and pgconn's (after Release); and the connection goes on. Each reply
// is written whole, a byte at a time and in 7-byte chunks.
func TestPGDiscardErrorAfterRows(t *testing.T) {
	notice := &pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "hello"}
	reply := msgs(parsed, bound, oneColumn(), row("a"), notice, row("b"),
		&pgproto3.ParameterStatus{Name: "application_name", Value: "after"}, row("c"),
		&pgproto3.NotificationResponse{PID: 1, Channel: "c", Payload: "p"},
		pgError("ERROR", "22012", "division by zero"), zFailedTx)
	f := newFakePG(t, 0)
	pg := f.connect(t, true)
	f.replies <- reply
	r := pg.ExecParams(context.Background(), "SELECT a FROM t", nil, nil, nil, []int16{1}).Read()
	if err := wantCode("22012")(outcome{err: r.Err}); err != nil || len(r.Rows) != 3 {
		t.Fatalf("pgconn: %d rows, %v", len(r.Rows), r.Err)
	}
	for _, split := range []int{0, 1, 7} {
		for _, poll := range []bool{false, true} {
			t.Run(fmt.Sprintf("split%d/poll%v", split, poll), func(t *testing.T) {
				f, pg, w, n, err := discardReply(t, reply, split, poll)
				if e := wantCode("22012")(outcome{err: err}); e != nil || n != 3 {
					t.Fatalf("Discard: %d rows, %v; want pgconn's 3 rows and 22012", n, err)
				}
				if w.TxStatus() != 'E' {
					t.Errorf("TxStatus %q after the error, want E", w.TxStatus())
				}
				if err := w.Release(); err != nil {
					t.Fatal(err)
				}
				if pg.TxStatus() != 'E' || pg.ParameterStatus("application_name") != "after" {
					t.Errorf("pgconn after Release: status %q, application_name %q", pg.TxStatus(), pg.ParameterStatus("application_name"))
				}
				f.replies <- msgs(complete("ROLLBACK"), z)
				if err := w.ExecSimple(context.Background(), []byte("ROLLBACK")); err != nil || w.TxStatus() != 'I' {
					t.Errorf("ROLLBACK after the failed statement: %v, status %q", err, w.TxStatus())
				}
			})
		}
	}
}

// TestPGDiscardShapes: a row larger than the read buffer (16 KiB) written in 4 KiB
// chunks, an EmptyQueryResponse, and a CommandComplete whose tag disagrees with the rows sent:
// Discard counts the rows that came (pgconn's len(Rows)), whatever the tag says.
func TestPGDiscardShapes(t *testing.T) {
	huge := string(bytes.Repeat([]byte{'h'}, 300<<10))
	for _, tc := range []struct {
		name  string
		reply []byte
		want  int64
	}{
		{"huge row", msgs(parsed, bound, oneColumn(), row("a"), row(huge), row("c"), complete("SELECT 3"), z), 3},
		{"empty query", msgs(parsed, bound, &pgproto3.EmptyQueryResponse{}, z), 0},
		{"tag says 5, 2 rows came", msgs(parsed, bound, oneColumn(), row("a"), row("b"), complete("SELECT 5"), z), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePG(t, 4096)
			pg := f.connect(t, true)
			f.replies <- tc.reply
			r := pg.ExecParams(context.Background(), "SELECT a FROM t", nil, nil, nil, []int16{1}).Read()
			if r.Err != nil || int64(len(r.Rows)) != tc.want {
				t.Fatalf("pgconn: %d rows, %v; want %d", len(r.Rows), r.Err, tc.want)
			}
			f, _, w, n, err := discardReply(t, tc.reply, 4096, false)
			if err != nil || n != tc.want {
				t.Errorf("Discard: %d rows, %v; want %d", n, err, tc.want)
			}
			checkAfter(t, f, nil, w, false)
		})
	}
}

// TestPGDiscardRealMidStream: a real server's error after some rows (division by zero at
// row 700, a statement timeout and a cancellation while row 500 sleeps) fails the statement with
// the server's error, the rows before it counted as pgx reads them (the server sends every row
// it buffered before its error), the transaction failed for the caller, and the connection
// usable after a ROLLBACK.
func TestPGDiscardRealMidStream(t *testing.T) {
	ctx := context.Background()
	pgxRows := map[string]int{}
	for _, lean := range []bool{false, true} {
		c, w, other := realPG(t, lean)
		pg := c.PgConn()
		for name, q := range map[string]string{"div": "SELECT g, 1/($1::int - g) FROM generate_series(1, 1000) g",
			"sleep": "SELECT g, CASE WHEN g = $1::int THEN pg_sleep(30)::text END /* wire_discard_sleep */ FROM generate_series(1, 1000) g"} {
			if _, err := pg.Prepare(ctx, name, q, nil); err != nil {
				t.Fatal(err)
			}
		}
		run := func(ctx context.Context, name, arg string) (int64, error) {
			if w == nil {
				r := pg.ExecPrepared(ctx, name, [][]byte{[]byte(arg)}, nil, nil).Read()
				return int64(len(r.Rows)), r.Err
			}
			if err := w.ExecPrepared(ctx, name, [][]byte{[]byte(arg)}); err != nil {
				return 0, err
			}
			return w.Discard()
		}
		status := func() byte {
			if w != nil {
				return w.TxStatus()
			}
			return pg.TxStatus()
		}
		check := func(what, code string, n int64, err error) {
			t.Helper()
			if e := wantCode(code)(outcome{err: err}); e != nil {
				t.Errorf("lean %v, %s: %v", lean, what, e)
			}
			if !lean {
				pgxRows[what] = int(n)
				if want := map[string]int64{"division by zero": 699, "statement timeout": 499}[what]; n != want {
					t.Errorf("pgx, %s: %d rows before the error, want %d", what, n, want)
				}
			} else if int(n) != pgxRows[what] {
				t.Errorf("lean, %s: %d rows counted, pgx read %d", what, n, pgxRows[what])
			}
			if s := status(); s != 'E' {
				t.Errorf("lean %v, %s: transaction status %q, want E", lean, what, s)
			}
			if err := exec(ctx, c, w, "SELECT 1"); wantCode("25P02")(outcome{err: err}) != nil {
				t.Errorf("lean %v, %s: the next statement in the failed transaction: %v, want 25P02", lean, what, err)
			}
			if err := exec(ctx, c, w, "ROLLBACK"); err != nil {
				t.Fatalf("lean %v, %s: ROLLBACK: %v", lean, what, err)
			}
			if n, err := run(ctx, "div", "5000"); err != nil || n != 1000 {
				t.Errorf("lean %v, after %s: %d rows, %v; want 1000", lean, what, n, err)
			}
		}
		begin := func() {
			if err := exec(ctx, c, w, "BEGIN"); err != nil {
				t.Fatal(err)
			}
		}
		begin()
		n, err := run(ctx, "div", "700")
		check("division by zero", "22012", n, err)
		begin()
		if err := exec(ctx, c, w, "SET LOCAL statement_timeout = '1s'"); err != nil {
			t.Fatal(err)
		}
		n, err = run(ctx, "sleep", "500")
		check("statement timeout", "57014", n, err)
		if w == nil {
			continue // pgx's cancellation is its context watcher's, not the lean path's
		}
		begin()
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			n, err = run(cctx, "sleep", "500")
		}()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			var k int
			if err := other.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%wire_discard_sleep%'").Scan(&k); err != nil {
				t.Fatal(err)
			}
			if k > 0 {
				break
			}
			if time.Now().After(deadline) {
				cancel()
				<-done
				t.Fatal("the sleep did not start within a minute")
			}
		}
		cancel()
		<-done
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled mid-stream: %v, want it to wrap context.Canceled", err)
		}
		pgxRows["canceled"] = pgxRows["statement timeout"]
		check("canceled", "57014", n, err)
	}
}

package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// parts reads a reply with NextPart into one line: F(names) for columns, R(values) for a row,
// C for a result's end, then the end's error if any.
func parts(w *Postgres) (string, error) {
	var b strings.Builder
	for {
		part, vals, err := w.NextPart()
		switch part {
		case PartEnd:
			return b.String(), err
		case PartFields:
			fmt.Fprintf(&b, "F%s ", texts(vals))
		case PartRow:
			fmt.Fprintf(&b, "R%s ", texts(vals))
		case PartDone:
			b.WriteString("C ")
		}
	}
}

// texts is vals as text, NULL for nil.
func texts(vals [][]byte) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
		if v == nil {
			out[i] = "NULL"
		}
	}
	return out
}

// TestPGNextPart: the reply of a compound simple query, of the extended protocol's messages
// and of a failed one is read into its results, columns and rows, read in one piece and a
// byte at a time; a notice between results does not end one; rows after an error are
// skipped; the transaction status reaches pgconn at Release; a COPY fails the connection.
func TestPGNextPart(t *testing.T) {
	notice := &pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "hello"}
	two := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("a")}, {Name: []byte("b")}}}
	cases := []struct {
		name, want, code string
		send             func(ctx context.Context, w *Postgres) error
		reply            []byte
	}{
		{name: "compound simple query",
			send: func(ctx context.Context, w *Postgres) error {
				return w.Query(ctx, []byte("SELECT 1, NULL; SELECT 'x'; SET x = 1"))
			},
			reply: msgs(two, &pgproto3.DataRow{Values: [][]byte{[]byte("1"), nil}}, complete("SELECT 1"), notice,
				oneColumn(), row("x"), row("y"), complete("SELECT 2"), complete("SET"), &pgproto3.EmptyQueryResponse{}, z),
			want: "F[a b] R[1 NULL] C F[a] R[x] R[y] C C C "},
		{name: "extended", send: func(ctx context.Context, w *Postgres) error {
			return w.ExecParams(ctx, "SELECT $1", [][]byte{[]byte("7")})
		}, reply: msgs(parsed, bound, oneColumn(), row("7"), complete("SELECT 1"), z), want: "F[a] R[7] C "},
		{name: "prepared, no rows", send: func(ctx context.Context, w *Postgres) error {
			return w.ExecPreparedText(ctx, "P_0", [][]byte{nil})
		}, reply: msgs(bound, noData, complete("UPDATE 1"), z), want: "C "},
		{name: "error mid-result", send: func(ctx context.Context, w *Postgres) error { return w.Query(ctx, []byte("SELECT f()")) },
			reply: msgs(oneColumn(), row("1"), pgError("ERROR", "22012", "division by zero"), row("2"), complete("SELECT 2"), zFailedTx),
			want:  "F[a] R[1] ", code: "22012"},
	}
	for _, split := range []int{0, 1} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/split=%d", tc.name, split), func(t *testing.T) {
				f := newFakePG(t, split)
				pg := f.connect(t, true)
				w, err := NewPostgres(pg, false)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				f.replies <- tc.reply
				ctx := context.Background()
				if err := tc.send(ctx, w); err != nil {
					t.Fatal(err)
				}
				got, err := parts(w)
				var pe *pgconn.PgError
				if got != tc.want || (tc.code == "") != (err == nil) || tc.code != "" && (!errors.As(err, &pe) || pe.Code != tc.code) {
					t.Errorf("parts %q, error %v; want %q, SQLSTATE %q", got, err, tc.want, tc.code)
				}
				if err := w.Release(); err != nil {
					t.Fatal(err)
				}
				want := byte('I')
				if tc.code != "" {
					want = 'E'
				}
				if pg.TxStatus() != want {
					t.Errorf("pgconn's transaction status %q after Release, want %q", pg.TxStatus(), want)
				}
			})
		}
	}
	t.Run("copy", func(t *testing.T) {
		f := newFakePG(t, 0)
		w, err := NewPostgres(f.connect(t, true), false)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		f.replies <- msgs(&pgproto3.CopyOutResponse{}, z)
		if err := w.Query(context.Background(), []byte("COPY t TO STDOUT")); err != nil {
			t.Fatal(err)
		}
		if _, err := parts(w); err == nil || !strings.Contains(err.Error(), "COPY") {
			t.Errorf("a COPY reply: %v, want the connection failed", err)
		}
		if err := w.Query(context.Background(), []byte("SELECT 1")); err == nil {
			t.Error("the connection still works after a COPY reply")
		}
	})
}

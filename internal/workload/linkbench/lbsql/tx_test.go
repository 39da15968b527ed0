package lbsql

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// recConn records the statements a Conn sends; with queue, it takes BEGIN as MySQL's lean path
// does (queueBegin).
type recConn struct {
	log   []string
	queue bool
	fail  string // a statement that fails
}

func (r *recConn) exec(_ context.Context, q string, _ ...any) (int64, error) {
	r.log = append(r.log, q)
	if q == r.fail {
		return 0, errors.New("failed")
	}
	return 1, nil
}

func (r *recConn) query(context.Context, string, []any, func(rows) error) error { return nil }
func (r *recConn) close() error                                                 { return nil }

type queueConn struct{ *recConn }

func (r queueConn) queueBegin(q string) error {
	r.log = append(r.log, "queued "+q)
	return nil
}

// TestTxQueuesBegin: on a connection that can queue it, a write transaction's BEGIN is queued
// to go with its first statement rather than sent on its own; a failed statement rolls back.
func TestTxQueuesBegin(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		queue bool
		fail  string
		want  string
	}{
		{false, "", "BEGIN|INSERT|COMMIT"},
		{true, "", "queued BEGIN|INSERT|COMMIT"},
		{true, "INSERT", "queued BEGIN|INSERT|ROLLBACK"},
	} {
		rec := &recConn{fail: c.fail}
		var cn conn = rec
		if c.queue {
			cn = queueConn{rec}
		}
		lc := &Conn{c: cn, d: mysql}
		lc.tx(ctx, func() error { _, err := lc.c.exec(ctx, "INSERT"); return err })
		if got := strings.Join(rec.log, "|"); got != c.want {
			t.Errorf("queue %v fail %q: %s, want %s", c.queue, c.fail, got, c.want)
		}
	}
}

package lbsql

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/dbperf/dbperf/internal/runner"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/jackc/pgx/v5/pgconn"
)

// fakeConn answers every statement with err, or affects affected rows.
type fakeConn struct {
	err      error
	affected int64
}

func (f *fakeConn) exec(context.Context, string, ...any) (int64, error) { return f.affected, f.err }
func (f *fakeConn) query(context.Context, string, []any, func(rows) error) error {
	return f.err
}
func (f *fakeConn) close() error { return nil }

// A write that lost its connection is retried on a new one: a node insert that meets its own
// id committed the first time; a node delete that finds nothing to delete is counted in doubt;
// a read that lost its connection is no write in doubt.
func TestRedialSettlesWritesInDoubt(t *testing.T) {
	ctx := context.Background()
	next := []*fakeConn{{err: &pgconn.PgError{Code: "23505"}}, {affected: 0}}
	reopen := func(context.Context) (*Conn, error) {
		c := next[0]
		next = next[1:]
		return &Conn{c: c, d: postgres}, nil
	}
	lostConn := func() *Conn { return &Conn{c: &fakeConn{err: io.EOF}, d: postgres} }
	r := &redialConn{Redial: runner.NewRedial(lostConn(), reopen, connLost)}
	redial := func(err error) {
		t.Helper()
		var l *runner.Lost
		if !errors.As(err, &l) {
			t.Fatalf("%v (%T), want a runner.Lost", err, err)
		}
		if err := l.Redial(ctx); err != nil {
			t.Fatal(err)
		}
	}
	node := &lb.Node{ID: 7}
	redial(r.AddNode(ctx, node))
	if err := r.AddNode(ctx, node); err != nil {
		t.Errorf("the retry of an insert in doubt met its own id: %v, want done", err)
	}
	if err := r.AddNode(ctx, node); err == nil {
		t.Error("a duplicate key not in doubt was taken as done")
	}
	r.Redial = runner.NewRedial(lostConn(), reopen, connLost)
	_, err := r.DeleteNode(ctx, 1, 7)
	redial(err)
	if deleted, err := r.DeleteNode(ctx, 1, 7); err != nil || deleted {
		t.Fatalf("delete: %v %v", deleted, err)
	}
	if links, nodes := r.InDoubt(); links != 0 || nodes != 1 {
		t.Errorf("in doubt: %d links, %d nodes; want 0, 1", links, nodes)
	}
	r.Redial = runner.NewRedial(&Conn{c: &fakeConn{affected: 1}, d: postgres}, reopen, connLost)
	if deleted, err := r.DeleteNode(ctx, 1, 8); err != nil || !deleted {
		t.Errorf("a delete not in doubt: %v %v", deleted, err)
	}
	if _, nodes := r.InDoubt(); nodes != 1 {
		t.Errorf("%d nodes in doubt after a clean delete, want 1", nodes)
	}
}

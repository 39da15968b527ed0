package ibsql

import (
	"context"
	"fmt"
	"net"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/runner"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// redialConn is a server's client connection that survives the server's restart: an error that
// says the connection is gone comes back as a runner.Lost, whose Redial opens a new one through
// the store's connect (session settings and the lean path's socket again; statements are
// prepared again on first use), and the runner retries the operation.
//
// A write whose reply was lost may have committed. The retry settles it exactly
// (docs/reliability.md, "Runs that survive a dying server"): an insert retried with the same
// rows that meets a duplicate key committed the first time, so it counts as done once; a delete
// is retried with its upper bound (transactionid < to), so it deletes nothing if the first
// attempt committed, and counts as done. The generator's next id and the deleter's claims stay
// as they were, and the check after the step holds.
type redialConn struct {
	connect func(ctx context.Context) (ib.Conn, error)
	c       ib.Conn // nil after a loss until a redial works
	// The write that lost its connection: an insert's first id, a delete's range (0: none).
	insertFirst    int64
	delFrom, delTo int64
}

// errNotRedialed is an operation's error on a connection that was lost and not replaced.
var errNotRedialed = fmt.Errorf("ibsql: the connection was lost and not opened again: %w", net.ErrClosed)

// redialing opens a connection with connect, which it uses again after a loss.
func redialing(ctx context.Context, connect func(ctx context.Context) (ib.Conn, error)) (ib.Conn, error) {
	c, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	return &redialConn{connect: connect, c: c}, nil
}

// inner is the connection a redialConn holds now (tests look inside it).
func inner(c ib.Conn) ib.Conn {
	if r, ok := c.(*redialConn); ok {
		return r.c
	}
	return c
}

// lost turns a lost connection's error into a runner.Lost, closing what is left of it.
func (r *redialConn) lost(err error) error {
	if err == nil || driver.ErrorKind(err) != driver.KindConnLost {
		return err
	}
	if r.c != nil {
		r.c.Close() // a dead connection's close can only fail
		r.c = nil
	}
	return &runner.Lost{Err: err, Redial: r.redial}
}

func (r *redialConn) redial(ctx context.Context) error {
	c, err := r.connect(ctx)
	if err == nil {
		r.c = c
	}
	return err
}

func (r *redialConn) Insert(ctx context.Context, t string, rows []ib.Row) error {
	if r.c == nil {
		return r.lost(errNotRedialed)
	}
	err := r.c.Insert(ctx, t, rows)
	if err == nil || len(rows) == 0 {
		r.insertFirst = 0
		return err
	}
	if r.insertFirst == rows[0].ID && driver.DuplicateKey(err) {
		r.insertFirst = 0 // the lost attempt committed: its rows are in
		return nil
	}
	if err = r.lost(err); r.c == nil {
		r.insertFirst = rows[0].ID
	}
	return err
}

func (r *redialConn) DeleteOldest(ctx context.Context, t string, from, to int64) (int64, error) {
	if r.c == nil {
		return 0, r.lost(errNotRedialed)
	}
	if r.delFrom != from || r.delTo != to {
		n, err := r.c.DeleteOldest(ctx, t, from, to)
		if err = r.lost(err); r.c == nil {
			r.delFrom, r.delTo = from, to
		}
		return n, err
	}
	n, err := boundedDelete(ctx, r.c, t, from, to)
	if err != nil {
		return n, r.lost(err)
	}
	r.delFrom, r.delTo = 0, 0
	if n == 0 { // the lost attempt committed
		n = to - from
	}
	return n, nil
}

// boundedDelete deletes the oldest rows in [from, to) with the statement's upper bound, which a
// private table's delete leaves out as the reference does.
func boundedDelete(ctx context.Context, c ib.Conn, t string, from, to int64) (int64, error) {
	switch c := c.(type) {
	case *pgConn:
		b := c.bounded
		c.bounded = true
		defer func() { c.bounded = b }()
	case *sqlConn:
		b := c.bounded
		c.bounded = true
		defer func() { c.bounded = b }()
	}
	return c.DeleteOldest(ctx, t, from, to)
}

func (r *redialConn) RangeQuery(ctx context.Context, t string, idx ib.Index, x int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	if r.c == nil {
		return out, r.lost(errNotRedialed)
	}
	out, err := r.c.RangeQuery(ctx, t, idx, x, out)
	return out, r.lost(err)
}

func (r *redialConn) PointQuery(ctx context.Context, t string, ids []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	if r.c == nil {
		return out, r.lost(errNotRedialed)
	}
	out, err := r.c.PointQuery(ctx, t, ids, out)
	return out, r.lost(err)
}

func (r *redialConn) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

package ibsql

import (
	"context"

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
	*runner.Redial[ib.Conn]
	// The write that lost its connection: an insert's first id, a delete's range (0: none).
	insertFirst    int64
	delFrom, delTo int64
}

// redialing opens a connection with connect, which it uses again after a loss.
func redialing(ctx context.Context, connect func(ctx context.Context) (ib.Conn, error)) (ib.Conn, error) {
	r, err := runner.DialRedial(ctx, connect, connLost)
	if err != nil {
		return nil, err
	}
	return &redialConn{Redial: r}, nil
}

// connLost says an error means the connection is gone.
func connLost(err error) bool { return driver.ErrorKind(err) == driver.KindConnLost }

// inner is the connection a redialConn holds now (tests look inside it).
func inner(c ib.Conn) ib.Conn {
	if r, ok := c.(*redialConn); ok {
		c, _ = r.Conn()
	}
	return c
}

func (r *redialConn) Insert(ctx context.Context, t string, rows []ib.Row) error {
	c, err := r.Conn()
	if err != nil {
		return err
	}
	err = c.Insert(ctx, t, rows)
	if err == nil || len(rows) == 0 {
		r.insertFirst = 0
		return err
	}
	if r.insertFirst == rows[0].ID && driver.DuplicateKey(err) {
		r.insertFirst = 0 // the lost attempt committed: its rows are in
		return nil
	}
	if err = r.Check(err); r.Down() {
		r.insertFirst = rows[0].ID
	}
	return err
}

func (r *redialConn) DeleteOldest(ctx context.Context, t string, from, to int64) (int64, error) {
	c, err := r.Conn()
	if err != nil {
		return 0, err
	}
	if r.delFrom != from || r.delTo != to {
		n, err := c.DeleteOldest(ctx, t, from, to)
		if err = r.Check(err); r.Down() {
			r.delFrom, r.delTo = from, to
		}
		return n, err
	}
	n, err := boundedDelete(ctx, c, t, from, to)
	if err != nil {
		return n, r.Check(err)
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
	c, err := r.Conn()
	if err != nil {
		return out, err
	}
	out, err = c.RangeQuery(ctx, t, idx, x, out)
	return out, r.Check(err)
}

func (r *redialConn) PointQuery(ctx context.Context, t string, ids []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	c, err := r.Conn()
	if err != nil {
		return out, err
	}
	out, err = c.PointQuery(ctx, t, ids, out)
	return out, r.Check(err)
}

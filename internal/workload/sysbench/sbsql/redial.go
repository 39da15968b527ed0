package sbsql

import (
	"context"
	"fmt"
	"net"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/runner"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
)

// redialConn is a run step's connection that survives the server's restart, as the other
// workloads' (docs/reliability.md): a lost connection comes back as a runner.Lost whose Redial
// opens a new one, with the statements prepared again, and the runner runs the event again
// whole, from BEGIN, with new random values. sysbench 1.0.20 does the same on MySQL for a lost
// connection --mysql-ignore-errors names: it reconnects and restarts the event
// (drv_mysql.c:742-752, 679-700). The prepare step's connections are not wrapped: a bulk
// insert whose reply was lost cannot be told from one that never ran.
type redialConn struct {
	connect func(ctx context.Context) (sb.Conn, error)
	c       sb.Conn // nil after a loss until a redial works
}

var errNotRedialed = fmt.Errorf("sbsql: the connection was lost and not opened again: %w", net.ErrClosed)

// redialing opens a connection with connect, which it uses again after a loss.
func redialing(ctx context.Context, connect func(ctx context.Context) (sb.Conn, error)) (sb.Conn, error) {
	c, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	return &redialConn{connect: connect, c: c}, nil
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
	return &runner.Lost{Err: err, Redial: func(ctx context.Context) error {
		c, err := r.connect(ctx)
		if err == nil {
			r.c = c
		}
		return err
	}}
}

func (r *redialConn) Exec(ctx context.Context, s sb.Stmt, table int, args []any) (sb.Result, error) {
	if r.c == nil {
		return sb.Result{}, r.lost(errNotRedialed)
	}
	res, err := r.c.Exec(ctx, s, table, args)
	return res, r.lost(err)
}

func (r *redialConn) Text(ctx context.Context, q []byte) (sb.Result, error) {
	if r.c == nil {
		return sb.Result{}, r.lost(errNotRedialed)
	}
	res, err := r.c.Text(ctx, q)
	return res, r.lost(err)
}

func (r *redialConn) Rollback(ctx context.Context) error {
	if r.c == nil {
		return r.lost(errNotRedialed)
	}
	return r.lost(r.c.Rollback(ctx))
}

func (r *redialConn) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

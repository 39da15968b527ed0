package sbsql

import (
	"context"

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
	*runner.Redial[sb.Conn]
}

// redialing opens a connection with connect, which it uses again after a loss.
func redialing(ctx context.Context, connect func(ctx context.Context) (sb.Conn, error)) (sb.Conn, error) {
	r, err := runner.DialRedial(ctx, connect, connLost)
	if err != nil {
		return nil, err
	}
	return &redialConn{r}, nil
}

// connLost says an error means the connection is gone.
func connLost(err error) bool { return driver.ErrorKind(err) == driver.KindConnLost }

func (r *redialConn) Exec(ctx context.Context, s sb.Stmt, table int, args []sb.Arg) (sb.Result, error) {
	c, err := r.Conn()
	if err != nil {
		return sb.Result{}, err
	}
	res, err := c.Exec(ctx, s, table, args)
	return res, r.Check(err)
}

func (r *redialConn) Text(ctx context.Context, q []byte) (sb.Result, error) {
	c, err := r.Conn()
	if err != nil {
		return sb.Result{}, err
	}
	res, err := c.Text(ctx, q)
	return res, r.Check(err)
}

func (r *redialConn) Rollback(ctx context.Context) error {
	c, err := r.Conn()
	if err != nil {
		return err
	}
	return r.Check(c.Rollback(ctx))
}

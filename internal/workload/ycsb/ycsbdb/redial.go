package ycsbdb

import (
	"context"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
)

// redialConn is a server's client connection that survives the server's restart, as the
// Insert Benchmark's and LinkBench's (docs/reliability.md): a lost connection comes back as a
// runner.Lost whose Redial opens a new one, and the runner retries the operation on the same
// key. An insert whose reply was lost and whose retry meets its own key committed the first
// time; reads, updates and scans repeat harmlessly.
type redialConn struct {
	*runner.Redial[ycsb.Conn]
	doubt string // the key of an insert that lost its connection
}

// redialing opens a connection with connect, which it uses again after a loss.
func redialing(ctx context.Context, connect func(ctx context.Context) (ycsb.Conn, error)) (ycsb.Conn, error) {
	r, err := runner.DialRedial(ctx, connect, connLost)
	if err != nil {
		return nil, err
	}
	return &redialConn{Redial: r}, nil
}

// connLost says an error means the connection is gone.
func connLost(err error) bool { return driver.ErrorKind(err) == driver.KindConnLost }

func (r *redialConn) Insert(ctx context.Context, key string, values [][]byte) error {
	c, err := r.Conn()
	if err != nil {
		return err
	}
	err = c.Insert(ctx, key, values)
	if err != nil && r.doubt == key && driver.DuplicateKey(err) {
		err = nil // the lost attempt committed
	}
	if err == nil {
		r.doubt = ""
		return nil
	}
	if err = r.Check(err); r.Down() {
		r.doubt = key
	}
	return err
}

func (r *redialConn) Read(ctx context.Context, key string, field int) (bool, error) {
	c, err := r.Conn()
	if err != nil {
		return false, err
	}
	found, err := c.Read(ctx, key, field)
	return found, r.Check(err)
}

func (r *redialConn) Update(ctx context.Context, key string, fields []int, values [][]byte) error {
	c, err := r.Conn()
	if err != nil {
		return err
	}
	return r.Check(c.Update(ctx, key, fields, values))
}

func (r *redialConn) Scan(ctx context.Context, start string, n int) (int, error) {
	c, err := r.Conn()
	if err != nil {
		return 0, err
	}
	k, err := c.Scan(ctx, start, n)
	return k, r.Check(err)
}

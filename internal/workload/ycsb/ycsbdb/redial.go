package ycsbdb

import (
	"context"
	"fmt"
	"net"

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
	connect func(ctx context.Context) (ycsb.Conn, error)
	c       ycsb.Conn // nil after a loss until a redial works
	doubt   string    // the key of an insert that lost its connection
}

var errNotRedialed = fmt.Errorf("ycsbdb: the connection was lost and not opened again: %w", net.ErrClosed)

// redialing opens a connection with connect, which it uses again after a loss.
func redialing(ctx context.Context, connect func(ctx context.Context) (ycsb.Conn, error)) (ycsb.Conn, error) {
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

func (r *redialConn) Insert(ctx context.Context, key string, values [][]byte) error {
	if r.c == nil {
		return r.lost(errNotRedialed)
	}
	err := r.c.Insert(ctx, key, values)
	if err != nil && r.doubt == key && driver.DuplicateKey(err) {
		err = nil // the lost attempt committed
	}
	if err == nil {
		r.doubt = ""
		return nil
	}
	if err = r.lost(err); r.c == nil {
		r.doubt = key
	}
	return err
}

func (r *redialConn) Read(ctx context.Context, key string, field int) (bool, error) {
	if r.c == nil {
		return false, r.lost(errNotRedialed)
	}
	found, err := r.c.Read(ctx, key, field)
	return found, r.lost(err)
}

func (r *redialConn) Update(ctx context.Context, key string, fields []int, values [][]byte) error {
	if r.c == nil {
		return r.lost(errNotRedialed)
	}
	return r.lost(r.c.Update(ctx, key, fields, values))
}

func (r *redialConn) Scan(ctx context.Context, start string, n int) (int, error) {
	if r.c == nil {
		return 0, r.lost(errNotRedialed)
	}
	k, err := r.c.Scan(ctx, start, n)
	return k, r.lost(err)
}

func (r *redialConn) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

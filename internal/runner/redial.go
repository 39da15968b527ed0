package runner

import (
	"context"
	"fmt"
	"io"
	"net"
)

// Redial is a worker's connection to a server that may drop it or restart: an error that says
// the connection is gone comes back as a Lost whose Redial opens a new one with dial (session
// settings and prepared statements again), and the runner retries the operation
// (docs/reliability.md). Each workload's SQL binding wraps its connection in one and keeps
// beside it only what its own writes need to settle a retry whose lost attempt may have
// committed. Like the connection, it belongs to one worker.
type Redial[C io.Closer] struct {
	dial   func(ctx context.Context) (C, error)
	isLost func(error) bool
	c      C
	down   bool // c was lost and not replaced yet
}

// errNotRedialed is an operation's error on a connection that was lost and not replaced.
var errNotRedialed = fmt.Errorf("the connection was lost and not opened again: %w", net.ErrClosed)

// NewRedial wraps c, opened with dial, which opens its replacements. isLost says whether an
// error means the connection is gone (driver.ErrorKind's connection_lost: the runner names no
// driver).
func NewRedial[C io.Closer](c C, dial func(ctx context.Context) (C, error), isLost func(error) bool) *Redial[C] {
	return &Redial[C]{dial: dial, isLost: isLost, c: c}
}

// DialRedial opens a connection with dial and wraps it (NewRedial).
func DialRedial[C io.Closer](ctx context.Context, dial func(ctx context.Context) (C, error), isLost func(error) bool) (*Redial[C], error) {
	c, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	return NewRedial(c, dial, isLost), nil
}

// Conn is the connection to use, or, after a loss that no redial has repaired, a Lost.
func (r *Redial[C]) Conn() (C, error) {
	if r.down {
		return r.c, &Lost{Err: errNotRedialed, Redial: r.redial}
	}
	return r.c, nil
}

// Check returns an operation's err, as a Lost if it says the connection is gone; the dead
// connection is closed then, and Down is true until the Lost's Redial works.
func (r *Redial[C]) Check(err error) error {
	if err == nil || !r.isLost(err) {
		return err
	}
	if !r.down {
		r.c.Close() // a dead connection's close can only fail
		var zero C
		r.c, r.down = zero, true
	}
	return &Lost{Err: err, Redial: r.redial}
}

// Down says the connection was lost and not replaced yet: the last Check made a Lost.
func (r *Redial[C]) Down() bool { return r.down }

func (r *Redial[C]) redial(ctx context.Context) error {
	c, err := r.dial(ctx)
	if err == nil {
		r.c, r.down = c, false
	}
	return err
}

// Close closes the connection, unless it was lost.
func (r *Redial[C]) Close() error {
	if r.down {
		return nil
	}
	return r.c.Close()
}

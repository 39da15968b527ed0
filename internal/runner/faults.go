package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Lost is the error of an operation whose connection is gone. Redial replaces the worker's
// connection (a new one, with the session settings and prepared statements the workload sets up
// at connect); the runner then retries the operation. A workload's binding returns it, so the
// runner needs to know no driver (docs/reliability.md, "Runs that survive a dying server").
type Lost struct {
	Err    error
	Redial func(ctx context.Context) error
}

func (l *Lost) Error() string { return l.Err.Error() }
func (l *Lost) Unwrap() error { return l.Err }

// Unreachable ends a step whose target stayed unreachable for its FaultTimeout: Last is the
// last attempt's error.
type Unreachable struct {
	After time.Duration
	Last  error
}

func (u *Unreachable) Error() string {
	return fmt.Sprintf("ended after %s without the target: %v", u.After, u.Last)
}
func (u *Unreachable) Unwrap() error { return u.Last }

// Faults is what a step went through: retried operations, replaced connections and the windows
// in which the target could not be reached.
type Faults struct {
	Retries    int64    // attempts of operations after a failed attempt
	Reconnects int64    // connections replaced after a loss
	Windows    []Window // from the first loss to the first new connection; End zero: never
}

// Window is a time in which the target could not be reached.
type Window struct{ Start, End time.Time }

// faultLog gathers a step's Faults from every worker.
type faultLog struct {
	timeout time.Duration
	mu      sync.Mutex
	f       Faults
	open    bool // the last window has no end yet
}

// retried counts one retry.
func (fl *faultLog) retried() {
	fl.mu.Lock()
	fl.f.Retries++
	fl.mu.Unlock()
}

// lost opens a window at now unless one is open, or the connection (made at since) was lost in
// a window that has closed: a worker that finds out late (a deleter waiting for rows) saw the
// same outage, not a new one.
func (fl *faultLog) lost(now, since time.Time) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.open {
		return
	}
	if n := len(fl.f.Windows); n > 0 && since.Before(fl.f.Windows[n-1].End) {
		return
	}
	fl.f.Windows = append(fl.f.Windows, Window{Start: now})
	fl.open = true
}

// redialed counts a new connection made at now, which closes an open window.
func (fl *faultLog) redialed(now time.Time) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	fl.f.Reconnects++
	if fl.open {
		fl.f.Windows[len(fl.f.Windows)-1].End = now
		fl.open = false
	}
}

// result is the step's Faults.
func (fl *faultLog) result() Faults {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	f := fl.f
	f.Windows = append([]Window(nil), f.Windows...)
	return f
}

// Redial backoff: the first new attempt after this, doubling up to the maximum, as libpq-based
// poolers and the JDBC drivers' reconnect loops do; a restarted server is found within a second.
const (
	redialFirst = 50 * time.Millisecond
	redialMax   = time.Second
)

// recover replaces a lost connection: redial with backoff until it works, ctx ends (nil is
// returned with ctx's error for the caller to see) or the fault timeout since lostAt (the
// operation's first loss) has passed. since is when the worker's connection was made; a new
// one updates it.
func (fl *faultLog) recover(ctx context.Context, l *Lost, lostAt time.Time, since *time.Time) error {
	fl.lost(time.Now(), *since)
	last := l.Err
	for backoff := redialFirst; ; backoff = min(2*backoff, redialMax) {
		left := fl.timeout - time.Since(lostAt)
		if left <= 0 {
			return &Unreachable{After: fl.timeout, Last: last}
		}
		rctx, cancel := context.WithTimeout(ctx, left)
		err := l.Redial(rctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			now := time.Now()
			fl.redialed(now)
			*since = now
			return nil
		}
		if !errors.Is(err, context.DeadlineExceeded) { // our own limit: the error before says more
			last = err
		}
		sleepUntil(ctx, time.Now().Add(min(backoff, fl.timeout-time.Since(lostAt))), nil, false)
	}
}

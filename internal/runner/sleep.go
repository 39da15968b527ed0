package runner

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

// Go's timers wake a sleeping process through the network poller, whose timeout has a
// granularity of a millisecond, and an open-loop schedule that late would add its own lag to
// every response time it measures. So paced schedules (a pool's leader, ConstantRate) sleep the
// last millisecond before an arrival in nanosleep(2) with the thread's timer slack set to 1 ns,
// and use Go's timer only for the part before (figures: docs/performance.md, "Open-loop
// schedule lag").
//
// The goroutine is not locked to its thread: a pool's leader is a worker that goes on to run the
// operation, and a locked thread would cost every later network wait a thread hand-off. The
// slack is set again before each sleep, on whichever thread the goroutine runs (one cheap system
// call; it stays set on that thread, which only makes its other timed waits more exact).

// A Sleeper waits until due, unless ctx ends or stop (if not nil) closes first: then false. A
// Step's Sleep is how its paced workers and pools' leaders wait for an operation's due time.
type Sleeper func(ctx context.Context, due time.Time, stop <-chan struct{}) bool

// PreciseSleep is the default Sleeper: Go's timer, then nanosleep for the last millisecond.
func PreciseSleep(ctx context.Context, due time.Time, stop <-chan struct{}) bool {
	if d := time.Until(due) - time.Millisecond; d > 0 {
		if !sleepUntil(ctx, due.Add(-time.Millisecond), stop, stop != nil) {
			return false
		}
	}
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) // a hint: a failure leaves the default 50µs
	for {
		select {
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		default:
		}
		d := time.Until(due)
		if d <= 0 {
			return true
		}
		ts := unix.NsecToTimespec(int64(min(d, time.Millisecond)))
		unix.Nanosleep(&ts, nil) // EINTR: the loop sleeps again for what is left
	}
}

// CoarseSleep waits with Go's timer alone: for tests in virtual time (testing/synctest), where
// a sleep in a system call would not let the virtual clock move.
func CoarseSleep(ctx context.Context, due time.Time, stop <-chan struct{}) bool {
	return sleepUntil(ctx, due, stop, stop != nil)
}

// sleep is t's Sleeper, PreciseSleep if it has none.
func (t Tick) sleep(ctx context.Context, due time.Time, stop <-chan struct{}) bool {
	if t.Sleep == nil {
		return PreciseSleep(ctx, due, stop)
	}
	return t.Sleep(ctx, due, stop)
}

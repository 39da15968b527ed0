package runner

import (
	"context"
	"sync/atomic"
	"time"
)

// Tick is what a schedule needs to decide when a worker's next operation is due.
type Tick struct {
	Start time.Time       // when the step started
	N     int64           // operations this worker has completed
	Stop  <-chan struct{} // closed when every primary worker is done
	Lag   *Lag            // where a paced schedule records how late it woke up; may be nil
	Sleep Sleeper         // how a paced schedule waits for a due time; nil: PreciseSleep
	// afterWarmup is where Lag moves once warmOver is set (a step with a warm-up: warmup.go).
	afterWarmup *Lag
	warmOver    *atomic.Bool
}

// LateWakeup is how late a paced worker may wake up for an operation before the wake-up counts
// as late: Go's timers wake within a fraction of a millisecond when the process gets CPU.
const LateWakeup = 5 * time.Millisecond

// Lag measures the client's own delay: how late paced workers woke up after sleeping until an
// operation was due. It says nothing of the DBMS (an operation already overdue when the
// previous one ends is not counted), so many late wake-ups mean the client could not keep its
// schedule: a client-bound step.
type Lag struct {
	Paced int64         // operations whose worker slept until they were due
	Late  int64         // of those, woke up LateWakeup or more after the due time
	Max   time.Duration // the latest wake-up
}

func (l *Lag) record(late time.Duration) {
	if l == nil {
		return
	}
	l.Paced++
	if late >= LateWakeup {
		l.Late++
	}
	l.Max = max(l.Max, late)
}

// Add merges other into l.
func (l *Lag) Add(other Lag) {
	l.Paced += other.Paced
	l.Late += other.Late
	l.Max = max(l.Max, other.Max)
}

// A Schedule decides when a worker's next operation is due. Next blocks until then and returns
// the intended start, from which the operation's latency is measured; ok is false when the
// worker has no more work (or ctx is done).
type Schedule interface {
	Next(ctx context.Context, t Tick) (due time.Time, ok bool)
}

// ClosedLoop runs operations back to back: each is due when the previous one ends.
// Limit > 0 bounds the number of operations; otherwise the worker runs until Stop. Timed
// makes Stop (the step's Duration) end a worker with a Limit too, whichever comes first, as
// YCSB's maxexecutiontime ends an operationcount.
type ClosedLoop struct {
	Limit int64
	Timed bool
}

// Next implements Schedule.
func (c ClosedLoop) Next(ctx context.Context, t Tick) (time.Time, bool) {
	if c.Limit > 0 && t.N >= c.Limit {
		return time.Time{}, false
	}
	if ctx.Err() != nil {
		return time.Time{}, false
	}
	if c.Limit <= 0 || c.Timed {
		select {
		case <-t.Stop:
			return time.Time{}, false
		default:
		}
	}
	return time.Now(), true
}

// Offset is the pacing rule of a constant rate, as a pure function: the n-th operation (from 0)
// is due n/perSec seconds after the start. Every start is an absolute offset, so a slow operation
// never pushes later ones back: the worker catches up by starting overdue operations at once, and
// their latency, measured from the intended start, includes the time they waited.
func Offset(perSec float64, n int64) time.Duration {
	// Multiply before dividing: n/perSec first can land just below an exact offset (5/s, op 41:
	// 8.199999999s), which the conversion then truncates.
	return time.Duration(float64(n) * float64(time.Second) / perSec)
}

// ConstantRate runs PerSec operations a second, spread evenly (not in a burst at the start of each
// second), for Limit operations (or until Stop when Limit is 0). Burst > 0 releases them a period
// at a time instead: every operation whose even offset falls in [k*Burst, (k+1)*Burst) is due at
// k*Burst, as a token bucket refilled every Burst (RocksDB's GenericRateLimiter, which db_bench's
// --benchmark_write_rate_limit uses, refills every 100 ms). Each operation's latency still counts
// from its due time, so the later ones of a burst show the wait behind the earlier ones.
type ConstantRate struct {
	PerSec float64
	Limit  int64
	Burst  time.Duration
}

// Next implements Schedule.
func (c ConstantRate) Next(ctx context.Context, t Tick) (time.Time, bool) {
	if c.Limit > 0 && t.N >= c.Limit {
		return time.Time{}, false
	}
	off := Offset(c.PerSec, t.N)
	if c.Burst > 0 {
		off = off / c.Burst * c.Burst
	}
	due := t.Start.Add(off)
	slept := time.Until(due) > 0
	var stop <-chan struct{}
	if c.Limit <= 0 {
		stop = t.Stop
	}
	if !slept {
		// Overdue: no sleep, but a stop still ends an unlimited schedule.
		return due, sleepUntil(ctx, due, stop, stop != nil)
	}
	if !t.sleep(ctx, due, stop) {
		return time.Time{}, false
	}
	t.Lag.record(time.Since(due))
	return due, true
}

// sleepUntil waits for the wall clock to reach due. It returns false if ctx ends first, or, when
// stoppable, if stop closes first.
func sleepUntil(ctx context.Context, due time.Time, stop <-chan struct{}, stoppable bool) bool {
	d := time.Until(due)
	if d <= 0 {
		if stoppable {
			select {
			case <-stop:
				return false
			default:
			}
		}
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	var stopCh <-chan struct{}
	if stoppable {
		stopCh = stop
	}
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	case <-stopCh:
		return false
	}
}

// Gated waits for Wait before asking Schedule: back-pressure between roles. In a closed loop the
// wait is not part of the operation's latency; with a rate, the intended start is fixed by the
// rate, so a wait that makes the operation late does count.
type Gated struct {
	Schedule Schedule
	Wait     func(ctx context.Context) bool
}

// Next implements Schedule.
func (g Gated) Next(ctx context.Context, t Tick) (time.Time, bool) {
	if !g.Wait(ctx) {
		return time.Time{}, false
	}
	return g.Schedule.Next(ctx, t)
}

// OnDone calls Done once, when Schedule says the worker has no more work.
type OnDone struct {
	Schedule Schedule
	Done     func()
}

// Next implements Schedule.
func (o OnDone) Next(ctx context.Context, t Tick) (time.Time, bool) {
	due, ok := o.Schedule.Next(ctx, t)
	if !ok {
		o.Done()
	}
	return due, ok
}

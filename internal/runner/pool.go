package runner

import (
	"context"

	"github.com/dbperf/dbperf/internal/measure"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// Arrivals is an open-loop arrival process: the offsets from the step's start at which
// operations arrive, in order. It never reads a clock, so a schedule is a plain sequence that
// tests can check exactly; each is deterministic given its parameters and seed.
type Arrivals interface {
	Next() time.Duration
}

// Constant arrivals come every 1/PerSec seconds, the first at Phase (a fraction of a gap, in
// [0, 1)) after the start. With Phase 0.5 each arrival is in the middle of its 1/PerSec slot, so
// a step of N arrivals lasting N/PerSec has exactly PerSec arrivals in each whole second, none of
// them on a second's boundary.
type Constant struct {
	PerSec float64
	Phase  float64
	n      int64
}

// Next implements Arrivals.
func (c *Constant) Next() time.Duration {
	d := time.Duration((float64(c.n) + c.Phase) * float64(time.Second) / c.PerSec)
	c.n++
	return d
}

// Poisson arrivals have exponentially distributed gaps of mean 1/PerSec: independent arrivals,
// as from many users, which is what a server sees from a large population of clients.
type Poisson struct {
	PerSec float64
	RNG    *rand.Rand
	at     float64 // seconds
}

// Next implements Arrivals.
func (p *Poisson) Next() time.Duration {
	d := time.Duration(p.at * float64(time.Second))
	p.at += p.RNG.ExpFloat64() / p.PerSec
	return d
}

// DefaultMaxBacklog is how many due arrivals may wait for a free worker before more are
// dropped, when a pool does not say.
const DefaultMaxBacklog = 100_000

// Pool is an open-loop stream: a global schedule of arrivals handed to a pool of workers, as
// k6's arrival-rate executors do. A slow or blocked worker delays no arrival and caps nothing
// below the pool's size; an operation's latency counts from its arrival (its intended start).
// An arrival that finds MaxBacklog arrivals already waiting is dropped and counted, never
// silently delayed.
type Pool struct {
	Name     string
	Arrivals Arrivals
	// Limit is the number of arrivals in all; 0 runs until the step's primary workers are done
	// or its Duration ends (a primary pool without a limit needs the step's Duration).
	Limit int64
	// Do holds one function per worker (each with its own connection).
	Do         []DoFunc
	MaxBacklog int // DefaultMaxBacklog if 0
	Primary    bool
	// Until, if set, holds the pool open until that long after the start even when its last
	// arrival came earlier: a rate-limited stream whose schedule lasts Limit/rate is measured
	// over that whole schedule, not to its last arrival.
	Until time.Duration
	// Done, if set, is called once when every worker of the pool has finished.
	Done func()
	// Service records service times (from the actual send) beside response times.
	Service bool
}

type poolState struct {
	p        *Pool
	ch       chan time.Duration // due arrivals, as offsets from the start
	arrivals atomic.Int64
	dropped  atomic.Int64
	lagMax   atomic.Int64 // ns, since the last interval
	left     atomic.Int64 // workers still running
	// arrivals and dropped already counted in an interval (runner's goroutine)
	reportedArrivals, reported int64
}

func newPoolState(p *Pool) *poolState {
	size := int64(p.MaxBacklog)
	if size <= 0 {
		size = DefaultMaxBacklog
	}
	if p.Limit > 0 {
		size = min(size, p.Limit)
	}
	ps := &poolState{p: p, ch: make(chan time.Duration, size)}
	ps.left.Store(int64(len(p.Do)))
	return ps
}

// interval adds what the pool did since the last interval to iv: arrivals, drops, the
// backlog now and the latest hand-out.
func (ps *poolState) interval(iv *measure.Interval) {
	a, d := ps.arrivals.Load(), ps.dropped.Load()
	iv.Arrivals += a - ps.reportedArrivals
	iv.Dropped += d - ps.reported
	ps.reportedArrivals, ps.reported = a, d
	iv.Backlog += int64(len(ps.ch))
	iv.LagMax = max(iv.LagMax, time.Duration(ps.lagMax.Swap(0)))
}

// workers are the pool's workers, each taking its next operation from the shared schedule.
func (ps *poolState) workers() []Worker {
	ws := make([]Worker, len(ps.p.Do))
	for i, do := range ps.p.Do {
		ws[i] = Worker{Name: ps.p.Name, Schedule: poolSchedule{ps}, Do: do, Primary: ps.p.Primary, Service: ps.p.Service}
	}
	return ws
}

// dispatch sleeps until each arrival is due and hands it to the pool. It ends after Limit
// arrivals, or when the primary workers are done (a non-primary pool), or when ctx ends.
func (ps *poolState) dispatch(ctx context.Context, start time.Time, stop <-chan struct{}, lag *Lag) {
	defer close(ps.ch)
	stopCh := stop // the primaries are done, or the step's time is up
	preciseThread()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for n := int64(0); ps.p.Limit <= 0 || n < ps.p.Limit; n++ {
		off := ps.p.Arrivals.Next()
		due := start.Add(off)
		if time.Until(due) > 0 {
			if !sleepUntilPrecise(ctx, due, stopCh, timer) {
				return
			}
			late := time.Since(due)
			lag.record(late)
			if int64(late) > ps.lagMax.Load() {
				ps.lagMax.Store(int64(late)) // only this goroutine raises it
			}
		} else {
			select {
			case <-ctx.Done():
				return
			case <-stopCh:
				return
			default:
			}
		}
		ps.arrivals.Add(1)
		select {
		case ps.ch <- off:
		default:
			ps.dropped.Add(1)
		}
	}
	if d := time.Until(start.Add(ps.p.Until)); ps.p.Until > 0 && d > 0 {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
		case <-stopCh:
		}
	}
}

// poolSchedule is a pool worker's schedule: the next arrival, whenever it was due.
type poolSchedule struct{ ps *poolState }

// Next implements Schedule.
func (s poolSchedule) Next(ctx context.Context, t Tick) (time.Time, bool) {
	var stopCh <-chan struct{}
	if !s.ps.p.Primary || s.ps.p.Limit <= 0 {
		stopCh = t.Stop
	}
	select {
	case off, ok := <-s.ps.ch:
		if ok {
			return t.Start.Add(off), true
		}
	case <-ctx.Done():
	case <-stopCh:
	}
	if s.ps.left.Add(-1) == 0 && s.ps.p.Done != nil {
		s.ps.p.Done()
	}
	return time.Time{}, false
}

package runner

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
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

// Pool is an open-loop stream: a global schedule of arrivals served by a pool of workers, as
// k6's arrival-rate executors do. A slow or blocked worker delays no arrival and caps nothing
// below the pool's size; an operation's latency counts from its arrival (its intended start).
// An arrival that finds MaxBacklog arrivals already waiting is dropped and counted, never
// silently delayed.
//
// The workers take turns as the leader (leader/follower): one idle worker sleeps until the next
// arrival and runs it itself, after waking another idle worker to lead for the one after. So the
// only wake-up between an arrival's due time and its start is the leader's own timer; a
// dispatcher goroutine handing arrivals to parked workers added a second, cross-thread wake-up,
// which was most of the schedule's lag tail (docs/performance.md, "Open-loop schedule lag").
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
	p *Pool
	// the step's start, and its stop and when that came, set before the workers start
	start      time.Time
	stopCh     <-chan struct{}
	stopAt     *time.Time
	maxBacklog int
	wake       chan struct{} // a token wakes one parked worker
	ended      chan struct{} // closed when no arrival will come any more
	endAt      time.Time     // when the schedule ended (ps.mu); arrivals due by then are offered

	mu       sync.Mutex
	next     time.Duration   // the schedule's next arrival, valid when peeked
	peeked   bool            // next holds an arrival taken from the schedule but not yet due
	taken    int64           // arrivals taken from the schedule
	queue    []time.Duration // due arrivals no worker has started, oldest first
	leading  bool            // a worker sleeps until next
	parked   int             // workers waiting for a token
	idle     int             // workers in Next that have advanced and not yet taken an arrival
	stopped  bool            // ended: stop or ctx came before the schedule's end
	arrivals int64
	dropped  int64
	// arrivals and dropped already counted in an interval
	reportedArrivals, reported int64

	lagMax atomic.Int64 // ns, since the last interval
	left   atomic.Int64 // workers still running
}

func newPoolState(p *Pool) *poolState {
	size := p.MaxBacklog
	if size <= 0 {
		size = DefaultMaxBacklog
	}
	ps := &poolState{p: p, maxBacklog: size,
		wake: make(chan struct{}, len(p.Do)), ended: make(chan struct{})}
	ps.left.Store(int64(len(p.Do)))
	return ps
}

// peek makes next the schedule's next arrival, if there is one (ps.mu held).
func (ps *poolState) peek() bool {
	if !ps.peeked && !ps.stopped && (ps.p.Limit <= 0 || ps.taken < ps.p.Limit) {
		ps.next, ps.peeked = ps.p.Arrivals.Next(), true
		ps.taken++
	}
	return ps.peeked
}

// advance moves every arrival due by now from the schedule to the queue, dropping those that
// find it full (ps.mu held). Arrivals are only ever taken from the queue after an advance, and a
// worker counts as idle only after an advance, so doing this lazily gives the same drops as
// doing it at each arrival's instant. The first ps.idle arrivals in the queue are not waiting:
// an idle worker starts each at once (several arrivals due at the same instant, or due while
// the leader woke late, with idle workers parked), so they do not count toward MaxBacklog.
func (ps *poolState) advance(now time.Time) {
	for ps.peek() && !ps.start.Add(ps.next).After(now) {
		ps.peeked = false
		ps.arrivals++
		if len(ps.queue) >= ps.maxBacklog+ps.idle {
			ps.dropped++
		} else {
			ps.queue = append(ps.queue, ps.next)
		}
	}
}

// advanceNow advances to now, or, once the step's stop has come, to the stop's instant and
// ends the schedule there (ps.mu held). It returns the instant it advanced to.
func (ps *poolState) advanceNow() time.Time {
	select {
	case <-ps.stopCh:
		ps.advance(*ps.stopAt)
		ps.stop(*ps.stopAt)
		return *ps.stopAt
	default:
		now := time.Now()
		ps.advance(now)
		return now
	}
}

// stop ends the schedule at the instant at, the last it advanced to: no arrival is taken from it
// any more (ps.mu held).
func (ps *poolState) stop(at time.Time) {
	if !ps.stopped {
		ps.stopped = true
		ps.peeked = false
		ps.endAt = at
		close(ps.ended)
	}
}

// signal wakes one parked worker, if any waits without a token (ps.mu held).
func (ps *poolState) signal() {
	if ps.parked > len(ps.wake) {
		ps.wake <- struct{}{}
	}
}

// interval adds what the pool did since the last interval to iv: arrivals, drops, the
// backlog now and the latest wake-up.
func (ps *poolState) interval(iv *measure.Interval) {
	ps.mu.Lock()
	ps.advanceNow() // arrivals and drops count in their second even when every worker is busy
	iv.Arrivals += ps.arrivals - ps.reportedArrivals
	iv.Dropped += ps.dropped - ps.reported
	ps.reportedArrivals, ps.reported = ps.arrivals, ps.dropped
	iv.Backlog += int64(len(ps.queue))
	ps.mu.Unlock()
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

// poolSchedule is a pool worker's schedule: the oldest due arrival, or, when none is due and no
// other worker leads, the next one after sleeping until it is due.
//
// t.Stop ends the schedule: no arrival is taken from it after. A primary pool with a limit then
// still runs the arrivals already due (its backlog); any other pool leaves them.
type poolSchedule struct{ ps *poolState }

// Next implements Schedule.
func (s poolSchedule) Next(ctx context.Context, t Tick) (time.Time, bool) {
	ps := s.ps
	var leave <-chan struct{} // a stop that also abandons the backlog
	if !ps.p.Primary || ps.p.Limit <= 0 {
		leave = t.Stop
	}
	idle := false // counted in ps.idle
	for ctx.Err() == nil {
		select {
		case <-leave:
			return s.finish(ctx, t, idle)
		default:
		}
		ps.mu.Lock()
		ps.advanceNow()
		if !idle {
			ps.idle++
			idle = true
		}
		if len(ps.queue) > 0 {
			off := ps.queue[0]
			ps.queue = ps.queue[1:]
			ps.idle--
			if len(ps.queue) > 0 || (!ps.leading && ps.peek()) {
				ps.signal() // someone else for what is due or comes next
			}
			ps.mu.Unlock()
			return t.Start.Add(off), true
		}
		if !ps.peek() {
			ps.mu.Unlock()
			return s.finish(ctx, t, idle)
		}
		if !ps.leading {
			ps.leading = true
			due := t.Start.Add(ps.next)
			ps.mu.Unlock()
			slept := time.Until(due) > 0
			ok := !slept || t.sleep(ctx, due, t.Stop)
			late := time.Since(due)
			ps.mu.Lock()
			ps.leading = false
			if !ok {
				ps.stop(ps.advanceNow()) // ctx ended
			}
			ps.mu.Unlock()
			if ok && slept {
				t.Lag.record(late)
				if int64(late) > ps.lagMax.Load() {
					ps.lagMax.Store(int64(late)) // a race between leaders only loses a near-equal maximum
				}
			}
			continue // take it, or whatever is due by now
		}
		ps.parked++
		ps.mu.Unlock()
		select {
		case <-ps.wake:
		case <-ps.ended:
		case <-leave:
		case <-ctx.Done():
		}
		ps.mu.Lock()
		ps.parked--
		ps.mu.Unlock()
	}
	return s.finish(ctx, t, idle)
}

// finish ends a worker's schedule: after holding the pool open until Until (when the schedule
// ran out early), it wakes the other workers to end too and calls Done after the last.
func (s poolSchedule) finish(ctx context.Context, t Tick, idle bool) (time.Time, bool) {
	ps := s.ps
	if ps.p.Until > 0 {
		// A stop ends the wait for every pool: once the schedule has ended, Until holds nothing
		// open (a primary pool with a limit has already run what was due).
		sleepUntil(ctx, t.Start.Add(ps.p.Until), t.Stop, true)
	}
	ps.mu.Lock()
	if idle {
		ps.idle--
	}
	// What came due before the stop counts, though no worker will take it: it is left in the
	// queue or dropped. Ending the schedule without this lost every arrival due since the last
	// advance (all workers busy) from the arrivals and the drops.
	ps.stop(ps.advanceNow())
	ps.mu.Unlock()
	if ps.left.Add(-1) == 0 && ps.p.Done != nil {
		ps.p.Done()
	}
	return time.Time{}, false
}

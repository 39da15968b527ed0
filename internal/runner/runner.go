// Package runner owns time: it starts the workers of a step, asks each worker's schedule when
// its next operation is due (or hands a pool's workers the arrivals of a global schedule), times
// each operation from that intended start, and merges every worker's histograms into one
// interval row a second.
package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/measure"
)

// DoFunc performs one operation and returns which of the step's op types it was and the units of
// work done (rows, queries). attempt is 0 for a new operation and counts up when the runner
// retries a failed one; the worker must retry the same work (same rows, same ids) and report the
// same op type. On error, op still names the op type the failure is counted against.
type DoFunc func(ctx context.Context, attempt int) (op measure.Op, units int64, err error)

// Worker is one client role's goroutine: an inserter, a deleter, a querier, a requester.
type Worker struct {
	Name     string // for error messages, e.g. "inserter 2"
	Schedule Schedule
	Do       DoFunc
	// Service records each operation's service time (from its actual start) beside its
	// response time (from its intended start): for open-loop streams, where they differ.
	Service bool
	// Primary workers define the step's length: when all have finished, Stop closes and the
	// others end (queriers) or drain what is left (deleters).
	Primary bool
}

// Step is what the runner runs: a set of workers and pools, and what to do with each second's
// figures.
type Step struct {
	Name    string
	Ops     []measure.OpType // the op types workers may report, indexed by measure.Op
	Workers []Worker
	Pools   []Pool // open-loop streams, each served by a pool of workers
	Retries int    // retries of a failed operation before the step fails
	// Classify names an error's kind (driver.ErrorKind: deadlock, connection lost, ...) for the
	// step's figures; called only when an operation failed. Every error is "other" if nil.
	Classify func(error) string
	// FaultTimeout, if set, lets a worker whose operation fails with a Lost error redial and
	// retry for that long from the loss (faults.go); 0 fails the step at the first loss.
	FaultTimeout time.Duration
	// Sleep is how paced workers and pools' leaders wait for an operation's due time; nil is
	// PreciseSleep (tests in virtual time give CoarseSleep).
	Sleep Sleeper
	// Duration, if set, ends the step that long after its start, as when the primary workers
	// are done: workers and pools without a limit finish the operation they are doing and take
	// no new one; a worker with a limit (ClosedLoop{Limit}) runs to it, unless Timed.
	Duration time.Duration
	// LockOSThreads keeps each worker on one OS thread for the step (runtime.LockOSThread), for
	// a library called through cgo or a client that waits in the kernel: between calls the Go
	// scheduler would otherwise hand a worker from thread to thread (docs/performance.md, "One
	// OS thread per worker").
	LockOSThreads bool
	// CgoYield makes a worker locked to its thread yield to Go's scheduler between operations
	// every cgoYield: for a library called through cgo, whose calls sysmon would otherwise
	// retake. A client waiting in the kernel does not: a yield there costs a handoff between
	// threads, 0.6x the point selects a second (docs/performance.md, "Waiting in the kernel").
	CgoYield bool
	// Begin, if set, is called with the step's start instant before any worker starts.
	Begin func(start time.Time)
	// Warmup, if set, runs the workers that long before the measured part, on the same
	// schedules (offsets run on through it; warmup.go). At the first tick after it WarmupEnd gets
	// the warm-up's figures; Duration, Result and the step's books then cover what follows.
	Warmup    time.Duration
	WarmupEnd func(res Result)
	// WarmupMark, if set, is called right after the warm-up's last drain, before anything else
	// (keep it short): a workload's clients set their own counts aside from then, close to the
	// runner's cut (an operation under way may fall on either side).
	WarmupMark func()
	// OpenLoop says a stream of the step arrives open loop at the run's chosen rate: the
	// archive then keeps its arrivals, drops, backlog and lag per second.
	OpenLoop bool
	// Interval, if set, is called with each second's merged figures (and a last, shorter one),
	// from the runner's own goroutine, in order. iv is reused: keep no reference to it.
	Interval func(iv *measure.Interval)
	Tick     time.Duration // interval length; 1s if zero
}

// Result is what a step did.
type Result struct {
	Total      *measure.Interval // cumulative over the step
	Start, End time.Time
	CPU        hostproc.CPUTime // this process's CPU time during the step
	Lag        Lag              // how late paced workers woke up: the client's own delay
	Dropped    int64            // open-loop arrivals that could not start (backlog full)
	// Streams are the open-loop streams' accounts: offered, achieved, dropped, not started.
	Streams  []measure.Stream
	Err      error  // the first failure, or ctx's error if interrupted
	Faults   Faults // retries, reconnects and the windows without the target
	Complete bool   // every worker finished its work
	// InWarmup says the step ended before its warm-up did: every figure is the warm-up's.
	InWarmup bool
}

// Run runs a step to completion, failure or cancellation of ctx.
func Run(ctx context.Context, s Step) Result {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := newRun(&s)
	r.begin()
	r.startWorkers(ctx, cancel)
	r.armEnd()
	defer r.disarm()
	r.tickUntil(r.finished())
	return r.result(ctx)
}

// run is a step while it runs. Its workers (the step's own and its pools') and their books are
// set up before the clock starts; the ticks, on Run's goroutine, own the rest.
type run struct {
	s         *Step
	tick      time.Duration
	workers   []Worker
	pools     []*poolState
	poolFrom  []int // the index of each pool's first worker
	recorders []*measure.Recorder
	// One per goroutine, no sharing while running; a second set for the part after a warm-up.
	lags     []Lag
	warmOver atomic.Bool
	faults   *faultLog

	primaries, all sync.WaitGroup
	stop           chan struct{}
	stopOnce       sync.Once
	stopAt         time.Time   // written before stop closes, read only after
	deadline       *time.Timer // closes stop after the step's Duration

	start, from time.Time        // the step's start; the measured part's, after the warm-up
	cpu0        hostproc.CPUTime // the process's CPU time at from
	warm        *warmup          // nil without a warm-up
	total, iv   *measure.Interval
	last        time.Time // the end of the last interval
	dropped     int64
	streams     []measure.Stream
}

// newRun sets up the step's workers, a pool's after the step's own, and their books.
func newRun(s *Step) *run {
	r := &run{s: s, tick: s.Tick, stop: make(chan struct{}), faults: &faultLog{timeout: s.FaultTimeout}}
	if r.tick <= 0 {
		r.tick = time.Second
	}
	r.workers = append([]Worker(nil), s.Workers...)
	r.pools = make([]*poolState, len(s.Pools))
	r.poolFrom = make([]int, len(s.Pools))
	for i := range s.Pools {
		r.pools[i] = newPoolState(&s.Pools[i])
		r.poolFrom[i] = len(r.workers)
		r.workers = append(r.workers, r.pools[i].workers()...)
	}
	r.recorders = make([]*measure.Recorder, len(r.workers))
	r.lags = make([]Lag, 2*len(r.workers))
	for i := range r.workers {
		r.recorders[i] = measure.NewRecorder(len(s.Ops))
	}
	return r
}

// begin starts the step's clock: its start instant, the Begin hook, the pools' schedules.
func (r *run) begin() {
	r.cpu0 = hostproc.ProcessCPU()
	r.start = time.Now()
	r.from = r.start
	if r.s.Begin != nil {
		r.s.Begin(r.start)
	}
	for _, p := range r.pools {
		p.start, p.stopCh, p.stopAt = r.start, r.stop, &r.stopAt
	}
}

// startWorkers starts a goroutine per worker; a worker's failure cancels the step, and the
// primary workers' end stops it.
func (r *run) startWorkers(ctx context.Context, cancel context.CancelCauseFunc) {
	for i := range r.workers {
		w := &r.workers[i]
		if w.Primary {
			r.primaries.Add(1)
		}
		r.all.Add(1)
		go func() {
			defer r.all.Done()
			if r.s.LockOSThreads {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			if w.Primary {
				defer r.primaries.Done()
			}
			t := Tick{Start: r.start, Stop: r.stop, Lag: &r.lags[i], Sleep: r.s.Sleep}
			if r.s.Warmup > 0 {
				t.afterWarmup, t.warmOver = &r.lags[len(r.workers)+i], &r.warmOver
			}
			if err := runWorker(ctx, w, r.recorders[i], t, r.s.Retries, r.s.Classify, r.faults, r.s.LockOSThreads && r.s.CgoYield); err != nil {
				cancel(fmt.Errorf("%s: %w", w.Name, err))
			}
		}()
	}
	go func() { r.primaries.Wait(); r.closeStop() }()
}

// closeStop tells the workers that the step is over.
func (r *run) closeStop() { r.stopOnce.Do(func() { r.stopAt = time.Now(); close(r.stop) }) }

// armEnd sets the step's end after its Duration, or the warm-up's end (which sets the former).
func (r *run) armEnd() {
	if r.s.Warmup > 0 {
		r.warm = &warmup{until: r.start.Add(r.s.Warmup)}
	} else if r.s.Duration > 0 {
		r.deadline = time.AfterFunc(time.Until(r.start.Add(r.s.Duration)), r.closeStop)
	}
}

func (r *run) disarm() {
	if r.deadline != nil {
		r.deadline.Stop()
	}
}

// finished is closed when every worker has returned.
func (r *run) finished() <-chan struct{} {
	finished := make(chan struct{})
	go func() { r.all.Wait(); close(finished) }()
	return finished
}

// tickUntil emits an interval each tick, ends the warm-up at its tick, and, once finished is
// closed, emits the last interval.
func (r *run) tickUntil(finished <-chan struct{}) {
	r.total = measure.NewInterval(len(r.s.Ops))
	r.total.Start = r.start
	r.iv = measure.NewInterval(len(r.s.Ops))
	ticker := time.NewTicker(r.tick)
	defer ticker.Stop()
	r.last = r.start
	for running := true; running; {
		select {
		case now := <-ticker.C:
			r.emit(now, false)
			if r.warm != nil && r.warm.due(now, r.tick) {
				r.endWarmup(now)
			}
		case <-finished:
			running = false
		}
	}
	// Always drain once more: an operation that ended at the instant of the last tick is
	// recorded after that tick's drain, and must not be lost (the interval may be empty).
	end := time.Now()
	r.emit(end, true)
	r.total.End = end
}

// emit drains every worker's recorder into the interval that ends now, adds it to the step's
// total and hands it to the step's Interval; the final one also closes the pools' accounts.
func (r *run) emit(now time.Time, final bool) {
	s, iv := r.s, r.iv
	iv.Reset()
	iv.Start, iv.End = r.last, now
	for _, rec := range r.recorders {
		rec.Drain(iv)
	}
	if !final && r.warm != nil && s.WarmupMark != nil && r.warm.due(now, r.tick) {
		s.WarmupMark()
	}
	for i, p := range r.pools {
		if final { // every worker has returned: what is left waiting is not started
			r.streams = append(r.streams, p.account(iv, r.poolRecorders(i), now))
		}
		p.interval(iv)
	}
	r.dropped += iv.Dropped
	r.last = now
	r.total.Add(iv)
	if s.Interval != nil {
		s.Interval(iv)
	}
}

// poolRecorders are the recorders of pool i's workers.
func (r *run) poolRecorders(i int) []*measure.Recorder {
	return r.recorders[r.poolFrom[i] : r.poolFrom[i]+len(r.pools[i].p.Do)]
}

// endWarmup hands the warm-up's figures to WarmupEnd; the measured part starts now, with empty
// books, and its Duration from now.
func (r *run) endWarmup(now time.Time) {
	s, warm := r.s, r.warm
	warm.over = true
	r.warmOver.Store(true) // each worker records its wake-ups apart from its next operation
	for i, p := range r.pools {
		warm.streams = append(warm.streams, p.snapshot(r.poolRecorders(i)))
	}
	cpu := hostproc.ProcessCPU()
	r.total.End = now
	if s.WarmupEnd != nil {
		s.WarmupEnd(Result{Total: r.total, Start: r.start, End: now, CPU: cpu.Sub(r.cpu0), Dropped: r.dropped, Streams: warm.streams, Complete: true})
	}
	r.total, r.from, r.cpu0, r.dropped = measure.NewInterval(len(s.Ops)), now, cpu, 0
	r.total.Start = now
	if s.Duration > 0 {
		r.deadline = time.AfterFunc(s.Duration, r.closeStop)
	}
}

// result is the step's Result: the measured part's books, the paced workers' wake-ups in it,
// and the first failure.
func (r *run) result(ctx context.Context) Result {
	warmed := r.warm != nil && r.warm.over
	if warmed {
		for i := range r.streams {
			r.streams[i] = since(r.streams[i], r.warm.streams[i])
		}
	}
	res := Result{Total: r.total, Start: r.from, End: r.total.End, CPU: hostproc.ProcessCPU().Sub(r.cpu0), Dropped: r.dropped,
		Streams: r.streams, InWarmup: r.warm != nil && !r.warm.over}
	measured := r.lags[:len(r.workers)]
	if warmed { // the paced workers' wake-ups after the warm-up
		measured = r.lags[len(r.workers):]
	}
	for _, l := range measured {
		res.Lag.Add(l)
	}
	res.Err = context.Cause(ctx) // nil unless a worker failed or the caller cancelled
	res.Faults = r.faults.result()
	res.Complete = res.Err == nil
	return res
}

// cgoYield is how often a worker locked to its OS thread yields between operations. Go's sysmon
// takes the P of a goroutine that sits in a cgo call and has not been rescheduled for 10 ms
// (runtime/proc.go, retake), then polls every 20 µs for a millisecond; a worker making short
// calls back to back is never rescheduled, and on two CPUs the polling preempts it thousands of
// times a second. docs/performance.md ("The binding's cost, measured in one process").
const cgoYield = 2 * time.Millisecond

// runWorker is one worker's loop: wait for the schedule, do, record, and with yield, every
// cgoYield, runtime.Gosched after a record (outside any operation's time). A failed operation
// is retried up to retries times; one that lost its connection is retried after a new one,
// without limit but within the fault timeout (faults.go).
func runWorker(ctx context.Context, w *Worker, rec *measure.Recorder, t Tick, retries int, classify func(error) string, faults *faultLog, yield bool) error {
	since := t.Start // when the worker's connection was made: before the step
	yielded := time.Now()
	for {
		if t.warmOver != nil && t.warmOver.Load() {
			t.Lag, t.warmOver = t.afterWarmup, nil
		}
		due, ok := w.Schedule.Next(ctx, t)
		if !ok {
			return nil
		}
		var op measure.Op
		var units int64
		var err error
		var sent time.Time
		if w.Service { // a clock read only where service time differs from response time
			sent = time.Now()
		}
		var lostAt time.Time // the operation's first loss of its connection
		for attempt, failed := 0, 0; ; attempt++ {
			if attempt > 0 {
				faults.retried()
			}
			op, units, err = w.Do(ctx, attempt)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return nil // interrupted, not failed
			}
			kind := ""
			if classify != nil {
				kind = classify(err)
			}
			rec.Error(op, kind, err.Error())
			var lost *Lost
			if faults.timeout > 0 && errors.As(err, &lost) {
				if lostAt.IsZero() {
					lostAt = time.Now()
				}
				if err := faults.recover(ctx, lost, lostAt, &since); err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return err
				}
				continue
			}
			if failed++; failed > retries {
				return err
			}
		}
		end := time.Now()
		rec.Record(op, end.Sub(due), units)
		if w.Service {
			rec.RecordService(op, end.Sub(sent))
		}
		t.N++
		if yield && end.Sub(yielded) >= cgoYield {
			runtime.Gosched()
			yielded = end
		}
	}
}

// Single adapts a worker that always does the same op type.
func Single(op measure.Op, do func(ctx context.Context, attempt int) (units int64, err error)) DoFunc {
	return func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		units, err := do(ctx, attempt)
		return op, units, err
	}
}

// Package runner owns time: it starts the workers of a step, asks each worker's schedule when
// its next operation is due (or hands a pool's workers the arrivals of a global schedule), times
// each operation from that intended start, and merges every worker's histograms into one
// interval row a second.
package runner

import (
	"context"
	"errors"
	"fmt"
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
	tick := s.Tick
	if tick <= 0 {
		tick = time.Second
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	workers := append([]Worker(nil), s.Workers...)
	pools := make([]*poolState, len(s.Pools))
	poolFrom := make([]int, len(s.Pools)) // the index of each pool's first worker
	for i := range s.Pools {
		pools[i] = newPoolState(&s.Pools[i])
		poolFrom[i] = len(workers)
		workers = append(workers, pools[i].workers()...)
	}
	recorders := make([]*measure.Recorder, len(workers))
	// One per goroutine, no sharing while running; a second set for the part after a warm-up.
	lags := make([]Lag, 2*len(workers))
	var warmOver atomic.Bool
	for i := range workers {
		recorders[i] = measure.NewRecorder(len(s.Ops))
	}
	var streams []measure.Stream
	stop := make(chan struct{})
	var primaries, all sync.WaitGroup
	cpu0 := hostproc.ProcessCPU()
	start := time.Now()
	if s.Begin != nil {
		s.Begin(start)
	}
	var stopAt time.Time // written before stop closes, read only after
	for _, p := range pools {
		p.start, p.stopCh, p.stopAt = start, stop, &stopAt
	}
	faults := &faultLog{timeout: s.FaultTimeout}
	for i := range workers {
		w := &workers[i]
		if w.Primary {
			primaries.Add(1)
		}
		all.Add(1)
		go func(rec *measure.Recorder, lag *Lag) {
			defer all.Done()
			if w.Primary {
				defer primaries.Done()
			}
			t := Tick{Start: start, Stop: stop, Lag: lag, Sleep: s.Sleep}
			if s.Warmup > 0 {
				t.afterWarmup, t.warmOver = &lags[len(workers)+i], &warmOver
			}
			if err := runWorker(ctx, w, rec, t, s.Retries, s.Classify, faults); err != nil {
				cancel(fmt.Errorf("%s: %w", w.Name, err))
			}
		}(recorders[i], &lags[i])
	}
	var stopOnce sync.Once
	closeStop := func() { stopOnce.Do(func() { stopAt = time.Now(); close(stop) }) }
	go func() { primaries.Wait(); closeStop() }()
	var warm *warmup
	from := start // the measured part's start: after the warm-up, if any
	var deadline *time.Timer
	if s.Warmup > 0 {
		warm = &warmup{until: start.Add(s.Warmup)}
	} else if s.Duration > 0 {
		deadline = time.AfterFunc(time.Until(start.Add(s.Duration)), closeStop)
	}
	defer func() {
		if deadline != nil {
			deadline.Stop()
		}
	}()
	finished := make(chan struct{})
	go func() { all.Wait(); close(finished) }()

	total := measure.NewInterval(len(s.Ops))
	total.Start = start
	iv := measure.NewInterval(len(s.Ops))
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	last := start
	var dropped int64
	emit := func(now time.Time, final bool) {
		iv.Reset()
		iv.Start, iv.End = last, now
		for _, r := range recorders {
			r.Drain(iv)
		}
		if !final && warm != nil && s.WarmupMark != nil && warm.due(now, tick) {
			s.WarmupMark()
		}
		for i, p := range pools {
			if final { // every worker has returned: what is left waiting is not started
				streams = append(streams, p.account(iv, recorders[poolFrom[i]:poolFrom[i]+len(p.p.Do)], now))
			}
			p.interval(iv)
		}
		dropped += iv.Dropped
		last = now
		total.Add(iv)
		if s.Interval != nil {
			s.Interval(iv)
		}
	}
	endWarmup := func(now time.Time) { // the measured part starts now, with empty books
		warm.over = true
		warmOver.Store(true) // each worker records its wake-ups apart from its next operation
		for i, p := range pools {
			warm.streams = append(warm.streams, p.snapshot(recorders[poolFrom[i]:poolFrom[i]+len(p.p.Do)]))
		}
		cpu := hostproc.ProcessCPU()
		total.End = now
		if s.WarmupEnd != nil {
			s.WarmupEnd(Result{Total: total, Start: start, End: now, CPU: cpu.Sub(cpu0), Dropped: dropped, Streams: warm.streams, Complete: true})
		}
		total, from, cpu0, dropped = measure.NewInterval(len(s.Ops)), now, cpu, 0
		total.Start = now
		if s.Duration > 0 {
			deadline = time.AfterFunc(s.Duration, closeStop)
		}
	}
	for running := true; running; {
		select {
		case now := <-ticker.C:
			emit(now, false)
			if warm != nil && warm.due(now, tick) {
				endWarmup(now)
			}
		case <-finished:
			running = false
		}
	}
	// Always drain once more: an operation that ended at the instant of the last tick is
	// recorded after that tick's drain, and must not be lost (the interval may be empty).
	end := time.Now()
	emit(end, true)
	total.End = end
	if warm != nil && warm.over {
		for i := range streams {
			streams[i] = since(streams[i], warm.streams[i])
		}
	}
	res := Result{Total: total, Start: from, End: end, CPU: hostproc.ProcessCPU().Sub(cpu0), Dropped: dropped, Streams: streams,
		InWarmup: warm != nil && !warm.over}
	measured := lags[:len(workers)]
	if warm != nil && warm.over { // the paced workers' wake-ups after the warm-up
		measured = lags[len(workers):]
	}
	for _, l := range measured {
		res.Lag.Add(l)
	}
	res.Err = context.Cause(ctx) // nil unless a worker failed or the caller cancelled
	res.Faults = faults.result()
	res.Complete = res.Err == nil
	return res
}

// runWorker is one worker's loop: wait for the schedule, do, record. A failed operation is
// retried up to retries times; one that lost its connection is retried after a new one, without
// limit but within the fault timeout (faults.go).
func runWorker(ctx context.Context, w *Worker, rec *measure.Recorder, t Tick, retries int, classify func(error) string, faults *faultLog) error {
	since := t.Start // when the worker's connection was made: before the step
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
	}
}

// Single adapts a worker that always does the same op type.
func Single(op measure.Op, do func(ctx context.Context, attempt int) (units int64, err error)) DoFunc {
	return func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		units, err := do(ctx, attempt)
		return op, units, err
	}
}

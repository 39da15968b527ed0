// Package runner owns time: it starts one goroutine per worker, asks each worker's schedule when
// its next operation is due, times the operation from that intended start, and merges every
// worker's histograms into one interval row a second.
package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// Worker is one client role's goroutine: an inserter, a deleter, a querier.
type Worker struct {
	Name     string     // for error messages, e.g. "inserter 2"
	Op       measure.Op // what its operations are recorded as
	Schedule Schedule
	// Do performs one operation and returns the units of work done (rows, queries). attempt is
	// 0 for a new operation and counts up when the runner retries a failed one; the worker must
	// retry the same work (same rows, same ids).
	Do func(ctx context.Context, attempt int) (units int64, err error)
	// Primary workers define the step's length: when all have finished, Stop closes and the
	// others end (queriers) or drain what is left (deleters).
	Primary bool
}

// Step is what the runner runs: a set of workers and what to do with each second's figures.
type Step struct {
	Name    string
	Workers []Worker
	Ops     []measure.Op // op types shown in every interval, even when idle
	Retries int          // retries of a failed operation before the step fails
	// Interval, if set, is called with each second's merged figures (and a last, shorter one),
	// from the runner's own goroutine, in order.
	Interval func(iv *measure.Interval)
	Tick     time.Duration // interval length; 1s if zero
}

// Result is what a step did.
type Result struct {
	Total      *measure.Interval // cumulative over the step
	Start, End time.Time
	CPU        CPUTime // this process's CPU time during the step
	Lag        Lag     // how late paced workers woke up: the client's own delay
	Err        error   // the first failure, or ctx's error if interrupted
	Complete   bool    // every worker finished its work
}

// Run runs a step to completion, failure or cancellation of ctx.
func Run(ctx context.Context, s Step) Result {
	tick := s.Tick
	if tick <= 0 {
		tick = time.Second
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	recorders := make([]*measure.Recorder, len(s.Workers))
	lags := make([]Lag, len(s.Workers)) // one per worker: no sharing while running
	for i, w := range s.Workers {
		recorders[i] = measure.NewRecorder(w.Op)
	}
	stop := make(chan struct{})
	var primaries sync.WaitGroup
	var all sync.WaitGroup
	cpu0 := ProcessCPU()
	start := time.Now()
	for i := range s.Workers {
		w := &s.Workers[i]
		if w.Primary {
			primaries.Add(1)
		}
		all.Add(1)
		go func(rec *measure.Recorder, lag *Lag) {
			defer all.Done()
			if w.Primary {
				defer primaries.Done()
			}
			if err := runWorker(ctx, w, rec, Tick{Start: start, Stop: stop, Lag: lag}, s.Retries); err != nil {
				cancel(fmt.Errorf("%s: %w", w.Name, err))
			}
		}(recorders[i], &lags[i])
	}
	go func() { primaries.Wait(); close(stop) }()
	finished := make(chan struct{})
	go func() { all.Wait(); close(finished) }()

	total := measure.NewInterval(s.Ops)
	total.Start = start
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	last := start
	emit := func(now time.Time) {
		iv := measure.NewInterval(s.Ops)
		iv.Start, iv.End = last, now
		for _, r := range recorders {
			r.Drain(iv)
		}
		last = now
		total.Add(iv)
		if s.Interval != nil {
			s.Interval(iv)
		}
	}
	for running := true; running; {
		select {
		case now := <-ticker.C:
			emit(now)
		case <-finished:
			running = false
		}
	}
	// Always drain once more: an operation that ended at the instant of the last tick is
	// recorded after that tick's drain, and must not be lost (the interval may be empty).
	end := time.Now()
	emit(end)
	total.End = end
	res := Result{Total: total, Start: start, End: end, CPU: ProcessCPU().Sub(cpu0)}
	for _, l := range lags {
		res.Lag.Add(l)
	}
	res.Err = context.Cause(ctx) // nil unless a worker failed or the caller cancelled
	res.Complete = res.Err == nil
	return res
}

// runWorker is one worker's loop: wait for the schedule, do, record.
func runWorker(ctx context.Context, w *Worker, rec *measure.Recorder, t Tick, retries int) error {
	for {
		due, ok := w.Schedule.Next(ctx, t)
		if !ok {
			return nil
		}
		var units int64
		var err error
		for attempt := 0; ; attempt++ {
			units, err = w.Do(ctx, attempt)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return nil // interrupted, not failed
			}
			rec.Error(w.Op)
			if attempt >= retries {
				return err
			}
		}
		rec.Record(w.Op, time.Since(due), units)
		t.N++
	}
}

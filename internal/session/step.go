package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// stepRun is one step while it runs: its plan, its files and monitor (opened after its warm-up,
// if it has one), and what the runner's callbacks gather for the step's end. The callbacks come
// from the runner's goroutine, one at a time.
type stepRun struct {
	s          *Session
	ctx        context.Context
	step, name string // the workload's step, and the name it is archived under
	plan       *workload.StepPlan
	warm       *warming            // nil without --warmup
	w          *archive.StepWriter // nil until the step's own files are open
	mon        *monitor.Step       // nil without a monitor
	status     int                 // the step's index in run.json's steps
	live       liveLine
	slas       []slaCheck
	writeErr   error            // the first write to the archive that failed
	seconds    []measure.Second // for stall detection and the monitor's p50/p99 of rates
}

// slaCheck judges an SLA on its op type's intervals.
type slaCheck struct {
	op    measure.Op
	check *measure.SLACheck
}

// step runs a step: its plan through the runner into the archive, then its summary, the
// monitor's figures and the check of the database.
func (s *Session) step(ctx context.Context, step, name string) (archive.Step, error) {
	plan, err := s.Workload.Plan(ctx, step)
	if err != nil {
		if ctx.Err() != nil {
			return archive.Step{}, interrupted(ctx)
		}
		return archive.Step{}, fmt.Errorf("step %s: %w", name, err)
	}
	if s.StepProcs != nil {
		defer s.StepProcs(callers(plan.Step))()
	}
	plan.Step.LockOSThreads = plan.Step.LockOSThreads || s.LockOSThreads
	plan.Step.CgoYield = plan.Step.CgoYield || s.CgoYield
	r := &stepRun{s: s, ctx: ctx, step: step, name: name, plan: plan, status: -1}
	if err := r.start(); err != nil {
		plan.Close()
		return archive.Step{}, err
	}
	r.hook()
	res := runner.Run(ctx, plan.Step)
	r.live.finish()
	if r.w == nil { // it ended in its warm-up, or its files could not be opened after it
		return s.failedInWarmup(ctx, name, plan, r.warm, res, r.writeErr)
	}
	sum := r.summary(res)
	stepErr := r.end(res, &sum)
	var checkTook time.Duration
	checkFailed := false
	if stepErr == nil && s.Verify {
		checkTook, checkFailed, stepErr = r.check(&sum)
	}
	stepErr = r.record(&sum, stepErr)
	printCheck(s.Out, sum, checkTook)
	s.done = append(s.done, stepLine{sum: sum, main: plan.Step.Ops[plan.Main], checkFailed: checkFailed})
	return sum, r.result(stepErr)
}

// start opens the warm-up's files, or the step's own when it has no warm-up, starts the live
// line and finds the SLAs the step's op types have.
func (r *stepRun) start() (err error) {
	s := r.s
	if s.Warmup > 0 {
		if r.warm, err = s.startWarmup(r.ctx, r.name, r.plan); err != nil {
			return err
		}
	}
	if r.warm == nil {
		if r.w, r.mon, r.status, err = s.open(r.ctx, r.name, r.plan, time.Now()); err != nil {
			return err
		}
	}
	ref, _ := s.Workload.(workload.ReferenceLines) // its reference's own lines, if any
	r.live = newLive(s.Out, s.Live, s.ReportEvery, r.name, r.plan, ref)
	for _, sla := range s.SLAs {
		for o, op := range r.plan.Step.Ops {
			if op.Name == sla.Op {
				r.slas = append(r.slas, slaCheck{measure.Op(o), &measure.SLACheck{SLA: sla}})
			}
		}
	}
	return nil
}

// hook sets what the session gives the runner: the tick, the error kinds, the fault timeout,
// and the callbacks at the step's start, the warm-up's end and each interval.
func (r *stepRun) hook() {
	s, st := r.s, &r.plan.Step
	st.Tick = s.Tick
	if st.Classify == nil {
		st.Classify = driver.ErrorKind // error kinds in summary.json; drivers stay out of runner
	}
	if st.FaultTimeout = s.FaultTimeout; s.FaultTimeout > 0 && s.Dir.Meta.Settings != nil {
		s.Dir.Meta.Settings["fault_timeout"] = s.FaultTimeout.String() // faults.go
	}
	if r.mon != nil {
		st.Begin = func(start time.Time) { r.mon.Start(r.ctx, start) }
	}
	if r.warm != nil {
		st.Warmup, st.WarmupMark, st.WarmupEnd = s.Warmup, r.plan.WarmupEnd, r.warmupEnd
	}
	st.Interval = r.interval
}

// failed keeps the first write to the archive that failed.
func (r *stepRun) failed(err error) {
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
}

// warmupEnd archives the warm-up, and opens the step's own files and monitor from its end.
func (r *stepRun) warmupEnd(res runner.Result) {
	r.failed(r.warm.end(res))
	fmt.Fprintf(r.s.Out, "   warm-up done: %.1fs, %d operations, archived as %s; the step's figures start now\n",
		res.End.Sub(res.Start).Seconds(), statements(res.Total), r.warm.name)
	var err error
	if r.w, r.mon, r.status, err = r.s.open(r.ctx, r.name, r.plan, res.End); err != nil {
		r.failed(err)
	} else if r.mon != nil {
		r.mon.Start(r.ctx, res.End)
	}
}

// interval takes the runner's second: to the warm-up's files while it lasts, else to the
// monitor, the step's files, the SLAs and the seconds for stall detection; then the live line.
func (r *stepRun) interval(iv *measure.Interval) {
	if r.warm != nil && r.w == nil { // in the warm-up: its own files, and no more
		r.failed(r.warm.w.Interval(iv))
		r.live.print(iv)
		return
	}
	if r.mon != nil {
		r.mon.Tick(iv.End) // first: the monitor samples as close to the boundary as it can
	}
	r.failed(r.w.Interval(iv))
	for _, c := range r.slas {
		c.check.Interval(iv.Ops[c.op].Hist)
	}
	r.seconds = append(r.seconds, measure.Second{T: r.w.TSec(iv.End), Seconds: iv.Seconds(),
		Rate: iv.PerSec(r.plan.Main), MaxLatency: iv.MaxLatency()})
	r.live.print(iv)
}

// summary is the step's summary.json from the runner's result (figures, faults, SLAs, stalls),
// printed as the step's result.
func (r *stepRun) summary(res runner.Result) archive.Step {
	plan := r.plan
	sum, warnings := summarize(r.name, plan, res)
	r.s.recordFaults(r.name, &sum, res)
	for _, c := range r.slas {
		sum.SLAs = append(sum.SLAs, c.check.Result(&res.Total.Ops[c.op], sum.Seconds))
	}
	// Stalls are judged only where the main op is a stream of operations (10 a second or more):
	// an index build or a settle is a few long operations, whose rate and latency say nothing.
	if main := res.Total.Ops[plan.Main]; float64(main.Statements) >= 10*res.End.Sub(res.Start).Seconds() {
		stalls := measure.DetectStalls(secondsUntil(r.seconds, r.w.TSec(mainEnd(plan, res))), measure.DefaultStallRule)
		sum.Stalls = &stalls
	}
	printResult(r.s.Out, sum, opNames(plan.Step.Ops), warnings, r.s.Live == LiveWide)
	return sum
}

// end closes the step's connections and ends its monitor (host figures into sum), and returns
// the step's error so far: the runner's, else a write's, else the close's.
func (r *stepRun) end(res runner.Result, sum *archive.Step) error {
	// The step's connections are closed before the monitor's End: PostgreSQL's backends publish
	// their last second's statistics as they exit, which the last tick's totals wait for.
	closeErr := r.plan.Close()
	if r.mon != nil {
		t0 := time.Now()
		t := totals(r.plan, res, r.seconds)
		t.Stalls = sum.Stalls // the monitor names the counters that moved in each
		h := r.mon.End(r.ctx, t)
		sum.Host = &h
		printHostFigures(r.s.Out, &h, r.s.Live == LiveWide, r.plan.Wait == 0, time.Since(t0))
	}
	switch {
	case res.Err != nil:
		return res.Err
	case r.writeErr != nil:
		return r.writeErr
	case closeErr != nil:
		return fmt.Errorf("closing connections: %w", closeErr)
	}
	return nil
}

// check checks the database after the step; what it finds wrong is the step's error.
func (r *stepRun) check(sum *archive.Step) (took time.Duration, failed bool, err error) {
	fmt.Fprintf(r.s.Out, "   checking the database...\n")
	t0 := time.Now()
	problems, err := r.s.Workload.Verify(r.ctx, r.step)
	took = time.Since(t0)
	switch {
	case errors.Is(err, workload.ErrNothingToCheck):
		fmt.Fprintf(r.s.Out, "   check: none (%v)\n", err)
		return took, false, nil
	case err != nil:
		return took, true, fmt.Errorf("checking the database: %w", err)
	case len(problems) > 0:
		sum.Problems = problems
		return took, true, fmt.Errorf("the database does not hold what the client wrote:\n  %s", strings.Join(problems, "\n  "))
	}
	sum.Verified = true
	return took, false, nil
}

// record writes the step's end into its summary.json and run.json; a write that fails is the
// step's error when it has none.
func (r *stepRun) record(sum *archive.Step, stepErr error) error {
	if stepErr != nil {
		sum.Complete = false
		sum.Error = stepErr.Error()
		if u := unreachable(r.name, stepErr); u != nil {
			sum.Error = u.Error() // the one sentence, not the worker that saw it first
		}
		if r.ctx.Err() != nil {
			sum.Error = interrupted(r.ctx).Error()
		}
	}
	if err := r.w.Finish(*sum); err != nil && stepErr == nil {
		stepErr = err // Finish wrote summary.json as not complete (e.g. a full disk)
		sum.Complete, sum.Error = false, err.Error()
	}
	r.s.Dir.Meta.Steps[r.status].Complete = sum.Complete
	if err := r.s.Dir.WriteMeta(); err != nil && stepErr == nil {
		stepErr = err
	}
	return stepErr
}

// result is the step's error as the run reports it: an interrupt, the one sentence of a target
// that stayed away, or the step's failure.
func (r *stepRun) result(stepErr error) error {
	switch {
	case r.ctx.Err() != nil:
		return interrupted(r.ctx)
	case stepErr != nil:
		if u := unreachable(r.name, stepErr); u != nil {
			return u
		}
		return fmt.Errorf("step %s failed: %w", r.name, stepErr)
	}
	return nil
}

// Package session runs a workload's steps one after the other: each through the runner, into
// the run directory, with a live line a second, an end-of-step summary and a check of the
// database. A failed or interrupted step ends the run; every finished step stays in the archive.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// Session is one run of one workload on one target.
type Session struct {
	Workload workload.Workload
	Dir      *archive.Dir
	Out      io.Writer // live lines and summaries
	Verify   bool      // check the database after each step
	Tick     time.Duration
	// Live is how progress is printed while a step runs (LiveCompact if empty); ReportEvery how
	// often (every interval if 0 or up to 1s).
	Live        Live
	ReportEvery time.Duration
	Monitor     *monitor.Monitor // samples host and DBMS each interval; nil for none
	// SLAs are response-time goals, judged in every step that has their op type.
	SLAs []measure.SLA
	// FaultTimeout is how long a step goes on without its target, its clients redialing, before
	// it ends (--fault-timeout); 0 ends it at the first lost connection.
	FaultTimeout time.Duration
	// Warmup, if set, runs each step's clients that long first, archived as the step
	// NAME-warmup and left out of the step's figures (warmup.go).
	Warmup time.Duration
	// StepProcs, if set, sizes the Go processors for a step of n callers (its workers and its
	// pools' workers) and returns what undoes it (clientprocs.ForCallers).
	StepProcs func(callers int) (undo func())

	done []stepLine // the steps run so far, for the closing summary
}

// ErrInterrupted is returned when the run was cancelled (Ctrl-C). A context cancelled with a
// cause that wraps it (e.g. "interrupted: standard output was closed") gives that cause instead,
// in the returned error and in run.json and summary.json.
var ErrInterrupted = errors.New("interrupted")

// interrupted is ErrInterrupted, or the context's cause when that wraps it.
func interrupted(ctx context.Context) error {
	if c := context.Cause(ctx); errors.Is(c, ErrInterrupted) {
		return c
	}
	return ErrInterrupted
}

// Run runs every step and records the outcome in run.json.
func (s *Session) Run(ctx context.Context) error {
	return s.Finish(s.run(ctx))
}

// finish writes the run's end into run.json.
func (s *Session) finish(err error) error {
	meta := &s.Dir.Meta
	meta.End = time.Now()
	meta.Complete = err == nil
	if err != nil {
		meta.Error = err.Error()
	}
	if werr := s.Dir.WriteMeta(); werr != nil && err == nil {
		err = werr
	}
	return err
}

func (s *Session) run(ctx context.Context) error {
	if err := workload.CheckWarmup(s.Workload, s.Warmup); err != nil {
		return err
	}
	for _, step := range s.Workload.Steps() {
		if ctx.Err() != nil {
			return interrupted(ctx)
		}
		if _, err := s.step(ctx, step, step); err != nil {
			return err
		}
	}
	return nil
}

// Step runs one of the workload's steps, archived under the name as (e.g. a search's probe
// "qr100-r2000" of step qr100), and returns its summary. A caller that runs steps one by one
// (a search) ends with Finish.
func (s *Session) Step(ctx context.Context, step, as string) (archive.Step, error) {
	return s.step(ctx, step, as)
}

// Finish records a run made of Step calls as ended, with its error, and prints the closing
// summary.
func (s *Session) Finish(err error) error {
	printClosing(s.Out, s.Dir.Meta.Name, s.done)
	return s.finish(err)
}

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
	var warm *warming
	if s.Warmup > 0 {
		if warm, err = s.startWarmup(ctx, name, plan); err != nil {
			plan.Close()
			return archive.Step{}, err
		}
	}
	var w *archive.StepWriter
	var mon *monitor.Step
	status := -1 // the step's index in run.json's steps
	if warm == nil {
		if w, mon, status, err = s.open(ctx, name, plan, time.Now()); err != nil {
			plan.Close()
			return archive.Step{}, err
		}
	}
	ref, _ := s.Workload.(workload.ReferenceLines) // its reference's own lines, if any
	live := newLive(s.Out, s.Live, s.ReportEvery, name, plan, ref)
	type slaCheck struct {
		op    measure.Op
		check *measure.SLACheck
	}
	var slas []slaCheck
	for _, sla := range s.SLAs {
		for o, op := range plan.Step.Ops {
			if op.Name == sla.Op {
				slas = append(slas, slaCheck{measure.Op(o), &measure.SLACheck{SLA: sla}})
			}
		}
	}
	var writeErr error
	var seconds []measure.Second // for stall detection and the monitor's p50/p99 of rates
	plan.Step.Tick = s.Tick
	if plan.Step.Classify == nil {
		plan.Step.Classify = driver.ErrorKind // error kinds in summary.json; drivers stay out of runner
	}
	if plan.Step.FaultTimeout = s.FaultTimeout; s.FaultTimeout > 0 && s.Dir.Meta.Settings != nil {
		s.Dir.Meta.Settings["fault_timeout"] = s.FaultTimeout.String() // faults.go
	}
	if mon != nil {
		plan.Step.Begin = func(start time.Time) { mon.Start(ctx, start) }
	}
	if warm != nil {
		plan.Step.Warmup, plan.Step.WarmupMark = s.Warmup, plan.WarmupEnd
		plan.Step.WarmupEnd = func(res runner.Result) {
			if werr := warm.end(res); werr != nil && writeErr == nil {
				writeErr = werr
			}
			fmt.Fprintf(s.Out, "   warm-up done: %.1fs, %d operations, archived as %s; the step's figures start now\n",
				res.End.Sub(res.Start).Seconds(), statements(res.Total), warm.name)
			if w, mon, status, err = s.open(ctx, name, plan, res.End); err != nil && writeErr == nil {
				writeErr = err
			} else if mon != nil {
				mon.Start(ctx, res.End)
			}
		}
	}
	plan.Step.Interval = func(iv *measure.Interval) {
		if warm != nil && w == nil { // in the warm-up: its own files, and no more
			if err := warm.w.Interval(iv); err != nil && writeErr == nil {
				writeErr = err
			}
			live.print(iv)
			return
		}
		if mon != nil {
			mon.Tick(iv.End) // first: the monitor samples as close to the boundary as it can
		}
		if err := w.Interval(iv); err != nil && writeErr == nil {
			writeErr = err
		}
		for _, c := range slas {
			c.check.Interval(iv.Ops[c.op].Hist)
		}
		seconds = append(seconds, measure.Second{T: w.TSec(iv.End), Seconds: iv.Seconds(), Rate: iv.PerSec(plan.Main), MaxLatency: iv.MaxLatency()})
		live.print(iv)
	}
	res := runner.Run(ctx, plan.Step)
	live.finish()
	if w == nil { // it ended in its warm-up, or its files could not be opened after it
		return s.failedInWarmup(ctx, name, plan, warm, res, writeErr)
	}

	sum, warnings := summarize(name, plan, res)
	s.recordFaults(name, &sum, res)
	for _, c := range slas {
		sum.SLAs = append(sum.SLAs, c.check.Result(&res.Total.Ops[c.op], sum.Seconds))
	}
	// Stalls are judged only where the main op is a stream of operations (10 a second or more):
	// an index build or a settle is a few long operations, whose rate and latency say nothing.
	if main := res.Total.Ops[plan.Main]; float64(main.Statements) >= 10*res.End.Sub(res.Start).Seconds() {
		stalls := measure.DetectStalls(secondsUntil(seconds, w.TSec(mainEnd(plan, res))), measure.DefaultStallRule)
		sum.Stalls = &stalls
	}
	wide := s.Live == LiveWide
	printResult(s.Out, sum, opNames(plan.Step.Ops), warnings, wide)
	// The step's connections are closed before the monitor's End: PostgreSQL's backends publish
	// their last second's statistics as they exit, which the last tick's totals wait for.
	closeErr := plan.Close()
	if mon != nil {
		t0 := time.Now()
		t := totals(plan, res, seconds)
		t.Stalls = sum.Stalls // the monitor names the counters that moved in each
		h := mon.End(ctx, t)
		sum.Host = &h
		printHostFigures(s.Out, &h, wide, plan.Wait == 0, time.Since(t0))
	}
	stepErr := res.Err
	if stepErr == nil {
		stepErr = writeErr
	}
	if stepErr == nil && closeErr != nil {
		stepErr = fmt.Errorf("closing connections: %w", closeErr)
	}
	var checkTook time.Duration
	checkFailed := false
	if stepErr == nil && s.Verify {
		fmt.Fprintf(s.Out, "   checking the database...\n")
		t0 := time.Now()
		problems, err := s.Workload.Verify(ctx, step)
		checkTook = time.Since(t0)
		switch {
		case errors.Is(err, workload.ErrNothingToCheck):
			fmt.Fprintf(s.Out, "   check: none (%v)\n", err)
		case err != nil:
			stepErr, checkFailed = fmt.Errorf("checking the database: %w", err), true
		case len(problems) > 0:
			sum.Problems, checkFailed = problems, true
			stepErr = fmt.Errorf("the database does not hold what the client wrote:\n  %s", strings.Join(problems, "\n  "))
		default:
			sum.Verified = true
		}
	}
	if stepErr != nil {
		sum.Complete = false
		sum.Error = stepErr.Error()
		if u := unreachable(name, stepErr); u != nil {
			sum.Error = u.Error() // the one sentence, not the worker that saw it first
		}
		if ctx.Err() != nil {
			sum.Error = interrupted(ctx).Error()
		}
	}
	if err := w.Finish(sum); err != nil && stepErr == nil {
		stepErr = err // Finish wrote summary.json as not complete (e.g. a full disk)
		sum.Complete, sum.Error = false, err.Error()
	}
	meta := &s.Dir.Meta
	meta.Steps[status].Complete = sum.Complete
	if err := s.Dir.WriteMeta(); err != nil && stepErr == nil {
		stepErr = err
	}
	printCheck(s.Out, sum, checkTook)
	s.done = append(s.done, stepLine{sum: sum, main: plan.Step.Ops[plan.Main], checkFailed: checkFailed})
	switch {
	case ctx.Err() != nil:
		return sum, interrupted(ctx)
	case stepErr != nil:
		if u := unreachable(name, stepErr); u != nil {
			return sum, u
		}
		return sum, fmt.Errorf("step %s failed: %w", name, stepErr)
	}
	return sum, nil
}

// summarize turns a runner result into the step's summary.json, and the workload's warnings.
func summarize(name string, plan *workload.StepPlan, res runner.Result) (archive.Step, []string) {
	secs := res.End.Sub(res.Start).Seconds()
	sum := archive.Step{
		Step: name, Complete: res.Complete, Start: res.Start, End: res.End,
		Seconds:            measure.Round(secs, 3),
		Ops:                map[string]measure.OpSummary{},
		ClientCPUSec:       measure.Round(res.CPU.Total().Seconds(), 3),
		ClientCPUUserSec:   measure.Round(res.CPU.User.Seconds(), 3),
		ClientCPUSystemSec: measure.Round(res.CPU.System.Seconds(), 3),
		Dropped:            res.Dropped,
		OpenLoop:           measure.SummarizeOpenLoop(res.Streams, secs),
	}
	for o, op := range plan.Step.Ops {
		a := &res.Total.Ops[o]
		sum.Ops[op.Name] = measure.Summarize(a, secs)
		sum.Errors += a.Errors
	}
	if end := mainEnd(plan, res); end.Before(res.End) { // the main op's rate is over its own seconds
		sum.Ops[plan.Step.Ops[plan.Main].Name] = measure.Summarize(&res.Total.Ops[plan.Main], end.Sub(res.Start).Seconds())
	}
	if units := perOpUnits(plan, res); units > 0 {
		sum.ClientCPUUsPerOp = measure.Round(float64(res.CPU.Total().Microseconds())/float64(units), 3)
	}
	var warnings []string
	if plan.Extra != nil {
		sum.Workload, warnings = plan.Extra(res)
	}
	return sum, warnings
}

// mainEnd is when the step's main op stopped: the plan's MainEnd when it is inside the step,
// else the step's end.
func mainEnd(plan *workload.StepPlan, res runner.Result) time.Time {
	if plan.MainEnd != nil {
		if e := plan.MainEnd(); e.After(res.Start) && e.Before(res.End) {
			return e
		}
	}
	return res.End
}

// secondsUntil are the seconds that ended by t_sec end: a second after the main op stopped (a
// compaction wait's) has no main-op rate to judge, and is no stall of it.
func secondsUntil(seconds []measure.Second, end float64) []measure.Second {
	n := 0
	for n < len(seconds) && seconds[n].T <= end {
		n++
	}
	return seconds[:n]
}

// perOpUnits are what per-operation costs divide by: the units of the plan's PerOp op types,
// or of its main op type.
func perOpUnits(plan *workload.StepPlan, res runner.Result) int64 {
	if len(plan.PerOp) == 0 {
		return res.Total.Ops[plan.Main].Units
	}
	var n int64
	for _, o := range plan.PerOp {
		n += res.Total.Ops[o].Units
	}
	return n
}

// opNames are the names of a step's op types, in order.
func opNames(ops []measure.OpType) []string {
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.Name
	}
	return names
}

// totals are what the monitor divides by; the per-second rates are those of full-length
// intervals (the last, partial one is too noisy).
func totals(plan *workload.StepPlan, res runner.Result, seconds []measure.Second) monitor.Totals {
	var rates []float64
	for _, s := range seconds {
		if s.Seconds >= 0.5 {
			rates = append(rates, s.Rate)
		}
	}
	units := func(o measure.Op) float64 {
		if o == workload.None {
			return 0
		}
		return float64(res.Total.Ops[o].Units)
	}
	return monitor.Totals{Writes: units(plan.Write), Reads: units(plan.Read), MainOps: float64(perOpUnits(plan, res)), Rates: rates,
		Wakeups: monitor.Wakeups{Paced: res.Lag.Paced, Late: res.Lag.Late, Max: res.Lag.Max, LateAfter: runner.LateWakeup},
		MaxOpUs: measure.Micros(res.Total.Ops[plan.Main].Hist.Max())}
}

// callers are the goroutines of a step that call the target: its workers and its pools'.
func callers(st runner.Step) int {
	n := len(st.Workers)
	for _, p := range st.Pools {
		n += len(p.Do)
	}
	return n
}

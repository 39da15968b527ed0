// Package session runs a workload's steps one after the other: each through the runner, into
// the run directory, with a live line a second, an end-of-step summary and a check of the
// database. A failed or interrupted step ends the run; every finished step stays in the archive.
package session

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
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
	// LockOSThreads keeps every step's workers each on one OS thread (runner.Step.LockOSThreads),
	// for an engine called through cgo or clients that wait in the kernel; CgoYield, for the
	// first, makes them yield now and then (runner.Step.CgoYield).
	LockOSThreads, CgoYield bool

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

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
	Monitor  *monitor.Monitor // samples host and DBMS each interval; nil for none
}

// ErrInterrupted is returned when the run was cancelled (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// Run runs every step and records the outcome in run.json.
func (s *Session) Run(ctx context.Context) error {
	err := s.run(ctx)
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
	for _, step := range s.Workload.Steps() {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if err := s.step(ctx, step); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) step(ctx context.Context, name string) error {
	plan, err := s.Workload.Plan(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return fmt.Errorf("step %s: %w", name, err)
	}
	meta := &s.Dir.Meta
	meta.Steps = append(meta.Steps, archive.StepStatus{Name: name, Dir: name})
	status := &meta.Steps[len(meta.Steps)-1]
	if err := s.Dir.WriteMeta(); err != nil {
		plan.Close()
		return err
	}
	w, err := s.Dir.StartStep(name, plan.Step.Ops, time.Now())
	if err != nil {
		plan.Close()
		return err
	}
	live := newLiveLine(s.Out, name, plan)
	var mon *monitor.Step
	if s.Monitor != nil {
		if mon, err = s.Monitor.Begin(ctx, w); err != nil {
			fmt.Fprintf(s.Out, "   monitor: %v (the step runs without it)\n", err)
		}
	}
	var writeErr error
	var seconds []measure.Second // for stall detection and the monitor's p50/p99 of rates
	plan.Step.Tick = s.Tick
	plan.Step.Interval = func(iv *measure.Interval) {
		if err := w.Interval(iv); err != nil && writeErr == nil {
			writeErr = err
		}
		if mon != nil {
			mon.Sample(ctx, iv.End)
		}
		var worst int64
		for _, o := range iv.Ops {
			if o != nil {
				worst = max(worst, o.Hist.Max())
			}
		}
		seconds = append(seconds, measure.Second{T: w.TSec(iv.End), Seconds: iv.Seconds(), Rate: iv.PerSec(plan.PerOp), MaxLatency: time.Duration(worst)})
		live.print(iv)
	}
	res := runner.Run(ctx, plan.Step)

	sum := summarize(name, plan, res)
	// Stalls are judged only where the main op is a stream of operations (10 a second or more):
	// an index build or a settle is a few long operations, whose rate and latency say nothing.
	if main := res.Total.Ops[plan.PerOp]; main != nil && float64(main.Statements) >= 10*res.End.Sub(res.Start).Seconds() {
		stalls := measure.DetectStalls(seconds, measure.DefaultStallRule)
		sum.Stalls = &stalls
	}
	if mon != nil {
		h := mon.End(ctx, totals(plan, res, seconds))
		sum.Host = &h
	}
	closeErr := plan.Close()
	stepErr := res.Err
	if stepErr == nil {
		stepErr = writeErr
	}
	if stepErr == nil && closeErr != nil {
		stepErr = fmt.Errorf("closing connections: %w", closeErr)
	}
	if stepErr == nil && s.Verify {
		problems, err := s.Workload.Verify(ctx, name)
		switch {
		case err != nil:
			stepErr = fmt.Errorf("checking the database: %w", err)
		case len(problems) > 0:
			sum.Problems = problems
			stepErr = fmt.Errorf("the database does not hold what the client wrote:\n  %s", strings.Join(problems, "\n  "))
		default:
			sum.Verified = true
		}
	}
	if stepErr != nil {
		sum.Complete = false
		sum.Error = stepErr.Error()
		if ctx.Err() != nil {
			sum.Error = ErrInterrupted.Error()
		}
	}
	if err := w.Finish(sum); err != nil && stepErr == nil {
		stepErr = err
	}
	status.Complete = sum.Complete
	if err := s.Dir.WriteMeta(); err != nil && stepErr == nil {
		stepErr = err
	}
	printSummary(s.Out, sum)
	switch {
	case ctx.Err() != nil:
		return ErrInterrupted
	case stepErr != nil:
		return fmt.Errorf("step %s failed: %w", name, stepErr)
	}
	return nil
}

// summarize turns a runner result into the step's summary.json.
func summarize(name string, plan *workload.StepPlan, res runner.Result) archive.Step {
	secs := res.End.Sub(res.Start).Seconds()
	sum := archive.Step{
		Step: name, Complete: res.Complete, Start: res.Start, End: res.End,
		Seconds:            round3(secs),
		Ops:                map[string]measure.OpSummary{},
		ClientCPUSec:       round3(res.CPU.Total().Seconds()),
		ClientCPUUserSec:   round3(res.CPU.User.Seconds()),
		ClientCPUSystemSec: round3(res.CPU.System.Seconds()),
	}
	for _, o := range plan.Step.Ops {
		a := res.Total.Ops[o]
		sum.Ops[o.String()] = measure.Summarize(a, secs)
		sum.Errors += a.Errors
	}
	if units := res.Total.Ops[plan.PerOp]; units != nil && units.Units > 0 {
		sum.ClientCPUUsPerOp = round3(float64(res.CPU.Total().Microseconds()) / float64(units.Units))
	}
	if plan.Extra != nil {
		sum.Workload = plan.Extra(res)
	}
	return sum
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

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
		if a := res.Total.Ops[o]; a != nil {
			return float64(a.Units)
		}
		return 0
	}
	t := monitor.Totals{Inserts: units(measure.Insert), Queries: units(measure.Query), MainOps: units(plan.PerOp), Rates: rates, Lag: res.Lag}
	if a := res.Total.Ops[plan.PerOp]; a != nil {
		t.MaxOpUs = measure.Micros(a.Hist.Max())
	}
	return t
}

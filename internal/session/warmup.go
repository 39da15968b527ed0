package session

import (
	"context"
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// WarmupSuffix names a step's warm-up in the archive: step qr100's is the step directory
// qr100-warmup, as a search's trials name theirs, so that summary, compare, report and merge
// read it as any step and the step's own directory holds only what was measured.
const WarmupSuffix = "-warmup"

// warming is a step's warm-up while it runs: its own step directory, which the runner's
// intervals go to until it ends.
type warming struct {
	s      *Session
	name   string // the warm-up's step name, STEP-warmup
	plan   *workload.StepPlan
	w      *archive.StepWriter
	status int // its index in run.json's steps
	done   bool
}

// startWarmup opens the warm-up's directory and lists it in run.json.
func (s *Session) startWarmup(ctx context.Context, step string, plan *workload.StepPlan) (*warming, error) {
	if _, ok := s.Workload.(workload.Warmable); !ok {
		return nil, fmt.Errorf("step %s: --warmup: this workload has no timed steps to warm up", step)
	}
	wm := &warming{s: s, name: step + WarmupSuffix, plan: plan}
	meta := &s.Dir.Meta
	meta.Steps = append(meta.Steps, archive.StepStatus{Name: wm.name, Dir: wm.name})
	wm.status = len(meta.Steps) - 1
	if err := s.Dir.WriteMeta(); err != nil {
		return nil, err
	}
	var err error
	wm.w, err = s.Dir.StartStepOpen(wm.name, plan.Step.Ops, time.Now(), plan.Step.OpenLoop)
	return wm, err
}

// end writes the warm-up's summary.json from the runner's figures of it. It has no host
// figures (the monitor watches the measured part) and no workload figures (a workload's
// figures are its whole step's).
func (wm *warming) end(res runner.Result) error {
	if wm.done {
		return nil
	}
	wm.done = true
	p := *wm.plan
	p.Extra, p.MainEnd = nil, nil
	sum, _ := summarize(wm.name, &p, res)
	sum.Workload = map[string]any{"warmup_of": wm.plan.Step.Name}
	err := wm.w.Finish(sum)
	wm.s.Dir.Meta.Steps[wm.status].Complete = sum.Complete && err == nil
	if werr := wm.s.Dir.WriteMeta(); err == nil {
		err = werr
	}
	return err
}

// open lists a step in run.json and opens its files and its monitor, from start.
func (s *Session) open(ctx context.Context, name string, plan *workload.StepPlan, start time.Time) (*archive.StepWriter, *monitor.Step, int, error) {
	meta := &s.Dir.Meta
	meta.Steps = append(meta.Steps, archive.StepStatus{Name: name, Dir: name})
	status := len(meta.Steps) - 1
	if err := s.Dir.WriteMeta(); err != nil {
		return nil, nil, status, err
	}
	w, err := s.Dir.StartStepOpen(name, plan.Step.Ops, start, plan.Step.OpenLoop)
	if err != nil {
		return nil, nil, status, err
	}
	var mon *monitor.Step
	if s.Monitor != nil {
		if mon, err = s.Monitor.Begin(ctx, w); err != nil {
			fmt.Fprintf(s.Out, "   monitor: %v (the step runs without it)\n", err)
		}
	}
	return w, mon, status, nil
}

// failedInWarmup ends a step that stopped before its warm-up did (a failure, Ctrl-C, or its
// files after the warm-up could not be opened): the warm-up's directory keeps what ran.
func (s *Session) failedInWarmup(ctx context.Context, name string, plan *workload.StepPlan, wm *warming, res runner.Result, writeErr error) (archive.Step, error) {
	if res.InWarmup {
		wm.end(res)
	}
	closeErr := plan.Close()
	err := res.Err
	for _, e := range []error{writeErr, closeErr} {
		if err == nil {
			err = e
		}
	}
	if err == nil {
		err = fmt.Errorf("it ended during its --warmup of %s: a step of fixed work cannot be warmed up", s.Warmup)
	}
	if ctx.Err() != nil {
		return archive.Step{}, interrupted(ctx)
	}
	return archive.Step{}, fmt.Errorf("step %s failed: %w", name, err)
}

// statements are an interval's operations of every op type.
func statements(iv *measure.Interval) int64 {
	var n int64
	for i := range iv.Ops {
		n += iv.Ops[i].Statements
	}
	return n
}

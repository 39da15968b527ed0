package session

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// timed is a workload of one timed step whose client counts its own operations for a figure,
// setting its count aside when the warm-up ends, as the workloads do; limit > 0 makes the step
// a fixed amount of work instead.
type timed struct {
	script
	limit int64
}

func (w *timed) WarmUp(step string, _ time.Duration) error {
	if w.limit > 0 {
		return errors.New("step " + step + " is work of a fixed size")
	}
	return nil
}

func (w *timed) Plan(_ context.Context, step string) (*workload.StepPlan, error) {
	var mark workload.Mark
	var n, aside int64
	var seen bool
	p := &workload.StepPlan{Step: runner.Step{Ops: scriptOps, Duration: 300 * time.Millisecond,
		Workers: []runner.Worker{{Name: "worker", Primary: true, Schedule: runner.ClosedLoop{Limit: w.limit},
			Do: runner.Single(0, func(context.Context, int) (int64, error) {
				if mark.Passed(&seen) {
					aside = n
				}
				n++
				time.Sleep(2 * time.Millisecond)
				return 1, nil
			})}}},
		Write: workload.None, Read: workload.None, Close: func() error { return nil }, WarmupEnd: mark.End}
	p.Extra = func(runner.Result) (map[string]any, []string) {
		if mark.Passed(&seen) {
			aside = n
		}
		return map[string]any{"ops": float64(n - aside)}, nil
	}
	return p, nil
}

func runTimed(t *testing.T, w workload.Workload, warmup time.Duration) (error, archive.Run, []archive.Step, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run")
	d, err := archive.Create(path, archive.Run{Name: "run", Figures: w.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	runErr := (&Session{Workload: w, Dir: d, Out: &out, Verify: true, Tick: 50 * time.Millisecond, Warmup: warmup}).Run(context.Background())
	meta, steps, err := archive.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return runErr, meta, steps, out.String()
}

// TestWarmupStep: the warm-up is the step NAME-warmup before the step; the step's counts, its
// intervals and the workload's own figure start after it.
func TestWarmupStep(t *testing.T) {
	err, meta, steps, out := runTimed(t, &timed{script: script{steps: []string{"t"}}}, 200*time.Millisecond)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(meta.Steps) != 2 || meta.Steps[0].Name != "t-warmup" || meta.Steps[1].Name != "t" || len(steps) != 2 {
		t.Fatalf("run.json's steps %+v; want t-warmup, t", meta.Steps)
	}
	warm, step := steps[0], steps[1]
	if warm.Ops["op"].Count == 0 || step.Ops["op"].Count == 0 || !step.Start.Equal(warm.End) || !step.Verified {
		t.Errorf("warm-up %d ops to %v, step %d ops from %v, verified %v", warm.Ops["op"].Count, warm.End, step.Ops["op"].Count, step.Start, step.Verified)
	}
	// The client sets its count aside at its first operation after the cut, which comes after
	// the runner's: an operation under way at the cut (more, on a busy machine) is the runner's
	// step's and the client's warm-up's, never the other way round. Without the mark the figure
	// would hold the warm-up's operations too, more than the step's.
	if got, _ := step.Workload["ops"].(float64); int64(got) > step.Ops["op"].Count || int64(got) < step.Ops["op"].Count/2 {
		t.Errorf("the workload's figure counts %v operations, the step %d", got, step.Ops["op"].Count)
	}
	if !strings.Contains(out, "warm-up done") {
		t.Errorf("no line at the warm-up's end:\n%s", out)
	}
}

// TestWarmupRefusedOrCut: a workload without timed steps refuses a warm-up before anything
// runs; a step whose work ends within its warm-up fails, its warm-up's directory keeping it.
func TestWarmupRefusedOrCut(t *testing.T) {
	if err, meta, _, _ := runTimed(t, &script{steps: []string{"s"}}, time.Second); err == nil || !strings.Contains(err.Error(), "--warmup") || len(meta.Steps) != 0 {
		t.Errorf("a workload without timed steps: %v, steps %+v", err, meta.Steps)
	}
	w := &timed{script: script{steps: []string{"t"}}, limit: 5}
	if err := workload.CheckWarmup(w, time.Second); err == nil || !strings.Contains(err.Error(), "fixed size") {
		t.Errorf("a step of fixed work: %v", err)
	}
	err, meta, steps, _ := runTimed(t, &cutShort{&timed{script: script{steps: []string{"t"}}}}, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "ended during its --warmup") || len(meta.Steps) != 1 || len(steps) != 1 || steps[0].Ops["op"].Count != 3 {
		t.Errorf("a step that ended in its warm-up: %v, steps %+v", err, meta.Steps)
	}
}

// cutShort is a timed workload whose worker stops after 3 operations: it claims a timed step
// and ends within its warm-up.
type cutShort struct{ *timed }

func (c *cutShort) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	p, err := c.timed.Plan(ctx, step)
	if err == nil {
		p.Step.Workers[0].Schedule = runner.ClosedLoop{Limit: 3}
	}
	return p, err
}

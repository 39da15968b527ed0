package session

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/clientprocs"
	"github.com/dbperf/dbperf/internal/workload"
)

// TestStepProcs: a step runs with the processors StepProcs sets for its callers, and they are
// given back when it ends.
func TestStepProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	w := &timed{script: script{steps: []string{"t"}}}
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Figures: w.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	var during int
	s := &Session{Workload: w, Dir: d, Out: &bytes.Buffer{}, Verify: true, Tick: 50 * time.Millisecond,
		StepProcs: func(n int) func() {
			got = append(got, n)
			undo := clientprocs.ForCallers(n)
			during = runtime.GOMAXPROCS(0)
			return undo
		}}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 1 { // timed has one worker
		t.Errorf("StepProcs called with %v, want [1]", got)
	}
	if during != before+1 || runtime.GOMAXPROCS(0) != before {
		t.Errorf("GOMAXPROCS %d during the step, %d after; want %d, %d", during, runtime.GOMAXPROCS(0), before+1, before)
	}
}

// TestLockOSThreads: a session for an engine called through cgo runs every step's workers each
// on one OS thread (the runner's own test checks the locking; this one the wiring).
func TestLockOSThreads(t *testing.T) {
	w := &threads{script: script{steps: []string{"a", "b"}}}
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Figures: w.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{Workload: w, Dir: d, Out: &bytes.Buffer{}, LockOSThreads: true}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(w.locked) != 2 || !w.locked[0] || !w.locked[1] {
		t.Errorf("steps ran with LockOSThreads %v, want [true true]", w.locked)
	}
}

// threads is a workload that records each step's LockOSThreads as the runner gets it.
type threads struct {
	script
	locked []bool
}

func (w *threads) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	p, err := w.script.Plan(ctx, step)
	if err != nil {
		return nil, err
	}
	p.Step.Begin = func(time.Time) { w.locked = append(w.locked, p.Step.LockOSThreads) }
	return p, nil
}

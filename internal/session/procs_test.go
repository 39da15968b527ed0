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

//go:build linux

package runner_test

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

// TestLockOSThreads: with LockOSThreads each worker runs every operation on one OS thread, even
// across operations that park the goroutine, and no two workers share a thread.
func TestLockOSThreads(t *testing.T) {
	var mu sync.Mutex
	tids := map[int]map[int]bool{} // worker -> the threads its operations ran on
	worker := func(w int) runner.Worker {
		return runner.Worker{Name: "w", Primary: true, Schedule: runner.ClosedLoop{Limit: 50},
			Do: runner.Single(opDelete, func(ctx context.Context, _ int) (int64, error) {
				mu.Lock()
				if tids[w] == nil {
					tids[w] = map[int]bool{}
				}
				tids[w][syscall.Gettid()] = true
				mu.Unlock()
				time.Sleep(100 * time.Microsecond) // parks the goroutine: it may come back elsewhere
				return 1, nil
			})}
	}
	res := runner.Run(t.Context(), runner.Step{Ops: allOps, LockOSThreads: true,
		Workers: []runner.Worker{worker(0), worker(1), worker(2)}})
	if !res.Complete {
		t.Fatal(res.Err)
	}
	seen := map[int]int{}
	for w, ts := range tids {
		if len(ts) != 1 {
			t.Errorf("worker %d ran on %d OS threads, want 1", w, len(ts))
		}
		for tid := range ts {
			if other, ok := seen[tid]; ok {
				t.Errorf("workers %d and %d share thread %d", other, w, tid)
			}
			seen[tid] = w
		}
	}
	if len(tids) != 3 {
		t.Errorf("%d workers ran, want 3", len(tids))
	}
}

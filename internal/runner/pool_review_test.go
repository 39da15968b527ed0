package runner_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

// TestPoolUntilEndsAtStop: a primary pool with a limit and Until 10s, cut short by the step's
// Duration of 1s. The 10 arrivals due before the stop run (10ms each, the last at 0.95s); the
// stop ends the schedule, and with it the wait for Until: the step lasts its Duration, not
// Until (as the old dispatcher's wait for Until ended at the stop).
func TestPoolUntilEndsAtStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Int64
		res := runner.Run(t.Context(), runner.Step{Ops: allOps, Duration: time.Second, Pools: []runner.Pool{{
			Name: "inserter", Primary: true, Limit: 100, Until: 10 * time.Second,
			Arrivals: &runner.Constant{PerSec: 10, Phase: 0.5}, Done: func() { done.Add(1) },
			Do: []runner.DoFunc{runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, 10*time.Millisecond) })},
		}}})
		if !res.Complete {
			t.Fatal(res.Err)
		}
		if n := res.Total.Ops[opInsert].Statements; n != 10 {
			t.Errorf("%d operations, want the 10 due before the stop", n)
		}
		if got := res.End.Sub(res.Start); got != time.Second {
			t.Errorf("step lasted %v, want its Duration, 1s", got)
		}
		if done.Load() != 1 {
			t.Errorf("Done called %d times, want 1", done.Load())
		}
	})
}

package runner_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// bursts are arrivals in bursts of size, every gap from gap on: simultaneous arrivals.
type bursts struct {
	size int
	gap  time.Duration
	n    int
}

func (b *bursts) Next() time.Duration {
	d := time.Duration(1+b.n/b.size) * b.gap
	b.n++
	return d
}

// TestPoolBurstIdleWorkersTakeAll: bursts of 3 simultaneous arrivals every 100ms, 3 idle workers,
// MaxBacklog 1, operations of 10ms. At each burst's instant every worker is idle, so each
// arrival starts at once: none waits, none may be dropped, every latency is 10ms (as the old
// dispatcher did, handing each arrival to a parked worker).
func TestPoolBurstIdleWorkersTakeAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		do := runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, 10*time.Millisecond) })
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Pools: []runner.Pool{{
			Name: "burst", Primary: true, Limit: 9, MaxBacklog: 1, Arrivals: &bursts{size: 3, gap: 100 * time.Millisecond},
			Do: []runner.DoFunc{do, do, do},
		}}})
		if !res.Complete {
			t.Fatal(res.Err)
		}
		if res.Dropped != 0 {
			t.Errorf("dropped %d of 9 arrivals, want 0: 3 idle workers at each burst of 3", res.Dropped)
		}
		want := make([]time.Duration, 9)
		for i := range want {
			want[i] = 10 * time.Millisecond
		}
		assertLatencies(t, &res.Total.Ops[opQuery], want)
	})
}

// TestPoolUntilEndsAtStop: a primary pool with a limit and Until 10s, cut short by the step's
// Duration of 1s. The 10 arrivals due before the stop run (10ms each, the last at 0.95s); the
// stop ends the schedule, and with it the wait for Until: the step lasts its Duration, not
// Until (as the old dispatcher's wait for Until ended at the stop).
func TestPoolUntilEndsAtStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Int64
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Duration: time.Second, Pools: []runner.Pool{{
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

// TestPoolStopCountsArrivalsDueBefore: a non-primary pool of one worker, arrivals at 10/s in the
// middle of their slots (0.05s, 0.15s, ...), operations of 300ms, beside a primary that ends at
// 0.2s. Arrival 0.05s runs; 0.15s comes due while the worker is busy and waits; the stop at 0.2s
// ends the schedule and the pool leaves its backlog when the worker comes back at 0.35s. Both
// arrivals count, and the one left shows in the last interval's backlog (as the old dispatcher
// counted each arrival at its instant). Ending the schedule without advancing it to the stop
// lost the arrival due while every worker was busy.
func TestPoolStopCountsArrivalsDueBefore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var arrivals, backlog int64
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps,
			Interval: func(iv *measure.Interval) { arrivals += iv.Arrivals; backlog = iv.Backlog },
			Workers: []runner.Worker{{Name: "primary", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
				Do: runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, 200*time.Millisecond) })}},
			Pools: []runner.Pool{{Name: "readers", Arrivals: &runner.Constant{PerSec: 10, Phase: 0.5},
				Do: []runner.DoFunc{runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, 300*time.Millisecond) })}}},
		})
		if !res.Complete {
			t.Fatal(res.Err)
		}
		if q := res.Total.Ops[opQuery].Statements; arrivals != 2 || q != 1 || backlog != 1 || res.Dropped != 0 {
			t.Errorf("%d arrivals, %d run, %d left, %d dropped; want the 2 due before the stop at 0.2s, 1 run, 1 left, none dropped",
				arrivals, q, backlog, res.Dropped)
		}
	})
}

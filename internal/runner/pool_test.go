package runner_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

func TestConstantArrivals(t *testing.T) {
	a := &runner.Constant{PerSec: 4}
	for n, want := range []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second} {
		if got := a.Next(); got != want {
			t.Errorf("arrival %d at %v, want %v", n, got, want)
		}
	}
}

func TestConstantArrivalsPhase(t *testing.T) {
	a := &runner.Constant{PerSec: 2, Phase: 0.5}
	for n, want := range []time.Duration{250 * time.Millisecond, 750 * time.Millisecond, 1250 * time.Millisecond} {
		if got := a.Next(); got != want {
			t.Errorf("arrival %d at %v, want %v: the middle of each half-second slot", n, got, want)
		}
	}
}

// TestPoolUntil: 6 arrivals at 2/s in the middle of their slots, held until the schedule's end
// at 3s: every whole second has exactly 2 operations, and the step lasts the schedule.
func TestPoolUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var perSecond []int64
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps,
			Interval: func(iv *measure.Interval) { perSecond = append(perSecond, iv.Ops[opInsert].Statements) },
			Pools: []runner.Pool{{Name: "inserter", Primary: true, Limit: 6, Until: 3 * time.Second,
				Arrivals: &runner.Constant{PerSec: 2, Phase: 0.5},
				Do:       []runner.DoFunc{runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) { return 50, sleep(ctx, 10*time.Millisecond) })}}},
		})
		if !res.Complete {
			t.Fatal(res.Err)
		}
		if got := res.End.Sub(res.Start); got != 3*time.Second {
			t.Errorf("step lasted %v, want the schedule's 3s", got)
		}
		if len(perSecond) < 3 || perSecond[0] != 2 || perSecond[1] != 2 || perSecond[2] != 2 {
			t.Errorf("statements per second %v, want 2 in each of the 3 seconds", perSecond)
		}
	})
}

// TestPoissonArrivals checks the gaps statistically: exponential with mean 1/rate has a standard
// deviation equal to its mean and P(gap > mean) = 1/e. With 100,000 gaps the sample mean's
// standard error is 0.3%: the 2% bounds fail by chance far less than once in a million runs.
func TestPoissonArrivals(t *testing.T) {
	const rate, n = 500.0, 100_000
	a := &runner.Poisson{PerSec: rate, RNG: rand.New(rand.NewPCG(1, 2))}
	prev := a.Next()
	if prev != 0 {
		t.Fatalf("first arrival at %v, want 0", prev)
	}
	var sum, sumSq float64
	longer := 0
	for range n {
		at := a.Next()
		gap := (at - prev).Seconds()
		if gap < 0 {
			t.Fatalf("arrivals out of order: %v after %v", at, prev)
		}
		prev = at
		sum += gap
		sumSq += gap * gap
		if gap > 1/rate {
			longer++
		}
	}
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean*rate-1) > 0.02 {
		t.Errorf("mean gap %.6fs, want %.6fs within 2%%", mean, 1/rate)
	}
	if math.Abs(sd/mean-1) > 0.02 {
		t.Errorf("coefficient of variation %.4f, want 1 within 2%%", sd/mean)
	}
	if p := float64(longer) / n; math.Abs(p-1/math.E) > 0.01 {
		t.Errorf("share of gaps longer than the mean %.4f, want 1/e = %.4f", p, 1/math.E)
	}
}

// TestPoolBlockedWorkerDelaysNothing: 20 arrivals at 10/s served by 2 workers, each operation
// 10ms except the 5th, 450ms. The other worker serves every later arrival on time, so only the
// slow operation's latency grows: a blocked worker neither delays later arrivals nor caps the
// pool below its size.
func TestPoolBlockedWorkerDelaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		do := runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) {
			d := 10 * time.Millisecond
			if n.Add(1) == 5 {
				d = 450 * time.Millisecond
			}
			return 1, sleep(ctx, d)
		})
		var done atomic.Int64
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Pools: []runner.Pool{{
			Name: "queriers", Primary: true, Limit: 20, Arrivals: &runner.Constant{PerSec: 10},
			Do: []runner.DoFunc{do, do}, Done: func() { done.Add(1) },
		}}})
		if !res.Complete {
			t.Fatalf("step failed: %v", res.Err)
		}
		want := make([]time.Duration, 20)
		for i := range want {
			want[i] = 10 * time.Millisecond
		}
		want[4] = 450 * time.Millisecond
		assertLatencies(t, &res.Total.Ops[opQuery], want)
		if res.Dropped != 0 || done.Load() != 1 {
			t.Errorf("dropped %d, Done called %d times; want 0 and 1", res.Dropped, done.Load())
		}
		if got := res.End.Sub(res.Start); got != 1900*time.Millisecond+10*time.Millisecond {
			t.Errorf("step took %v, want 1.91s: the last arrival at 1.9s plus 10ms", got)
		}
	})
}

// TestPoolDropsBeyondBacklog: 10 arrivals at 10/s, one worker whose operations take 1s, at
// most 2 arrivals waiting. Arrival 0 starts at once, 1 and 2 wait, 3 to 9 find the backlog full
// and are dropped: counted, not run late.
func TestPoolDropsBeyondBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var backlog []int64
		var dropped, arrivals int64
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps,
			Interval: func(iv *measure.Interval) {
				backlog = append(backlog, iv.Backlog)
				dropped += iv.Dropped
				arrivals += iv.Arrivals
			},
			Pools: []runner.Pool{{
				Name: "slow", Primary: true, Limit: 10, MaxBacklog: 2, Arrivals: &runner.Constant{PerSec: 10},
				Do: []runner.DoFunc{runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, time.Second) })},
			}},
		})
		if !res.Complete {
			t.Fatalf("step failed: %v", res.Err)
		}
		// Latencies from the arrivals: 1s, then 0.9s waiting + 1s, then 1.8s waiting + 1s.
		assertLatencies(t, &res.Total.Ops[opQuery], []time.Duration{time.Second, 1900 * time.Millisecond, 2800 * time.Millisecond})
		if res.Dropped != 7 || dropped != 7 || arrivals != 10 {
			t.Errorf("dropped %d (intervals: %d), %d arrivals; want 7 of 10", res.Dropped, dropped, arrivals)
		}
		// At the 1s boundary two arrivals wait, or one when the worker took the next at that same
		// instant; none at the end.
		if len(backlog) == 0 || backlog[0] < 1 || backlog[0] > 2 || backlog[len(backlog)-1] != 0 {
			t.Errorf("backlog per interval %v, want 1 or 2 at the first second and 0 at the end", backlog)
		}
	})
}

// TestPoolNonPrimaryStops: a pool without a limit runs until the primary workers are done.
func TestPoolNonPrimaryStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps,
			Workers: []runner.Worker{{Name: "primary", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
				Do: runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, time.Second) })}},
			Pools: []runner.Pool{{Name: "readers", Arrivals: &runner.Constant{PerSec: 100},
				Do: []runner.DoFunc{runner.Single(opQuery, func(context.Context, int) (int64, error) { return 1, nil })}}},
		})
		if !res.Complete {
			t.Fatalf("step failed: %v", res.Err)
		}
		// Arrivals at 0, 10ms, ... 990ms, and perhaps the one due at the instant the primary ends.
		if q := res.Total.Ops[opQuery].Statements; q < 100 || q > 101 {
			t.Errorf("%d queries in the primary's 1s at 100/s, want 100 or 101", q)
		}
	})
}

// TestPoolStopRunsWhatWasDue: a primary pool with a limit, cut short by the step's Duration.
// Arrivals at 10/s in the middle of their slots (0.05s, 0.15s, ...), one worker whose operations
// take 250ms, a 1s step: the 10 arrivals due before the stop all run, the last ones late,
// and none due after the stop is taken, whenever the worker gets to look.
func TestPoolStopRunsWhatWasDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var arrivals int64
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Duration: time.Second,
			Interval: func(iv *measure.Interval) { arrivals += iv.Arrivals },
			Pools: []runner.Pool{{
				Name: "slow", Primary: true, Limit: 100, Arrivals: &runner.Constant{PerSec: 10, Phase: 0.5},
				Do: []runner.DoFunc{runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) {
					return 1, sleep(ctx, 250*time.Millisecond)
				})},
			}},
		})
		if !res.Complete {
			t.Fatalf("step failed: %v", res.Err)
		}
		want := make([]time.Duration, 10) // arrival i, due at 0.05+0.1i, starts at 0.05+0.25i
		for i := range want {
			want[i] = time.Duration(150*i+250) * time.Millisecond
		}
		assertLatencies(t, &res.Total.Ops[opQuery], want)
		if arrivals != 10 || res.Dropped != 0 {
			t.Errorf("%d arrivals, %d dropped; want the 10 due before the stop, none dropped", arrivals, res.Dropped)
		}
		if got := res.End.Sub(res.Start); got != 2550*time.Millisecond {
			t.Errorf("step took %v, want 2.55s: the 10 operations of 250ms from 0.05s", got)
		}
	})
}

// TestClosedLoopTimed: a closed-loop worker with a limit runs to it past the step's Duration,
// unless Timed, when the Duration ends it first (YCSB's operationcount and maxexecutiontime,
// whichever comes first). Operations of 100ms, a limit of 30, a 1s step: 30 operations, or 10 when Timed.
func TestClosedLoopTimed(t *testing.T) {
	for _, timed := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Duration: time.Second,
				Workers: []runner.Worker{{Name: "w", Primary: true, Schedule: runner.ClosedLoop{Limit: 30, Timed: timed},
					Do: runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) {
						// 90 ms, not 100: no operation ends at the deadline's instant, where
						// the worker and the timer would race for which comes first.
						return 1, sleep(ctx, 90*time.Millisecond)
					})}},
			})
			want := int64(30)
			if timed {
				want = 12 // eleven by 990 ms, and the one under way at 1 s
			}
			if got := res.Total.Ops[opQuery].Units; !res.Complete || got != want {
				t.Errorf("timed %v: %d operations (complete %v), want %d", timed, got, res.Complete, want)
			}
		})
	}
}

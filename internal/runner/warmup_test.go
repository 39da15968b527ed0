package runner_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

// A warm-up runs the same workers and the same arrival schedule first: its operations reach
// WarmupEnd and not the step's Result, the step's Duration counts from its end, and an open-loop
// stream's books are split between the two.
func TestWarmupIsLeftOutOfTheStep(t *testing.T) {
	for _, open := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			var calls int64
			do := runner.Single(opQuery, func(context.Context, int) (int64, error) {
				calls++
				time.Sleep(time.Millisecond)
				return 1, nil
			})
			var warm *runner.Result
			marks := 0
			step := runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Duration: 3 * time.Second, Warmup: 2 * time.Second,
				WarmupMark: func() {
					if warm == nil {
						marks++
					}
				},
				WarmupEnd: func(res runner.Result) { warm = &res }}
			if open {
				step.Pools = []runner.Pool{{Name: "querier", Arrivals: &runner.Constant{PerSec: 100}, Do: []runner.DoFunc{do}, Primary: true}}
			} else {
				step.Workers = []runner.Worker{{Name: "querier", Primary: true,
					Schedule: runner.ConstantRate{PerSec: 100}, Do: do}}
			}
			t0 := time.Now()
			res := runner.Run(t.Context(), step)
			if marks != 1 {
				t.Errorf("WarmupMark called %d times before WarmupEnd; want once", marks)
			}
			if !res.Complete || res.InWarmup || warm == nil {
				t.Fatalf("Complete %v, InWarmup %v, warm-up reported %v; want a complete step after its warm-up", res.Complete, res.InWarmup, warm != nil)
			}
			if !warm.Start.Equal(t0) || !warm.End.Equal(t0.Add(2*time.Second)) || !res.Start.Equal(warm.End) {
				t.Errorf("warm-up %v..%v, step from %v; want 0s..2s, step from 2s", warm.Start.Sub(t0), warm.End.Sub(t0), res.Start.Sub(t0))
			}
			if d := res.End.Sub(res.Start); d < 3*time.Second || d > 3*time.Second+50*time.Millisecond {
				t.Errorf("the measured part lasted %v; want the step's Duration, 3s, after the warm-up", d)
			}
			if !open && (res.Lag.Paced < 290 || res.Lag.Paced > 310) { // the paced worker's wake-ups after the warm-up
				t.Errorf("%d paced wake-ups in the step; want about its 300 operations, not the warm-up's too", res.Lag.Paced)
			}
			w, m := warm.Total.Ops[opQuery].Statements, res.Total.Ops[opQuery].Statements
			if w < 190 || m < 290 || w+m != calls {
				t.Errorf("warm-up %d and step %d operations of %d done; want about 200 and 300, adding up", w, m, calls)
			}
			if !open {
				return
			}
			ws, ms := warm.Streams[0], res.Streams[0]
			if ws.Offered+ms.Offered != calls+ms.NotStarted+ms.Unfinished || ms.Offered < 290 || ms.Dropped != 0 || ms.Overloaded {
				t.Errorf("warm-up offered %d, step offered %d (achieved %d, not started %d, overloaded %v) of %d done", ws.Offered, ms.Offered, ms.Achieved, ms.NotStarted, ms.Overloaded, calls)
			}
		})
	}
}

// A step that ends before its warm-up does says so: its figures are all the warm-up's.
func TestStepEndingInWarmup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		called := false
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Warmup: 5 * time.Second,
			WarmupEnd: func(runner.Result) { called = true },
			Workers: []runner.Worker{{Name: "loader", Primary: true, Schedule: runner.ClosedLoop{Limit: 10},
				Do: runner.Single(opInsert, func(context.Context, int) (int64, error) { time.Sleep(time.Millisecond); return 1, nil })}}})
		if !res.InWarmup || called || res.Total.Ops[opInsert].Statements != 10 {
			t.Errorf("InWarmup %v, WarmupEnd called %v, %d statements; want a step that ended in its warm-up with all 10", res.InWarmup, called, res.Total.Ops[opInsert].Statements)
		}
	})
}

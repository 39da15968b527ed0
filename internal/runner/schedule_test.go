package runner_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

func TestOffset(t *testing.T) {
	for _, tt := range []struct {
		name   string
		perSec float64
		n      int64
		want   time.Duration
	}{
		{"10/s, op 0 => 0s", 10, 0, 0},
		{"10/s, op 1 => 100ms", 10, 1, 100 * time.Millisecond},
		{"10/s, op 3 => 300ms", 10, 3, 300 * time.Millisecond},
		{"10/s, op 15 => 1.5s", 10, 15, 1500 * time.Millisecond},
		{"10/s, op 36000 => 1h", 10, 36000, time.Hour},
		{"3/s, op 1 => 333.333333ms", 3, 1, 333333333 * time.Nanosecond},
		{"3/s, op 4 => 1.333333333s", 3, 4, 1333333333 * time.Nanosecond},
		{"3/s, op 3 => 1s", 3, 3, time.Second},
		{"1/s, op 60 => 1m", 1, 60, time.Minute},
		{"0.5/s, op 3 => 6s", 0.5, 3, 6 * time.Second},
		{"4000/s, op 1 => 250µs", 4000, 1, 250 * time.Microsecond},
		{"1e9/s, op 7 => 7ns", 1e9, 7, 7},
		{"2.5/s, op 5 => 2s", 2.5, 5, 2 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := runner.Offset(tt.perSec, tt.n); got != tt.want {
				t.Errorf("Offset(%v, %d) = %v, want %v", tt.perSec, tt.n, got, tt.want)
			}
		})
	}
}

// TestOffsetExact shows that Offset truncates a float quotient that can land 1ns short of an exact
// offset (see the report: computing n*1e9/perSec, or rounding, fixes it).
func TestOffsetExact(t *testing.T) {
	for _, tt := range []struct {
		name   string
		perSec float64
		n      int64
		want   time.Duration
	}{
		{"5/s, op 41 => 8.2s", 5, 41, 8200 * time.Millisecond},
		{"5/s, op 82 => 16.4s", 5, 82, 16400 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := runner.Offset(tt.perSec, tt.n); got != tt.want {
				t.Errorf("Offset(%v, %d) = %v, want %v", tt.perSec, tt.n, got, tt.want)
			}
		})
	}
}

// TestOffsetMonotonic checks that no operation is ever due before the one ahead of it.
func TestOffsetMonotonic(t *testing.T) {
	for _, perSec := range []float64{1, 3, 7, 10, 33.3, 1000, 12345.6} {
		prev := runner.Offset(perSec, 0)
		for n := int64(1); n < 100000; n++ {
			got := runner.Offset(perSec, n)
			if got < prev {
				t.Fatalf("%v/s: op %d is due at %v, before op %d at %v", perSec, n, got, n-1, prev)
			}
			prev = got
		}
	}
}

func TestGatedLatency(t *testing.T) {
	for _, tt := range []struct {
		name      string
		schedule  runner.Schedule
		latencies []time.Duration // of the two operations, each taking 10ms after a 150ms wait
		end       time.Duration
	}{
		{
			name:      "in a closed loop, the wait is not part of the latency",
			schedule:  runner.ClosedLoop{Limit: 2},
			latencies: []time.Duration{10 * time.Millisecond, 10 * time.Millisecond},
			// 150 wait, 10 op, 150 wait, 10 op, then a last 150ms wait before the schedule says
			// it is done: the gate is asked first.
			end: 470 * time.Millisecond,
		},
		{
			name:     "at 10/s, the wait that makes operations late counts from their intended start",
			schedule: runner.ConstantRate{PerSec: 10, Limit: 2},
			// op 0 due at 0, starts at 150ms; op 1 due at 100ms, starts at 160+150 = 310ms.
			latencies: []time.Duration{160 * time.Millisecond, 220 * time.Millisecond},
			end:       470 * time.Millisecond,
		},
		{
			name:     "at 2/s, a wait shorter than the pace costs nothing",
			schedule: runner.ConstantRate{PerSec: 2, Limit: 2},
			// op 0 due at 0, starts at 150ms; op 1 due at 500ms, its wait ends at 310ms.
			latencies: []time.Duration{160 * time.Millisecond, 10 * time.Millisecond},
			end:       660 * time.Millisecond,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				waits := 0
				res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
					Ops: allOps,
					Workers: []runner.Worker{{
						Name: "gated", Primary: true,
						Schedule: runner.Gated{Schedule: tt.schedule, Wait: func(ctx context.Context) bool {
							waits++
							time.Sleep(150 * time.Millisecond)
							return true
						}},
						Do: runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) {
							time.Sleep(10 * time.Millisecond)
							return 1, nil
						}),
					}},
				})
				if !res.Complete || res.Err != nil {
					t.Fatalf("Complete %v, Err %v; want a complete step", res.Complete, res.Err)
				}
				if got := res.End.Sub(res.Start); got != tt.end {
					t.Errorf("step took %v, want %v", got, tt.end)
				}
				assertLatencies(t, &res.Total.Ops[opInsert], tt.latencies)
				// The third call waits, then finds the schedule done: the gate is asked first.
				if waits != 3 {
					t.Errorf("Wait called %d times, want 3", waits)
				}
			})
		})
	}
}

func TestGatedClosed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		inner runner.Schedule
	}{
		{"a closed gate ends a closed loop that has work left", runner.ClosedLoop{Limit: 5}},
		{"a closed gate ends a constant rate that has work left", runner.ConstantRate{PerSec: 1, Limit: 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asked := 0
				g := runner.Gated{Schedule: countingSchedule{tt.inner, &asked}, Wait: func(context.Context) bool { return false }}
				if due, ok := g.Next(t.Context(), runner.Tick{Sleep: runner.CoarseSleep, Start: time.Now()}); ok || !due.IsZero() {
					t.Errorf("Next = %v, %v; want zero time, false", due, ok)
				}
				if asked != 0 {
					t.Errorf("the inner schedule was asked %d times, want 0", asked)
				}
			})
		})
	}
}

type countingSchedule struct {
	runner.Schedule
	n *int
}

func (c countingSchedule) Next(ctx context.Context, t runner.Tick) (time.Time, bool) {
	*c.n++
	return c.Schedule.Next(ctx, t)
}

func TestOnDone(t *testing.T) {
	for _, tt := range []struct {
		name     string
		schedule runner.Schedule
		ops      int64
	}{
		{"a closed loop of 3 ends once, after its 3 ops", runner.ClosedLoop{Limit: 3}, 3},
		{"a constant rate of 4 ends once, after its 4 ops", runner.ConstantRate{PerSec: 100, Limit: 4}, 4},
		{"a gated closed loop of 2 ends once, after its 2 ops", runner.Gated{Schedule: runner.ClosedLoop{Limit: 2}, Wait: func(context.Context) bool { return true }}, 2},
		{"a closed loop of 1 ends once, after its op", runner.ClosedLoop{Limit: 1}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var done int
				var ops, opsAtDone int64
				res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
					Ops: allOps,
					Workers: []runner.Worker{{
						Name: "w", Primary: true,
						Schedule: runner.OnDone{Schedule: tt.schedule, Done: func() { done++; opsAtDone = ops }},
						Do: runner.Single(opInsert, func(context.Context, int) (int64, error) {
							ops++
							time.Sleep(time.Millisecond)
							return 1, nil
						}),
					}},
				})
				if !res.Complete {
					t.Fatalf("step incomplete: %v", res.Err)
				}
				if done != 1 {
					t.Errorf("Done called %d times, want 1", done)
				}
				if opsAtDone != tt.ops || ops != tt.ops {
					t.Errorf("Done called after %d ops, %d in all; want %d", opsAtDone, ops, tt.ops)
				}
			})
		})
	}
}

func TestOnDonePassesThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := 0
		s := runner.OnDone{Schedule: runner.ConstantRate{PerSec: 10, Limit: 2}, Done: func() { done++ }}
		start := time.Now()
		for _, tt := range []struct {
			name string
			n    int64
			due  time.Time
			ok   bool
			done int
		}{
			{"op 0 is due at the start, Done not called", 0, start, true, 0},
			{"op 1 is due 100ms later, Done not called", 1, start.Add(100 * time.Millisecond), true, 0},
			{"after op 1 the schedule ends and Done is called", 2, time.Time{}, false, 1},
		} {
			due, ok := s.Next(t.Context(), runner.Tick{Sleep: runner.CoarseSleep, Start: start, N: tt.n})
			if !due.Equal(tt.due) || ok != tt.ok || done != tt.done {
				t.Errorf("%s: Next = %v, %v with Done called %d times; want %v, %v, %d",
					tt.name, due.Sub(start), ok, done, tt.due.Sub(start), tt.ok, tt.done)
			}
		}
	})
}

// TestConstantRateStopsWhenOverdue: a non-primary ConstantRate without a Limit runs "until Stop",
// but a worker that is behind its rate never looks at Stop (sleepUntil returns at once when the
// operation is overdue), so it keeps running after every primary worker is done.
func TestConstantRateStopsWhenOverdue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var queries int
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
			Ops: allOps,
			Workers: []runner.Worker{
				{Name: "primary", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
					Do: runner.Single(opInsert, func(context.Context, int) (int64, error) { time.Sleep(900 * time.Millisecond); return 1, nil })},
				// 10/s asked, but each query takes 200ms: always overdue.
				{Name: "querier", Schedule: runner.ConstantRate{PerSec: 10},
					Do: runner.Single(opQuery, func(context.Context, int) (int64, error) {
						queries++
						if queries > 100 {
							return 0, errStillRunning
						}
						time.Sleep(200 * time.Millisecond)
						return 1, nil
					})},
			},
		})
		if !res.Complete {
			t.Fatalf("step failed: %v", res.Err)
		}
		// Queries start at 0, 200, ... 800ms; the one running when the primary ends at 900ms is
		// the last.
		if queries != 5 {
			t.Errorf("querier ran %d queries, want 5", queries)
		}
		if got := res.End.Sub(res.Start); got != time.Second {
			t.Errorf("step took %v, want 1s", got)
		}
	})
}

// TestStepSleepIsInjected: a step's paced workers and pools' leaders wait with the step's
// Sleeper (tests in virtual time give CoarseSleep; runs get PreciseSleep), not a global switch.
func TestStepSleepIsInjected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int64 // the paced worker and the pool's leader wait at once
		counting := func(ctx context.Context, due time.Time, stop <-chan struct{}) bool {
			calls.Add(1)
			return runner.CoarseSleep(ctx, due, stop)
		}
		nop := runner.Single(opInsert, func(context.Context, int) (int64, error) { return 1, nil })
		res := runner.Run(t.Context(), runner.Step{Ops: allOps, Sleep: counting, Workers: []runner.Worker{{
			Name: "paced", Primary: true, Schedule: runner.ConstantRate{PerSec: 100, Limit: 10}, Do: nop}},
			Pools: []runner.Pool{{Name: "pool", Primary: true, Limit: 10, Arrivals: &runner.Constant{PerSec: 100},
				Do: []runner.DoFunc{nop}}}})
		if n := res.Total.Ops[opInsert].Statements; n != 20 {
			t.Fatalf("%d operations, want 20", n)
		}
		if n := calls.Load(); n < 15 {
			t.Errorf("the step's Sleeper waited %d times for 20 paced operations", n)
		}
	})
}

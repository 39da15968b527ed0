package runner_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// The op types every test step declares, and their indexes.
var allOps = []measure.OpType{{Name: "insert"}, {Name: "delete"}, {Name: "query"}}

const (
	opInsert measure.Op = iota
	opDelete
	opQuery
)

var (
	errBoom         = errors.New("boom")
	errStillRunning = errors.New("still running long after the primary workers ended")
)

// sleep waits for d or until ctx ends, as a database call would.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// assertLatencies checks that a recorded op row holds exactly the given latencies (as HDR buckets).
func assertLatencies(t *testing.T, a *measure.OpInterval, want []time.Duration) {
	t.Helper()
	if a == nil {
		t.Fatal("no op row")
	}
	h := measure.NewPacked()
	for _, l := range want {
		if err := h.RecordValue(int64(l)); err != nil {
			t.Fatal(err)
		}
	}
	var got, wanted []string
	for from, count := range a.Hist.ForEachBucket {
		got = append(got, fmt.Sprintf("%d×%v", count, time.Duration(from)))
	}
	for from, count := range h.ForEachBucket {
		wanted = append(wanted, fmt.Sprintf("%d×%v", count, time.Duration(from)))
	}
	if !slices.Equal(got, wanted) {
		t.Errorf("latencies recorded: %v; want %v", got, want)
	}
}

func TestConstantRateCatchesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 20 ops at 10/s, each taking 10ms, except op 5 which takes 450ms.
		took := func(n int) time.Duration {
			if n == 5 {
				return 450 * time.Millisecond
			}
			return 10 * time.Millisecond
		}
		var starts []time.Time
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
			Ops: allOps,
			Workers: []runner.Worker{{
				Name: "inserter", Primary: true,
				Schedule: runner.ConstantRate{PerSec: 10, Limit: 20},
				Do: runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) {
					starts = append(starts, time.Now())
					time.Sleep(took(len(starts) - 1))
					return 1, nil
				}),
			}},
		})
		if !res.Complete || res.Err != nil {
			t.Fatalf("Complete %v, Err %v; want a complete step", res.Complete, res.Err)
		}
		if len(starts) != 20 {
			t.Fatalf("%d ops ran, want 20", len(starts))
		}
		if a := res.Total.Ops[opInsert]; a.Statements != 20 || a.Units != 20 || a.Errors != 0 {
			t.Errorf("recorded %d statements, %d units, %d errors; want 20, 20, 0", a.Statements, a.Units, a.Errors)
		}
		// The last op is due at 1.9s and takes 10ms: the slow op 5 did not push it back.
		if got := res.End.Sub(res.Start); got != 1910*time.Millisecond {
			t.Errorf("step took %v, want 1.91s (not 2.35s: the worker catches up)", got)
		}

		latency := func(n int) time.Duration {
			return starts[n].Sub(res.Start) - runner.Offset(10, int64(n)) + took(n)
		}
		for _, tt := range []struct {
			name    string
			n       int
			start   time.Duration
			latency time.Duration
		}{
			{"op 0 starts at once and takes 10ms", 0, 0, 10 * time.Millisecond},
			{"op 4 starts on time at 400ms", 4, 400 * time.Millisecond, 10 * time.Millisecond},
			{"op 5 starts on time at 500ms and takes 450ms", 5, 500 * time.Millisecond, 450 * time.Millisecond},
			{"op 6, due at 600ms, starts when op 5 ends at 950ms: it waited 350ms", 6, 950 * time.Millisecond, 360 * time.Millisecond},
			{"op 7, due at 700ms, starts right after op 6 at 960ms", 7, 960 * time.Millisecond, 270 * time.Millisecond},
			{"op 9, due at 900ms, starts at 980ms, the last one late", 9, 980 * time.Millisecond, 90 * time.Millisecond},
			{"op 10, due at 1s, is on time again: the worker caught up", 10, time.Second, 10 * time.Millisecond},
			{"op 19 starts on time at 1.9s", 19, 1900 * time.Millisecond, 10 * time.Millisecond},
		} {
			if got := starts[tt.n].Sub(res.Start); got != tt.start {
				t.Errorf("%s: started at %v", tt.name, got)
			}
			if got := latency(tt.n); got != tt.latency {
				t.Errorf("%s: latency %v", tt.name, got)
			}
		}
		if got := latency(6); got < 350*time.Millisecond {
			t.Errorf("op 6's latency is %v, want >= 350ms: it waited for op 5", got)
		}

		// What the runner recorded is each op's time from its intended start.
		want := make([]time.Duration, 20)
		for n := range want {
			want[n] = latency(n)
		}
		assertLatencies(t, &res.Total.Ops[opInsert], want)
		if max := res.Total.Ops[opInsert].Hist.Max(); max < int64(450*time.Millisecond) {
			t.Errorf("max latency %v, want >= 450ms", time.Duration(max))
		}
	})
}

func TestClosedLoopLimit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		limits []int64 // one primary worker each, every op taking 1ms and doing 3 units
		ops    int64
		took   time.Duration
	}{
		{"a limit of 7 runs exactly 7 ops, back to back", []int64{7}, 7, 7 * time.Millisecond},
		{"a limit of 1 runs exactly 1 op", []int64{1}, 1, time.Millisecond},
		{"limits of 3 and 5 run 8 ops, and the step lasts as long as the longer", []int64{3, 5}, 8, 5 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := make([]int64, len(tt.limits))
				step := runner.Step{Sleep: runner.CoarseSleep, Ops: allOps}
				for i, l := range tt.limits {
					step.Workers = append(step.Workers, runner.Worker{
						Name: fmt.Sprintf("inserter %d", i), Primary: true,
						Schedule: runner.ClosedLoop{Limit: l},
						Do: runner.Single(opInsert, func(context.Context, int) (int64, error) {
							calls[i]++
							time.Sleep(time.Millisecond)
							return 3, nil
						}),
					})
				}
				res := runner.Run(t.Context(), step)
				if !res.Complete || res.Err != nil {
					t.Fatalf("Complete %v, Err %v; want a complete step", res.Complete, res.Err)
				}
				if !slices.Equal(calls, tt.limits) {
					t.Errorf("ops per worker = %v, want %v", calls, tt.limits)
				}
				if a := res.Total.Ops[opInsert]; a.Statements != tt.ops || a.Units != 3*tt.ops {
					t.Errorf("recorded %d statements, %d units; want %d, %d", a.Statements, a.Units, tt.ops, 3*tt.ops)
				}
				// In a closed loop an op is due when it starts: every latency is the op's 1ms.
				want := make([]time.Duration, tt.ops)
				for i := range want {
					want[i] = time.Millisecond
				}
				assertLatencies(t, &res.Total.Ops[opInsert], want)
				if got := res.End.Sub(res.Start); got != tt.took {
					t.Errorf("step took %v, want %v", got, tt.took)
				}
			})
		})
	}
}

func TestNonPrimaryWorkers(t *testing.T) {
	for _, tt := range []struct {
		name      string
		primaries []int64 // ops of each primary worker, each taking 100ms
		other     runner.Schedule
		otherTook time.Duration
		otherOps  int
		end       time.Duration
	}{
		{"a querier taking 30ms stops after the op it is running when the 500ms inserter ends",
			[]int64{5}, runner.ClosedLoop{}, 30 * time.Millisecond, 17, 510 * time.Millisecond},
		{"a querier taking 1.2s finishes the op it started, then stops",
			[]int64{5}, runner.ClosedLoop{}, 1200 * time.Millisecond, 1, 1200 * time.Millisecond},
		{"with two inserters, a querier runs until the later one ends",
			[]int64{2, 5}, runner.ClosedLoop{}, 30 * time.Millisecond, 17, 510 * time.Millisecond},
		{"a querier at 3/s without a limit stops while waiting for its next op",
			[]int64{5}, runner.ConstantRate{PerSec: 3}, 30 * time.Millisecond, 2, 500 * time.Millisecond},
		{"a deleter with a limit of 30 drains all 30 after the inserter ends",
			[]int64{5}, runner.ClosedLoop{Limit: 30}, 30 * time.Millisecond, 30, 900 * time.Millisecond},
		{"a deleter at 10/s with a limit of 8 runs all 8 after the inserter ends",
			[]int64{5}, runner.ConstantRate{PerSec: 10, Limit: 8}, 30 * time.Millisecond, 8, 730 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				step := runner.Step{Sleep: runner.CoarseSleep, Ops: allOps}
				for i, n := range tt.primaries {
					step.Workers = append(step.Workers, runner.Worker{
						Name: fmt.Sprintf("inserter %d", i), Primary: true,
						Schedule: runner.ClosedLoop{Limit: n},
						Do: runner.Single(opInsert, func(context.Context, int) (int64, error) {
							time.Sleep(100 * time.Millisecond)
							return 1, nil
						}),
					})
				}
				otherOps := 0
				step.Workers = append(step.Workers, runner.Worker{
					Name: "other", Schedule: tt.other,
					Do: runner.Single(opQuery, func(context.Context, int) (int64, error) {
						otherOps++
						if otherOps > 1000 {
							return 0, errStillRunning
						}
						time.Sleep(tt.otherTook)
						return 1, nil
					}),
				})
				res := runner.Run(t.Context(), step)
				if !res.Complete || res.Err != nil {
					t.Fatalf("Complete %v, Err %v; want a complete step", res.Complete, res.Err)
				}
				if otherOps != tt.otherOps {
					t.Errorf("the non-primary worker ran %d ops, want %d", otherOps, tt.otherOps)
				}
				if got := res.Total.Ops[opQuery].Statements; got != int64(tt.otherOps) {
					t.Errorf("recorded %d queries, want %d", got, tt.otherOps)
				}
				if got := res.End.Sub(res.Start); got != tt.end {
					t.Errorf("step took %v, want %v", got, tt.end)
				}
			})
		})
	}
}

func TestRetries(t *testing.T) {
	always := func(int) bool { return true }
	calls := func(fails ...int) func(int) bool { return func(c int) bool { return slices.Contains(fails, c) } }
	for _, tt := range []struct {
		name       string
		ops        int64
		retries    int
		fails      func(call int) bool // whether the call-th call to Do (from 0) fails
		attempts   []int               // the attempt argument of every call
		complete   bool
		errors     int64
		statements int64
	}{
		{"a Do that always fails, with 2 retries, fails the step after 3 attempts",
			1, 2, always, []int{0, 1, 2}, false, 3, 0},
		{"a Do that always fails, with no retries, fails the step at once",
			1, 0, always, []int{0}, false, 1, 0},
		{"a Do that fails once, with 1 retry, succeeds on attempt 1",
			1, 1, calls(0), []int{0, 1}, true, 1, 1},
		{"a Do that fails twice, with 2 retries, succeeds on attempt 2",
			1, 2, calls(0, 1), []int{0, 1, 2}, true, 2, 1},
		{"a Do that fails twice, with 1 retry, fails the step",
			1, 1, calls(0, 1), []int{0, 1}, false, 2, 0},
		{"the op after a retried one starts again at attempt 0",
			3, 1, calls(1), []int{0, 0, 1, 0}, true, 1, 3},
		{"retries are per op: two ops that fail once each, with 1 retry, both succeed",
			2, 1, calls(0, 2), []int{0, 1, 0, 1}, true, 2, 2},
		{"a failure of the second op stops the worker's later ops",
			3, 0, calls(1), []int{0, 0}, false, 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var attempts []int
				res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
					Ops:     allOps,
					Retries: tt.retries,
					Workers: []runner.Worker{{
						Name: "inserter 1 (table t1)", Primary: true,
						Schedule: runner.ClosedLoop{Limit: tt.ops},
						Do: runner.Single(opInsert, func(_ context.Context, attempt int) (int64, error) {
							attempts = append(attempts, attempt)
							time.Sleep(time.Millisecond)
							if tt.fails(len(attempts) - 1) {
								return 0, errBoom
							}
							return 1, nil
						}),
					}},
				})
				if !slices.Equal(attempts, tt.attempts) {
					t.Errorf("attempts = %v, want %v", attempts, tt.attempts)
				}
				if res.Complete != tt.complete {
					t.Errorf("Complete = %v, want %v (Err %v)", res.Complete, tt.complete, res.Err)
				}
				if tt.complete {
					if res.Err != nil {
						t.Errorf("Err = %v, want nil", res.Err)
					}
				} else {
					if !errors.Is(res.Err, errBoom) {
						t.Errorf("Err = %v, want it to wrap %v", res.Err, errBoom)
					}
					if res.Err != nil && res.Err.Error() != "inserter 1 (table t1): boom" {
						t.Errorf("Err = %q, want %q", res.Err, "inserter 1 (table t1): boom")
					}
				}
				a := res.Total.Ops[opInsert]
				if a.Errors != tt.errors || a.Statements != tt.statements {
					t.Errorf("recorded %d errors, %d statements; want %d, %d", a.Errors, a.Statements, tt.errors, tt.statements)
				}
			})
		})
	}
}

func TestFailureStopsOtherWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inserts := 0
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
			Ops: allOps,
			Workers: []runner.Worker{
				{Name: "inserter 1", Primary: true, Schedule: runner.ClosedLoop{},
					Do: runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) {
						inserts++
						return 1, sleep(ctx, 100*time.Millisecond)
					})},
				{Name: "deleter 1", Schedule: runner.ClosedLoop{Limit: 10},
					Do: runner.Single(opDelete, func(ctx context.Context, _ int) (int64, error) {
						time.Sleep(250 * time.Millisecond)
						return 0, errBoom
					})},
			},
		})
		if res.Complete {
			t.Error("Complete = true, want false")
		}
		if res.Err == nil || res.Err.Error() != "deleter 1: boom" || !errors.Is(res.Err, errBoom) {
			t.Errorf("Err = %v, want deleter 1: boom", res.Err)
		}
		if got := res.End.Sub(res.Start); got != 250*time.Millisecond {
			t.Errorf("step took %v, want 250ms: the failure interrupts the inserter", got)
		}
		// Inserts at 0 and 100ms completed; the one from 200ms was interrupted, which is not an
		// error of the inserter's.
		if a := res.Total.Ops[opInsert]; inserts != 3 || a.Statements != 2 || a.Errors != 0 {
			t.Errorf("inserter: %d calls, %d statements, %d errors; want 3, 2, 0", inserts, a.Statements, a.Errors)
		}
		if a := res.Total.Ops[opDelete]; a.Statements != 0 || a.Errors != 1 {
			t.Errorf("deleter: %d statements, %d errors; want 0, 1", a.Statements, a.Errors)
		}
	})
}

func TestCancel(t *testing.T) {
	errShutdown := errors.New("shutdown")
	for _, tt := range []struct {
		name       string
		schedule   runner.Schedule
		took       time.Duration // each op; Do returns early, with ctx's error, if ctx ends
		cancelAt   time.Duration // < 0: cancelled before Run
		cause      error         // passed to cancel; nil means context.Canceled
		statements int64
		end        time.Duration
	}{
		{"a closed loop interrupted mid-operation stops at once, the op not counted",
			runner.ClosedLoop{}, 100 * time.Millisecond, 250 * time.Millisecond, nil, 2, 250 * time.Millisecond},
		{"a constant rate interrupted while waiting for its next op stops at once",
			runner.ConstantRate{PerSec: 1}, 10 * time.Millisecond, 1500 * time.Millisecond, nil, 2, 1500 * time.Millisecond},
		{"a constant rate with a limit interrupted while waiting stops at once",
			runner.ConstantRate{PerSec: 1, Limit: 10}, 10 * time.Millisecond, 1500 * time.Millisecond, nil, 2, 1500 * time.Millisecond},
		{"a closed loop with a limit interrupted mid-operation stops at once",
			runner.ClosedLoop{Limit: 100}, 100 * time.Millisecond, 250 * time.Millisecond, nil, 2, 250 * time.Millisecond},
		{"the cause the caller cancels with is the step's error",
			runner.ClosedLoop{}, 100 * time.Millisecond, 250 * time.Millisecond, errShutdown, 2, 250 * time.Millisecond},
		{"a closed loop cancelled before the step runs nothing",
			runner.ClosedLoop{Limit: 5}, 100 * time.Millisecond, -1, nil, 0, 0},
		{"a constant rate cancelled before the step runs nothing",
			runner.ConstantRate{PerSec: 10}, 100 * time.Millisecond, -1, nil, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				if tt.cancelAt < 0 {
					cancel(tt.cause)
				} else {
					time.AfterFunc(tt.cancelAt, func() { cancel(tt.cause) })
				}
				res := runner.Run(ctx, runner.Step{Sleep: runner.CoarseSleep,
					Ops:     allOps,
					Retries: 3,
					Workers: []runner.Worker{{
						Name: "w", Primary: true, Schedule: tt.schedule,
						Do: runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, tt.took) }),
					}},
				})
				if res.Complete {
					t.Error("Complete = true, want false")
				}
				want := tt.cause
				if want == nil {
					want = context.Canceled
				}
				if !errors.Is(res.Err, want) {
					t.Errorf("Err = %v, want %v", res.Err, want)
				}
				a := res.Total.Ops[opInsert]
				if a.Statements != tt.statements || a.Errors != 0 {
					t.Errorf("recorded %d statements, %d errors; want %d, 0 (an interrupted op is not a failure)",
						a.Statements, a.Errors, tt.statements)
				}
				if got := res.End.Sub(res.Start); got != tt.end {
					t.Errorf("step took %v, want %v", got, tt.end)
				}
			})
		})
	}
}

func TestIntervals(t *testing.T) {
	type row struct {
		start, end time.Duration
		units      int64
	}
	for _, tt := range []struct {
		name string
		tick time.Duration
		took time.Duration // each of the ops, each doing 2 units
		ops  int64
		want []row
	}{
		{"the default tick is 1s, and a last, shorter, interval ends the step", 0, 350 * time.Millisecond, 10, []row{
			{0, time.Second, 4}, // ops ending at 350, 700ms
			{time.Second, 2 * time.Second, 6},
			{2 * time.Second, 3 * time.Second, 6},
			{3 * time.Second, 3500 * time.Millisecond, 4},
		}},
		{"a tick of 100ms gives intervals of 100ms", 100 * time.Millisecond, 35 * time.Millisecond, 10, []row{
			{0, 100 * time.Millisecond, 4},
			{100 * time.Millisecond, 200 * time.Millisecond, 6},
			{200 * time.Millisecond, 300 * time.Millisecond, 6},
			{300 * time.Millisecond, 350 * time.Millisecond, 4},
		}},
		{"a step shorter than a tick has one short interval", time.Second, 100 * time.Millisecond, 3, []row{
			{0, 300 * time.Millisecond, 6},
		}},
		{"a second in which nothing ended is an interval with nothing in it", time.Second, 1400 * time.Millisecond, 2, []row{
			{0, time.Second, 0},
			{time.Second, 2 * time.Second, 2},
			{2 * time.Second, 2800 * time.Millisecond, 2},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var ivs []*measure.Interval
				res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
					Ops:  allOps,
					Tick: tt.tick,
					// The runner reuses its interval: keep a copy.
					Interval: func(iv *measure.Interval) { c := measure.NewInterval(len(allOps)); c.Add(iv); ivs = append(ivs, c) },
					Workers: []runner.Worker{{
						Name: "w", Primary: true, Schedule: runner.ClosedLoop{Limit: tt.ops},
						Do: runner.Single(opInsert, func(context.Context, int) (int64, error) {
							time.Sleep(tt.took)
							return 2, nil
						}),
					}},
				})
				if !res.Complete {
					t.Fatalf("step failed: %v", res.Err)
				}
				var got []row
				var units, statements int64
				for _, iv := range ivs {
					a := iv.Ops[opInsert]
					got = append(got, row{iv.Start.Sub(res.Start), iv.End.Sub(res.Start), a.Units})
					units += a.Units
					statements += a.Statements
					if q := iv.Ops[opQuery]; q.Units != 0 || q.Statements != 0 {
						t.Errorf("interval [%v, %v]: query row %+v, want an empty row (queries are expected)",
							iv.Start.Sub(res.Start), iv.End.Sub(res.Start), q)
					}
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("intervals (start, end, units) = %v\nwant %v", got, tt.want)
				}
				total := res.Total.Ops[opInsert]
				if units != total.Units || statements != total.Statements || total.Units != 2*tt.ops {
					t.Errorf("intervals sum to %d units, %d statements; total has %d, %d; want %d, %d",
						units, statements, total.Units, total.Statements, 2*tt.ops, tt.ops)
				}
				if !res.Total.Start.Equal(res.Start) || !res.Total.End.Equal(res.End) {
					t.Errorf("total spans [%v, %v], step [%v, %v]", res.Total.Start, res.Total.End, res.Start, res.End)
				}
			})
		})
	}
}

// TestLastOpAtTick: an op that ends at the very instant of a tick, when the tick is handled first,
// is recorded after that tick's drain; the step then ends at that same instant, so end == last and
// the final drain is skipped: the op is in neither an interval nor the total. Under synctest the
// order of the two events is random, so the test repeats the step.
func TestLastOpAtTick(t *testing.T) {
	for i := range 40 {
		synctest.Test(t, func(t *testing.T) {
			var sum int64
			res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep,
				Ops:      allOps,
				Interval: func(iv *measure.Interval) { sum += iv.Ops[opInsert].Statements },
				Workers: []runner.Worker{{
					Name: "w", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
					Do: runner.Single(opInsert, func(context.Context, int) (int64, error) { time.Sleep(time.Second); return 1, nil }),
				}},
			})
			if got := res.Total.Ops[opInsert].Statements; got != 1 || sum != 1 {
				t.Fatalf("run %d: total has %d statements, the intervals %d; want 1, 1", i, got, sum)
			}
		})
	}
}

// BenchmarkRunnerNoop measures the runner's own cost per operation: GOMAXPROCS primary workers in
// closed loops whose Do does nothing, each latency recorded as usual. ns/op is per operation
// across all workers; ops/s/core is operations a second per core.
func BenchmarkRunnerNoop(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	step := runner.Step{Sleep: runner.CoarseSleep, Ops: allOps}
	// b.N ops in all, the remainder spread one each over the first workers, so that ns/op is
	// exact; a worker with no ops would have Limit 0, which means no limit.
	for i := range procs {
		n := int64(b.N / procs)
		if i < b.N%procs {
			n++
		}
		if n == 0 {
			continue
		}
		step.Workers = append(step.Workers, runner.Worker{
			Name: fmt.Sprintf("noop %d", i), Primary: true,
			Schedule: runner.ClosedLoop{Limit: n},
			Do:       runner.Single(opInsert, func(context.Context, int) (int64, error) { return 1, nil }),
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	res := runner.Run(context.Background(), step)
	b.StopTimer()
	if !res.Complete {
		b.Fatal(res.Err)
	}
	ops := res.Total.Ops[opInsert].Statements
	if ops != int64(b.N) {
		b.Fatalf("ran %d ops, want %d", ops, b.N)
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds()/float64(procs), "ops/s/core")
}

package runner_test

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/runner"
)

// stalled is an operation of a target that stalls: 100µs of service, except during the stall's
// window, which blocks it until the window ends.
func stalled(st *driver.Stall) runner.DoFunc {
	return runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) {
		st.Wait()
		return 1, sleep(ctx, 100*time.Microsecond)
	})
}

// TestStallOpenLoop: 1000 arrivals a second for 10 s at a target that stalls from 4 s to 5 s.
// The 1000 operations that arrive during the stall wait for its end: their response times
// spread evenly over (0, 1 s], 10% of all. Theory: max = 1 s (plus the service time), and
// p99.9, the response time with 0.1% of all (10 operations) above it, is 1 s - 10 ms = 990 ms.
// The measured figures must be within 5% of both. Virtual time (synctest): exact, whatever the
// machine's load.
func TestStallOpenLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &driver.Stall{At: 4 * time.Second, For: time.Second}
		st.Start(time.Now())
		do := stalled(st)
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Pools: []runner.Pool{{
			Name: "open", Primary: true, Limit: 10_000, Arrivals: &runner.Constant{PerSec: 1000},
			Do: []runner.DoFunc{do, do, do, do}, Service: true,
		}}})
		if !res.Complete {
			t.Fatal(res.Err)
		}
		h := res.Total.Ops[opQuery].Hist
		near := func(name string, got, want time.Duration) {
			if math.Abs(float64(got-want)) > 0.05*float64(want) {
				t.Errorf("%s = %v, theory %v: more than 5%% apart", name, got, want)
			}
		}
		near("max response time", time.Duration(h.Max()), time.Second)
		near("p99.9 response time", time.Duration(h.ValueAtPercentile(99.9)), 990*time.Millisecond)
		// The service time (from the send) of the first operation after the stall's start
		// holds the stall too, but it is one of 4 workers' operations: p99.9 of service time
		// stays near 100µs while p99.9 of response time is 990 ms.
		if s := res.Total.Ops[opQuery].Service; s == nil || time.Duration(s.ValueAtPercentile(99.9)) > time.Millisecond {
			t.Errorf("service time p99.9 %v, want about 100µs: only 4 operations were in service during the stall", s)
		}
	})
}

// TestStallClosedLoop: the same stall, 4 clients as fast as they can. Each client's one
// operation in progress waits for the stall's end, and no other is sent: 4 operations of about
// 400,000 show it, so the max is 1 s but p99.9 stays at the service time. Coordinated omission:
// the closed loop hides the stall from every percentile a report would quote.
func TestStallClosedLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &driver.Stall{At: 4 * time.Second, For: time.Second}
		st.Start(time.Now())
		var ws []runner.Worker
		for range 4 {
			ws = append(ws, runner.Worker{Name: "closed", Primary: true, Schedule: runner.ClosedLoop{}, Do: stalled(st)})
		}
		res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Workers: ws, Duration: 10 * time.Second})
		if !res.Complete {
			t.Fatal(res.Err)
		}
		h := res.Total.Ops[opQuery].Hist
		if max := time.Duration(h.Max()); max < 900*time.Millisecond {
			t.Errorf("max %v: the stall is not even in the max", max)
		}
		if p := time.Duration(h.ValueAtPercentile(99.9)); p > time.Millisecond {
			t.Errorf("p99.9 %v: a closed loop was expected to hide the stall below 1 ms", p)
		}
		if n := h.TotalCount(); n < 300_000 {
			t.Errorf("%d operations in 9 s of 4 clients at 100µs each, want about 360,000", n)
		}
	})
}

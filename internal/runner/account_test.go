package runner_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// notStartedStep: a primary worker that lasts 1s beside a pool of one worker, arrivals at 10/s in
// the middle of their slots (0.05s, 0.15s, ... 0.95s), operations of 250ms, each of the op type
// op(i) for the i-th. The worker runs the arrivals due at 0.05, 0.15, 0.25 and 0.35 (the last
// ends at 1.05s); at the stop (1s) the 6 due from 0.45s on have waited 0.55s down to 0.05s.
func notStartedStep(t *testing.T, op func(i int64) measure.Op) (runner.Result, int64) {
	var n atomic.Int64
	var lastBacklog int64
	res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps,
		Interval: func(iv *measure.Interval) { lastBacklog = iv.Backlog },
		Workers: []runner.Worker{{Name: "primary", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
			Do: runner.Single(opDelete, func(ctx context.Context, _ int) (int64, error) { return 0, sleep(ctx, time.Second) })}},
		Pools: []runner.Pool{{Name: "readers", Arrivals: &runner.Constant{PerSec: 10, Phase: 0.5},
			Do: []runner.DoFunc{func(ctx context.Context, _ int) (measure.Op, int64, error) {
				return op(n.Add(1) - 1), 1, sleep(ctx, 250*time.Millisecond)
			}}}},
	})
	if !res.Complete {
		t.Fatal(res.Err)
	}
	return res, lastBacklog
}

// TestPoolNotStarted: the arrivals still waiting at the step's end are accounted for: offered,
// achieved, not started; their waits are in the op type's latencies as lower bounds, in the
// step's total and in its last interval (the backlog it reports).
func TestPoolNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, lastBacklog := notStartedStep(t, func(int64) measure.Op { return opQuery })
		if len(res.Streams) != 1 {
			t.Fatalf("streams %+v, want one", res.Streams)
		}
		want := measure.Stream{Name: "readers", Workers: 1, Offered: 10, Achieved: 4, NotStarted: 6,
			NotStartedWaitMaxUs: 550_000, Overloaded: true}
		if got := res.Streams[0]; got != want {
			t.Errorf("stream %+v,\nwant   %+v", got, want)
		}
		q := &res.Total.Ops[opQuery]
		if q.Units != 4 || q.Statements != 4 || q.NotStarted != 6 || lastBacklog != 6 {
			t.Errorf("units %d, statements %d, not started %d, last backlog %d; want 4, 4, 6, 6", q.Units, q.Statements, q.NotStarted, lastBacklog)
		}
		ms := func(v ...int) []time.Duration {
			var d []time.Duration
			for _, m := range v {
				d = append(d, time.Duration(m)*time.Millisecond)
			}
			return d
		}
		// run: due 0.05..0.35, ended 0.30, 0.55, 0.80, 1.05; waiting: due 0.45..0.95, at 1s
		assertLatencies(t, q, ms(250, 400, 550, 700, 550, 450, 350, 250, 150, 50))
	})
}

// TestPoolNotStartedMix: a stream whose operations choose their op type as they run gives its
// waiting arrivals the op types in the proportions it finished: 2 inserts and 2 queries, so 3
// and 3 of the 6.
func TestPoolNotStartedMix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, _ := notStartedStep(t, func(i int64) measure.Op { return []measure.Op{opInsert, opQuery}[i%2] })
		ins, q := &res.Total.Ops[opInsert], &res.Total.Ops[opQuery]
		if ins.Statements != 2 || q.Statements != 2 || ins.NotStarted != 3 || q.NotStarted != 3 {
			t.Errorf("inserts %d + %d not started, queries %d + %d; want 2 + 3 each", ins.Statements, ins.NotStarted, q.Statements, q.NotStarted)
		}
		if ins.Hist.TotalCount() != 5 || q.Hist.TotalCount() != 5 {
			t.Errorf("histograms hold %d and %d, want 5 each", ins.Hist.TotalCount(), q.Hist.TotalCount())
		}
	})
}

// TestErrorKinds: each failed attempt is counted under the kind the step's classifier names,
// with its message; an error it does not classify is "other".
func TestErrorKinds(t *testing.T) {
	errDeadlock := errors.New("ERROR: deadlock detected (SQLSTATE 40P01)")
	var n atomic.Int64
	res := runner.Run(t.Context(), runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Retries: 3,
		Classify: func(err error) string {
			if errors.Is(err, errDeadlock) {
				return "deadlock"
			}
			return ""
		},
		Workers: []runner.Worker{{Name: "w", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
			Do: runner.Single(opQuery, func(context.Context, int) (int64, error) {
				switch n.Add(1) {
				case 1, 2:
					return 0, errDeadlock
				case 3:
					return 0, errBoom
				}
				return 1, nil
			})}},
	})
	if !res.Complete {
		t.Fatal(res.Err)
	}
	want := []measure.ErrorCount{{Kind: "deadlock", Count: 2, First: errDeadlock.Error()}, {Kind: "other", Count: 1, First: "boom"}}
	got := res.Total.Ops[opQuery].ErrorKinds
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("error kinds %+v, want %+v", got, want)
	}
}

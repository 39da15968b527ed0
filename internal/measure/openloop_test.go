package measure_test

import (
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// Not-started arrivals' waits are in the op type's latency figures as lower bounds, flagged, and
// counted; the SLA's percentile sees them, its goodput does not count them as served.
func TestNotStartedLowerBounds(t *testing.T) {
	iv := measure.NewInterval(nOps)
	r := measure.NewRecorder(nOps)
	for range 90 {
		r.Record(opQuery, time.Millisecond, 1)
	}
	r.Drain(iv)
	for range 10 {
		iv.RecordNotStarted(opQuery, time.Second)
	}
	total := measure.NewInterval(nOps)
	total.Add(iv)

	s := measure.Summarize(&total.Ops[opQuery], 2)
	if s.NotStarted != 10 || !s.LatencyLowerBound || s.Count != 90 || s.PerSec != 45 {
		t.Errorf("not started %d, lower bound %v, count %d, %v/s; want 10, true, 90, 45/s", s.NotStarted, s.LatencyLowerBound, s.Count, s.PerSec)
	}
	if s.P99Us < 999_000 || s.MaxUs < 999_000 {
		t.Errorf("p99 %v µs, max %v µs: the 10%% not started (1 s) are not in the figures", s.P99Us, s.MaxUs)
	}
	if q := measure.Summarize(&total.Ops[opInsert], 2); q.LatencyLowerBound || q.NotStarted != 0 {
		t.Errorf("an op type without not-started arrivals is flagged: %+v", q)
	}

	check := measure.SLACheck{SLA: measure.SLA{Op: "query", Percentile: 50, Bound: 2 * time.Second}}
	res := check.Result(&total.Ops[opQuery], 2)
	if !res.Met || res.GoodputPerSec != 45 || res.WithinPct != 90 {
		t.Errorf("%+v; want met, goodput 45/s (the 90 that ran), 90%% within", res)
	}
	iv.Reset()
	if iv.Ops[opQuery].NotStarted != 0 || iv.Ops[opQuery].Waits.TotalCount() != 0 {
		t.Errorf("Reset keeps not-started arrivals")
	}
}

// A stream is overloaded when it dropped arrivals or when its backlog grew: more than 1% of its
// offered arrivals, and more than its workers, still waiting at the end. The step's figures
// add its streams up and divide by its seconds.
func TestOpenLoopOverload(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    measure.Stream
		want bool
	}{
		{"kept up", measure.Stream{Workers: 8, Offered: 60000, Achieved: 59995, NotStarted: 5}, false},
		{"a few waiting at a low rate", measure.Stream{Workers: 8, Offered: 300, Achieved: 294, NotStarted: 6}, false},
		{"backlog grew (the issue's 4614 of 60000)", measure.Stream{Workers: 8, Offered: 60000, Achieved: 55386, NotStarted: 4614}, true},
		{"dropped", measure.Stream{Workers: 8, Offered: 60000, Achieved: 59000, Dropped: 1000}, true},
	} {
		s := tt.s
		s.Overload()
		if s.Overloaded != tt.want {
			t.Errorf("%s: overloaded %v, want %v", tt.name, s.Overloaded, tt.want)
		}
	}
	q := measure.Stream{Name: "querier", Workers: 8, Offered: 60000, Achieved: 55386, NotStarted: 4614, NotStartedWaitMaxUs: 230_000}
	q.Overload()
	i := measure.Stream{Name: "inserter 1", Workers: 1, Offered: 600, Achieved: 600}
	o := measure.SummarizeOpenLoop([]measure.Stream{q, i}, 3)
	if o.Offered != 60600 || o.Achieved != 55986 || o.NotStarted != 4614 || o.OfferedPerSec != 20200 ||
		o.AchievedPerSec != 18662 || !o.Overloaded || o.NotStartedWaitMaxUs != 230_000 {
		t.Errorf("%+v", o)
	}
	if want := "querier: 4614 (7.7%) still waiting at the end of 60000 offered"; o.Why != want {
		t.Errorf("why %q, want %q", o.Why, want)
	}
	if measure.SummarizeOpenLoop(nil, 3) != nil {
		t.Errorf("a closed-loop step has open-loop figures")
	}
}

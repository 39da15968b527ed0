package counters_test

import (
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
)

// lateStep is a step of 10 one-second ticks in which a running total, x, counted nothing but
// 100 published at tick 7: work done in the stall of ticks 5-6 and published a second late.
func lateStep(pg bool) *counters.Step {
	series := &archive.CounterSeries{Kinds: map[string]archive.CounterKind{}, Values: map[string][]float64{}}
	for i := range 10 {
		series.TSec = append(series.TSec, float64(i)+0.002*float64(i%3)) // ticks a few ms off the second
	}
	add := func(n string, k archive.CounterKind, v ...float64) {
		series.Names, series.Kinds[n], series.Values[n] = append(series.Names, n), k, v
	}
	add("x", archive.KindCumulative, 0, 0, 0, 0, 0, 0, 0, 100, 100, 100)
	add("g", archive.KindGauge, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0)
	if pg {
		add("db.xact_commit", archive.KindCumulative, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90)
	}
	return counters.FromSeries("s", series, nil)
}

// TestLateAttribution: on PostgreSQL (a step with pg_stat_database's counters) a stall's
// window for running totals ends a second after the stall, so the work published late is
// named; elsewhere, and for gauges, the stall's own ticks are read.
func TestLateAttribution(t *testing.T) {
	stall := counters.Window{From: 4, To: 6}
	for _, tc := range []struct {
		pg    bool
		delay float64
		late  counters.Window
	}{{true, 1, counters.Window{From: 4, To: 7}}, {false, 0, stall}} {
		s := lateStep(tc.pg)
		if d, w := s.PublishDelay(), s.Late(stall); d != tc.delay || w != tc.late {
			t.Errorf("PostgreSQL %v: delay %g, late window %+v; want %g, %+v", tc.pg, d, w, tc.delay, tc.late)
		}
		var named []string
		for _, m := range s.Movers(stall, 10, nil) {
			named = append(named, m.Name)
		}
		if got := len(named) > 0 && named[0] == "x"; got != tc.pg {
			t.Errorf("PostgreSQL %v: the stall names %v; the late-published x first: %v", tc.pg, named, tc.pg)
		}
		if !slices.Contains(named, "g") {
			t.Errorf("PostgreSQL %v: the gauge g, 1 in the stall, is not named: %v", tc.pg, named)
		}
	}
	if w := lateStep(true).Late(counters.Window{From: 7, To: 9}); w.To != 9 {
		t.Errorf("a stall at the step's end: window %+v, want it to stop at the last tick", w)
	}
}

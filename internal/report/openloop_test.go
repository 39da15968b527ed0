package report

import (
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// TestOpenLoopColumns: steps with open-loop streams get the overload and not_started columns
// (dropped, offered_ps and achieved_ps in --wide), latencies that count not-started arrivals
// read ">=", and compare has dropped and not_started rows, better when lower.
func TestOpenLoopColumns(t *testing.T) {
	mk := func(name string, notStarted int64, over bool) Run {
		q := op(55386, 18462, 50, 900, 1500, 230000)
		q.NotStarted, q.LatencyLowerBound = notStarted, notStarted > 0
		return Run{Meta: archive.Run{Name: name, Figures: ib}, Steps: []archive.Step{{Step: "qr100", Complete: true, Verified: true,
			Ops: map[string]measure.OpSummary{"query": q},
			OpenLoop: &measure.OpenLoop{Offered: 60000, OfferedPerSec: 20000, Achieved: 60000 - notStarted, AchievedPerSec: float64(60000-notStarted) / 3,
				NotStarted: notStarted, Overloaded: over}}}}
	}
	a, b := mk("a", 4614, true), mk("b", 0, false)
	sum := SummaryTable([]Run{a, b})
	col := func(name string) int {
		for i, h := range sum.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s in %v", name, sum.Header)
		return -1
	}
	ra, rb := sum.Rows[0], sum.Rows[1]
	if ra[col("overload")] != "YES" || rb[col("overload")] != "no" || ra[col("not_started")] != "4614" ||
		ra[col("offered_ps")] != "20000" || ra[col("achieved_ps")] != "18462" || ra[col("dropped")] != "0" {
		t.Errorf("summary rows %v\n%v", sum.Header, sum.Rows)
	}
	if ra[col("q_p99")] != ">=900" || rb[col("q_p99")] != "900" || ra[col("qps")] != "18462" {
		t.Errorf("q_p99 %q and %q, qps %q; want >=900 (a lower bound), 900, 18462", ra[col("q_p99")], rb[col("q_p99")], ra[col("qps")])
	}
	compact := CompactSummaryTable([]Run{a})
	found := 0
	for _, h := range compact.Header {
		if h == "overload" || h == "not_started" {
			found++
		}
	}
	if found != 2 {
		t.Errorf("compact summary lacks overload or not_started: %v", compact.Header)
	}
	cmp := CompareTable(b, []Run{a})
	var rows []string
	for i, row := range cmp.Rows {
		if row[1] == "not_started" {
			rows = append(rows, row[1])
			if row[2] != "0" || row[3] != "4614" || cmp.Mark(i, 4) != MarkWorse {
				t.Errorf("not_started row %v, mark %d; want 0 then 4614, worse", row, cmp.Mark(i, 4))
			}
		}
		if row[1] == "dropped" {
			rows = append(rows, row[1])
		}
	}
	if len(rows) != 2 {
		t.Errorf("compare rows %v, want dropped and not_started", cmp.Rows)
	}
	for _, h := range CompactSummaryTable(summaryRuns()).Header {
		if h == "overload" || h == "not_started" {
			t.Errorf("runs without open-loop streams have column %s", h)
		}
	}
}

package linkbench

import (
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/report"
)

// TestHeadlineIsTotalRequests: the request step's headline in summary (default and --wide) and
// compare is its requests per second, all types: it was in neither, and the most frequent
// type's rate stood in for it, which changes with the mix.
func TestHeadlineIsTotalRequests(t *testing.T) {
	step := func(rps float64) archive.Step {
		ops := map[string]measure.OpSummary{}
		for _, o := range requestOps {
			ops[o.Name] = measure.OpSummary{Count: 100, Statements: 100, PerSec: rps / 10, P99Us: 900}
		}
		return archive.Step{Step: "request", Complete: true, Ops: ops, Workload: map[string]any{keyRequestsPerSec: rps}}
	}
	runs := []report.Run{
		{Meta: archive.Run{Name: "a", Workload: Name, Figures: Declaration()}, Steps: []archive.Step{step(8000)}},
		{Meta: archive.Run{Name: "b", Workload: Name, Figures: Declaration()}, Steps: []archive.Step{step(12000)}},
	}
	for name, tab := range map[string]report.Table{"summary": report.CompactSummaryTable(runs), "summary --wide": report.SummaryTable(runs)} {
		col := slices.Index(tab.Header, "rps")
		if col < 0 || tab.Rows[0][col] != "8000" || tab.Rows[1][col] != "12000" {
			t.Errorf("%s: no rps of 8000 and 12000: %v %v", name, tab.Header, tab.Rows)
		}
	}
	cmp := report.CompareTable(runs[0], runs[1:])
	if len(cmp.Rows) == 0 || cmp.Rows[0][1] != "rps" || cmp.Rows[0][2] != "8000" || cmp.Rows[0][4] != "1.50" || cmp.Mark(0, 4) != report.MarkBetter {
		t.Errorf("compare: the first row is not rps 8000 -> 1.50 better: %v", cmp.Rows)
	}
}

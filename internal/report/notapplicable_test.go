package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestNotApplicableStep: a step the target cannot run (a key-value engine without batched
// reads) is "n/a" in the summary's ok column, not "yes" as if it had run and been checked.
func TestNotApplicableStep(t *testing.T) {
	runs := summaryRuns()
	runs[0].Steps[0].Workload = map[string]any{archive.NotApplicable: "no batched read"}
	for _, tab := range []Table{CompactSummaryTable(runs), FittedSummaryTable(runs, TextWidth)} {
		ok := slices.Index(tab.Header, "ok")
		if ok < 0 || tab.Rows[0][ok] != "n/a" || tab.Rows[1][ok] == "n/a" {
			t.Errorf("ok column: %v %v", tab.Header, tab.Rows)
		}
	}
}

// TestFittedSummary: the default text summary fits TextWidth, names every column it left out
// under the table, and moves a single run's name above it.
func TestFittedSummary(t *testing.T) {
	runs := summaryRuns()
	for i := range runs {
		runs[i].Meta.Name = "insert-postgres-20261126-005423"
	}
	full := CompactSummaryTable(runs)
	fit := FittedSummaryTable(runs, 80)
	if textWidth(fit) > 80 {
		t.Errorf("width %d, want at most 80: %v", textWidth(fit), fit.Header)
	}
	for _, h := range full.Header {
		if !slices.Contains(fit.Header, h) && !strings.Contains(strings.ReplaceAll(fit.Note, "\n", " "), " "+h) {
			t.Errorf("column %s left out without a word: %q", h, fit.Note)
		}
	}
	one := FittedSummaryTable(runs[:1], 80)
	if one.Title != "run "+runs[0].Meta.Name || slices.Contains(one.Header, "run") {
		t.Errorf("one run: title %q, header %v", one.Title, one.Header)
	}
}

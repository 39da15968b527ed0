package kv

import (
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestFormatReferenceAlignment: a step the engine cannot run (n/a) or that did not complete
// keeps every other row's columns aligned, and the default columns fit 100 characters.
func TestFormatReferenceAlignment(t *testing.T) {
	fig := func(ops float64) map[string]any {
		return map[string]any{"ops_sec": ops, "mb_sec": 1234.5, "usec_op": 12.3, "p50": 1.5, "p99": 33.3, "p99.9": 2199.6,
			"p99.99": 24117.2, "pmax": 385090.0, colLSM: 1e6, colWAmp: 0.82, colStallPct: 0.0, "u_cpu": 1.0, "s_cpu": 0.1}
	}
	steps := []archive.Step{
		{Step: "fillseq", Complete: true, Workload: fig(1024000)},
		{Step: "multireadrandom", Complete: true, Workload: map[string]any{archive.NotApplicable: "Pebble has no batched read (MultiGet): multireadrandom is not run"}},
		{Step: "revrangewhilewriting", Complete: true, Workload: fig(259600)},
		{Step: "readrandom", Complete: false, Error: "interrupted", Workload: fig(5)},
		{Step: "overwriteandwait", Complete: true, Workload: fig(43)},
	}
	for i := range steps {
		steps[i].Start = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	}
	rows := ReferenceRows(archive.Run{Target: archive.Target{Engine: "Pebble", Version: "v2.1.7"}}, steps)
	for _, cols := range [][]string{CompactReferenceColumns, nil} {
		lines := FormatReference(rows, cols)
		at := strings.Index(lines[0], "ops_sec")
		for _, l := range lines {
			if cols != nil && len(l) > 100 && !strings.Contains(l, "(incomplete") { // a reason runs on
				t.Errorf("wider than 100: %q", l)
			}
			if strings.Contains(l, "n/a:") {
				if !strings.HasPrefix(l[at:], "n/a:") {
					t.Errorf("the n/a reason does not start in the ops_sec column:\n%s", strings.Join(lines, "\n"))
				}
				continue
			}
			if l[at-1] != ' ' || l[at] == ' ' {
				t.Errorf("ops_sec not aligned in %q:\n%s", l, strings.Join(lines, "\n"))
			}
		}
		last := lines[len(lines)-1]
		if p := strings.Index(lines[0], "p50"); last[p-1] != ' ' || last[p] == ' ' {
			t.Errorf("p50 not aligned after the n/a and incomplete rows:\n%s", strings.Join(lines, "\n"))
		}
	}
}

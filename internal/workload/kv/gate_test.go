package kv

import (
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/report"
)

// TestWriterGate: a 2 MiB/s writer that put 0.37 MiB/s missed its gate, one at 1.95 MiB/s
// (97.5%) met it.
func TestWriterGate(t *testing.T) {
	g, warning := writerGate(3879731, 10, 2)
	if g[keyWriterMet] != false || g[keyWriterTarget] != 2048.0 || g[keyWriterAchieved] != 378.9 || warning == "" {
		t.Errorf("0.37 of 2 MiB/s: %v %q, want 378.9/2048 missed with a warning", g, warning)
	}
	if g, warning := writerGate(20447232, 10, 2); g[keyWriterMet] != true || warning != "" {
		t.Errorf("1.95 of 2 MiB/s: %v %q, want met", g, warning)
	}
}

// TestWriterGateInReports: bbolt's writer reached 0.37 of its 2 MiB/s in readwhilewriting and
// compare called its reads 3.6x better than Pebble's, in green. With the gate, summary shows
// w_target (achieved/target KiB/s, "!" when missed), compare starts the step with the gate's
// row and has "n/c" instead of the ratios of the read figures; the writer's own put figures
// still compare (they show why).
func TestWriterGateInReports(t *testing.T) {
	step := func(gets, kib float64) archive.Step {
		g, _ := writerGate(int64(kib*1024*5), 5, 2)
		g["ops_sec"] = gets
		return archive.Step{Step: ReadWhileWriting, Complete: true, Workload: g, Ops: map[string]measure.OpSummary{
			"get": {Count: 100, Statements: 100, PerSec: gets, P99Us: 50},
			"put": {Count: 100, Statements: 100, PerSec: kib * 1024 / 420, P99Us: 30},
		}}
	}
	runs := []report.Run{
		{Meta: archive.Run{Name: "pebble", Workload: Name, Figures: Declaration()}, Steps: []archive.Step{step(30000, 2048)}},
		{Meta: archive.Run{Name: "bbolt", Workload: Name, Figures: Declaration()}, Steps: []archive.Step{step(108000, 379)}},
	}
	sum := report.CompactSummaryTable(runs)
	col := slices.Index(sum.Header, "w_target")
	if col < 0 || sum.Rows[0][col] != "2048/2048" || sum.Rows[1][col] != "379/2048!" {
		t.Errorf("summary: no w_target 2048/2048 and 379/2048!: %v %v", sum.Header, sum.Rows)
	}
	cmp := report.CompareTable(runs[0], runs[1:])
	cells := map[string][]string{}
	for _, r := range cmp.Rows {
		cells[r[1]] = r
	}
	if r := cells["w_target"]; r == nil || r[2] != "2048/2048" || r[3] != "379/2048!" {
		t.Errorf("compare: gate row %v", r)
	}
	for _, fig := range []string{"r_ops", "r_p99", "ops_sec"} {
		if r := cells[fig]; r == nil || r[4] != report.NotComparable {
			t.Errorf("compare: %s %v, want %s", fig, r, report.NotComparable)
		}
	}
	if r := cells["w_p99"]; r == nil || r[4] == report.NotComparable {
		t.Errorf("compare: the writer's w_p99 %v must still compare", r)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
)

// ib is the Insert Benchmark's declaration, as its runs store it in run.json.
var ib = insertbench.Declaration()

// qWorkload is a q step's insert target, met or not.
func qWorkload(achieved, target float64) map[string]any {
	return map[string]any{"insert_achieved_per_sec": achieved, "insert_target_per_sec": target, "insert_target_met": achieved >= 0.95*target}
}

// compareRuns: a base and two runs. "better" improves some figures, stays within ±5% on others,
// has no wkbpi, stalls where the base has none, and meets the target of qp1000 that the base
// missed. "worse" regresses, has no monitoring, missed the target of qr100 and has no qp1000.
func compareRuns() (Run, []Run) {
	base := Run{Meta: archive.Run{Name: "base", Figures: ib}, Steps: []archive.Step{
		{Step: "l.i0", Stalls: &measure.Stalls{},
			Ops:  map[string]measure.OpSummary{"insert": op(1000000, 100000, 400, 1000, 3000, 5000)},
			Host: &archive.HostSummary{CPUUsPerOp: f(10), WriteKBPerWrite: f(1.0), DBMSCPUUsPerOp: f(6), ClientCPUUsPerOp: 3, RSS: f(1.5), DBGB1: f(0.2)}},
		{Step: "qr100", Stalls: &measure.Stalls{Count: 1},
			Ops: map[string]measure.OpSummary{
				"insert": op(3000, 100, 900, 2000, 3000, 3000),
				"delete": op(3000, 100, 800, 1800, 2500, 2500),
				"query":  op(300000, 10000, 50, 200, 500, 900),
			},
			Host:     &archive.HostSummary{CPUUsPerOp: f(40), ReadKBPerOp: f(0.5), WriteKBPerWrite: f(2), ClientCPUUsPerOp: 12},
			Workload: qWorkload(100, 100)},
		{Step: "qp1000",
			Ops: map[string]measure.OpSummary{
				"insert": op(27000, 900, 900, 2000, 3000, 3000),
				"query":  op(240000, 8000, 60, 250, 700, 900),
			},
			Workload: qWorkload(900, 1000)},
	}}
	better := Run{Meta: archive.Run{Name: "better", Figures: ib}, Steps: []archive.Step{
		{Step: "l.i0", Stalls: &measure.Stalls{Count: 3},
			Ops:  map[string]measure.OpSummary{"insert": op(1000000, 120000, 380, 990, 2500, 4000)},
			Host: &archive.HostSummary{CPUUsPerOp: f(8), DBMSCPUUsPerOp: f(6.2), ClientCPUUsPerOp: 3, RSS: f(1.5), DBGB1: f(0.25)}},
		{Step: "qr100", Stalls: &measure.Stalls{Count: 1},
			Ops: map[string]measure.OpSummary{
				"insert": op(3000, 100, 900, 2100, 3000, 3000),
				"delete": op(3000, 100, 800, 1800, 2500, 2500),
				"query":  op(309000, 10300, 49, 150, 400, 800),
			},
			Host:     &archive.HostSummary{CPUUsPerOp: f(38.5), ReadKBPerOp: f(0.4), WriteKBPerWrite: f(2.2), ClientCPUUsPerOp: 12},
			Workload: qWorkload(99.5, 100)},
		{Step: "qp1000",
			Ops: map[string]measure.OpSummary{
				"insert": op(30000, 1000, 900, 2000, 3000, 3000),
				"query":  op(270000, 9000, 55, 240, 650, 900),
			},
			Workload: qWorkload(1000, 1000)},
	}}
	worse := Run{Meta: archive.Run{Name: "worse", Figures: ib}, Steps: []archive.Step{
		{Step: "l.i0", Stalls: &measure.Stalls{},
			Ops: map[string]measure.OpSummary{"insert": op(1000000, 80000, 500, 2000, 6000, 9000)}},
		{Step: "qr100",
			Ops: map[string]measure.OpSummary{
				"insert": op(2700, 90, 900, 2000, 3000, 3000),
				"delete": op(2700, 90, 800, 1800, 2500, 2500),
				"query":  op(450000, 15000, 30, 100, 300, 900),
			},
			Workload: qWorkload(90, 100)},
	}}
	return base, []Run{better, worse}
}

func TestCompareGolden(t *testing.T) {
	base, runs := compareRuns()
	table := CompareTable(base, runs)
	for format, file := range map[Format]string{FormatText: "compare.txt", FormatTSV: "compare.tsv", FormatMarkdown: "compare.md"} {
		var b bytes.Buffer
		if err := WriteTable(&b, table, format); err != nil {
			t.Fatal(err)
		}
		golden(t, file, b.Bytes())
	}
	// The marks behind the decorations, cell by cell.
	cell := func(step, fig string, col int) (string, Mark) {
		t.Helper()
		for i, row := range table.Rows {
			if row[0] == step && row[1] == fig {
				return row[col], table.Mark(i, col)
			}
		}
		t.Fatalf("no row %s %s", step, fig)
		return "", MarkNone
	}
	const betterRatio, worseValue, worseRatio = 4, 5, 6
	for _, c := range []struct {
		step, fig string
		col       int
		text      string
		mark      Mark
	}{
		{"l.i0", "ips", betterRatio, "1.20", MarkBetter},    // a higher rate is better
		{"l.i0", "ips", worseRatio, "0.80", MarkWorse},      // a lower rate is worse
		{"l.i0", "i_p99", betterRatio, "0.99", MarkNone},    // within ±5%
		{"l.i0", "i_p99", worseRatio, "2.00", MarkWorse},    // a higher latency is worse
		{"qr100", "q_p99", betterRatio, "0.75", MarkBetter}, // a lower latency is better
		{"l.i0", "cpupq", betterRatio, "0.80", MarkBetter},  // a lower cost per op is better
		{"l.i0", "dbgb1", betterRatio, "1.25", MarkWorse},   // a larger database is worse
		{"l.i0", "wkbpi", betterRatio, "-", MarkNone},       // missing figure
		{"l.i0", "cpupq", worseValue, "-", MarkNone},        // no monitoring
		{"l.i0", "stalls", betterRatio, "inf", MarkWorse},   // stalls where the base had none
		{"qr100", "qps", betterRatio, "1.03", MarkNone},     // comparable q step
		{"qr100", "qps", worseValue, "15000", MarkNone},     // the value stays
		{"qr100", "qps", worseRatio, "n/c", MarkNotComparable},
		{"qr100", "q_p99", worseRatio, "n/c", MarkNotComparable},
		{"qr100", "ips", worseRatio, "0.90", MarkWorse}, // not a query figure
		{"qr100", "i_target", worseValue, "90/100!", MarkNone},
		{"qp1000", "qps", 2, "8000", MarkNotComparable}, // the base missed its target
		{"qp1000", "qps", betterRatio, "n/c", MarkNotComparable},
		{"qp1000", "ips", betterRatio, "1.11", MarkBetter},
		{"qp1000", "qps", worseRatio, "-", MarkNone}, // step missing in a run
	} {
		if text, mark := cell(c.step, c.fig, c.col); text != c.text || mark != c.mark {
			t.Errorf("%s %s column %d: %q mark %d, want %q mark %d", c.step, c.fig, c.col, text, mark, c.text, c.mark)
		}
	}
	for _, row := range table.Rows {
		if row[1] == "dps" && row[0] == "l.i0" {
			t.Errorf("a figure no run has gets a row: %v", row)
		}
	}
}

// unlikeRuns are compareRuns made with different settings: "better" with twice the rows and
// another PostgreSQL; "worse" with another DBMS setting, seed, arrival and host.
func unlikeRuns() (Run, []Run) {
	base, runs := compareRuns()
	settings := func(rows int, arrival string) map[string]any {
		return map[string]any{"rows": float64(rows), "clients": 2.0, "steps": []any{"l.i0", "qr100"}, "arrival": arrival}
	}
	base.Meta.Settings = settings(10000, "closed")
	base.Meta.Target = archive.Target{Kind: "postgres", Engine: "PostgreSQL", Version: "16.4", Settings: map[string]any{"shared_buffers": "128MB"}}
	base.Meta.Host = archive.Host{Hostname: "a", Cores: 4, MemoryGB: 16, Disk: "/dev/vda1 on / (ext4), 20.0 GB free of 40.0 GB"}
	base.Meta.Seed = 1
	runs[0].Meta.Settings = settings(20000, "closed")
	runs[0].Meta.Target = archive.Target{Kind: "postgres", Engine: "PostgreSQL", Version: "17.2", Settings: map[string]any{"shared_buffers": "128MB"}}
	runs[0].Meta.Host = archive.Host{Hostname: "a", Cores: 4, MemoryGB: 16, Disk: "/dev/vda1 on / (ext4), 19.0 GB free of 40.0 GB"}
	runs[0].Meta.Seed = 1
	runs[1].Meta.Settings = settings(10000, "poisson 100/s")
	runs[1].Meta.Target = archive.Target{Kind: "postgres", Engine: "PostgreSQL", Version: "16.4", Settings: map[string]any{"shared_buffers": "1GB"}}
	runs[1].Meta.Host = archive.Host{Hostname: "b", Cores: 8, MemoryGB: 16, Disk: "/dev/nvme0n1 on /data (xfs), 100.0 GB free of 200.0 GB"}
	runs[1].Meta.Seed = 2
	return base, runs
}

// TestNotLikeForLikeGolden: compare names every setting that differs from the base's, before
// the table in text and markdown, on the warning stream for tsv; alike runs say nothing.
func TestNotLikeForLikeGolden(t *testing.T) {
	base, runs := unlikeRuns()
	for format, file := range map[Format]string{FormatText: "compare-unlike.txt", FormatMarkdown: "compare-unlike.md", FormatTSV: "compare-unlike.tsv"} {
		var out, warn bytes.Buffer
		if err := WriteCompare(&out, &warn, base, runs, format); err != nil {
			t.Fatal(err)
		}
		if format == FormatTSV {
			golden(t, file, append(warn.Bytes(), out.Bytes()...))
			if bytes.Contains(out.Bytes(), []byte("not like for like")) {
				t.Error("tsv output carries the warning")
			}
			continue
		}
		golden(t, file, out.Bytes())
	}
	got := Differences(append([]Run{base}, runs...))
	var names []string
	for _, d := range got {
		names = append(names, d.Setting)
	}
	if want := "target version arrival rows DBMS shared_buffers seed host host cores host disk"; strings.Join(names, " ") != want {
		t.Errorf("differences %q, want %q", strings.Join(names, " "), want)
	}
	alike, _ := compareRuns()
	if l := NotLikeForLike(alike, alike); l != "" {
		t.Errorf("a run differs from itself: %q", l)
	}
}

// TestCompareJSONGolden: the JSON shape of compare, with marks, gate rows and differences.
func TestCompareJSONGolden(t *testing.T) {
	base, runs := unlikeRuns()
	var b bytes.Buffer
	if err := WriteCompare(&b, nil, base, runs, FormatJSON); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.json", b.Bytes())
	var back CompareJSON
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(CompareTable(base, runs).Rows) || len(back.NotLikeForLike) != 2 {
		t.Errorf("%d rows, %d unlike runs", len(back.Rows), len(back.NotLikeForLike))
	}
}

// TestCompareLeavesOutUnrecordedOps: a step lists every op type of its workload, so one it
// never does (sysbench's load in its run step) has a rate of 0 in every run; compare has no
// row for it, while a figure of an op one run recorded keeps its row.
func TestCompareLeavesOutUnrecordedOps(t *testing.T) {
	a, b := headlineRun("a", 1000, 500), headlineRun("b", 1000, 500)
	for _, r := range []*Run{&a, &b} {
		r.Meta.Figures.Ops = append(r.Meta.Figures.Ops, measure.OpType{Name: "load", Unit: "rows"})
		r.Meta.Figures.Columns = append(r.Meta.Figures.Columns, archive.Column{Name: "insps", Op: "load", Stat: archive.StatPerSec, Better: archive.HigherIsBetter, Compare: true})
		r.Steps[0].Ops["load"] = measure.OpSummary{}
	}
	has := func(rows []CompareRow, fig string) bool {
		for _, row := range rows {
			if row.Figure == fig {
				return true
			}
		}
		return false
	}
	if rows := CompareRows(a, []Run{b}); has(rows, "insps") || !has(rows, "ips") {
		t.Errorf("rows %+v: want ips and no insps", rows)
	}
	b.Steps[0].Ops["load"] = measure.OpSummary{Count: 10, Statements: 1, PerSec: 1}
	if rows := CompareRows(a, []Run{b}); !has(rows, "insps") {
		t.Errorf("rows %+v: want insps, which b recorded", rows)
	}
}

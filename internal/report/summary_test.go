package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it after a deliberate change):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func op(count int64, perSec, p50, p99, p999, max float64) measure.OpSummary {
	return measure.OpSummary{Count: count, Statements: count/50 + 1, PerSec: perSec, P50Us: p50, P99Us: p99, P999Us: p999, MaxUs: max}
}

func f(v float64) *float64 { return &v }

// summaryRuns are two runs with load and q steps, monitored and not, one of them missing its
// insert target and one interrupted.
func summaryRuns() []Run {
	start := time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)
	runs := []Run{{
		Meta: archive.Run{Figures: ib, Name: "pg-shared", Start: start, Dbperf: archive.Build{Commit: "0123456789abcdef0123"},
			Target: archive.Target{Kind: "postgres", Version: "15.18"}},
		Steps: []archive.Step{
			{Step: "l.i0", Complete: true, Verified: true, Seconds: 12.3, ClientCPUUsPerOp: 1.16,
				Stalls: &measure.Stalls{Count: 2, LongestSec: 1, TotalSec: 1.5},
				Ops:    map[string]measure.OpSummary{"insert": op(2000000, 162601.6, 610, 3900, 9100, 15000)}},
			{Step: "l.x", Complete: true, Verified: true, Seconds: 4.5,
				Ops: map[string]measure.OpSummary{"index": {Count: 2000000, Statements: 2, PerSec: 444444.4, P50Us: 4400000, P99Us: 4500000, MaxUs: 4500000}}},
			{Step: "qr100", Complete: true, Verified: true, Seconds: 30, Errors: 2, ClientCPUUsPerOp: 14.5,
				Stalls: &measure.Stalls{},
				Host: &archive.HostSummary{ReadsPerOp: f(0.002), ReadKBPerOp: f(0.031), WritesPerWrite: f(0.5), WriteKBPerWrite: f(4.25), CtxPerOp: f(1.5),
					CPUUsPerOp: f(48.2), DBMSCPUUsPerOp: f(30.1), CPUPS: 87, DBGB1: f(0.25), DBGB2: f(0.31), RSS: f(4.2), ClientCPUCores: 0.45},
				Ops: map[string]measure.OpSummary{
					"insert": op(6000, 200, 1800, 4800, 5800, 5800),
					"delete": op(6000, 200, 1500, 4100, 4600, 4600),
					"query":  op(900000, 30000, 33, 160, 430, 4260),
				},
				Workload: map[string]any{"insert_achieved_per_sec": 199.2, "insert_target_per_sec": 200.0, "insert_target_met": true}},
		},
	}, {
		Meta: archive.Run{Figures: ib, Name: "sqlite-1", Start: start.Add(time.Hour), Dbperf: archive.Build{Commit: "unknown"},
			Target: archive.Target{Kind: "sqlite", Version: "3.54.1"}},
		Steps: []archive.Step{
			{Step: "qp1000", Complete: true, Seconds: 3.1,
				Host: &archive.HostSummary{CPUPS: 99, ClientCPUCores: 1.2, ClientBound: true},
				Ops: map[string]measure.OpSummary{
					"insert": op(5600, 1806.5, 3700, 16000, 20000, 20000),
					"query":  op(140000, 45161.3, 19, 263, 2012, 19644),
				},
				Workload: map[string]any{"insert_achieved_per_sec": 1806.5, "insert_target_per_sec": 2000.0, "insert_target_met": false}},
			{Step: "qr100", Complete: false, Seconds: 1.2, Error: "interrupted",
				Ops: map[string]measure.OpSummary{"insert": op(100, 83.3, 1000, 2000, 2000, 2000)}},
		},
	}}
	return runs
}

func TestSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, SummaryTable(summaryRuns()), FormatText); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.txt", b.Bytes())
}

// TestSummaryFormatsGolden: the same table as tab-separated values and as a markdown table;
// the text format is TestSummaryGolden's.
func TestSummaryFormatsGolden(t *testing.T) {
	table := SummaryTable(summaryRuns())
	for format, file := range map[Format]string{FormatText: "summary.txt", FormatTSV: "summary.tsv", FormatMarkdown: "summary.md"} {
		var b bytes.Buffer
		if err := WriteTable(&b, table, format); err != nil {
			t.Fatal(err)
		}
		golden(t, file, b.Bytes())
	}
	if got, want := len(table.Header), len(table.Rows[0]); got != want {
		t.Errorf("%d header cells, %d cells in a row", got, want)
	}
	if _, err := ParseFormat("html"); err == nil || err.Error() != `unknown format "html": the formats are text, tsv, markdown, json` {
		t.Errorf("ParseFormat(html): %v", err)
	}
	if err := WriteTable(&bytes.Buffer{}, table, "csv"); err == nil {
		t.Error("WriteTable accepted format csv")
	}
}

// TestCompactSummaryGolden: the default summary has the headline figures, errors, the gate,
// stalls and a few host figures; --wide (TestSummaryGolden) has every column.
func TestCompactSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, CompactSummaryTable(summaryRuns()), FormatText); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary-compact.txt", b.Bytes())
	for line := range strings.Lines(b.String()) {
		if len(line) > 120 {
			t.Errorf("a line of %d characters: %q", len(line), line)
		}
	}
}

// TestExplainGolden: every column of the wide summary has a meaning, and the legend lists them
// in the table's order.
func TestExplainGolden(t *testing.T) {
	runs := summaryRuns()
	ex := ExplainTable(runs)
	var b bytes.Buffer
	if err := WriteTable(&b, ex, FormatText); err != nil {
		t.Fatal(err)
	}
	golden(t, "explain.txt", b.Bytes())
	wide := SummaryTable(runs)
	if len(ex.Rows) != len(wide.Header) {
		t.Fatalf("%d explained columns, %d in the table", len(ex.Rows), len(wide.Header))
	}
	for i, row := range ex.Rows {
		if row[0] != wide.Header[i] || row[3] == "" {
			t.Errorf("column %d: %v (table: %s)", i, row, wide.Header[i])
		}
	}
}

// TestSummaryWithoutHeadlines: a run archived before columns carried Headline and Help shows
// its rates and 99th percentiles by default, and the legend describes its columns from their
// op type and statistic.
func TestSummaryWithoutHeadlines(t *testing.T) {
	runs := summaryRuns()
	for i := range runs {
		cols := append([]archive.Column(nil), runs[i].Meta.Figures.Columns...)
		for j := range cols {
			cols[j].Headline, cols[j].Help = false, ""
		}
		runs[i].Meta.Figures.Columns = cols
	}
	got := strings.Join(CompactSummaryTable(runs).Header, " ")
	if want := "run step ok secs ips dps qps xps i_p99 d_p99 q_p99 errors i_target stalls wkbpi cpupq client"; got != want {
		t.Errorf("compact header %q, want %q", got, want)
	}
	for _, row := range ExplainTable(runs).Rows {
		if row[0] == "q_p99" && row[3] != "99th percentile latency of op type query, µs" {
			t.Errorf("q_p99: %q", row[3])
		}
	}
}

// TestSummaryJSONGolden: the JSON shape of summary.
func TestSummaryJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, summaryRuns()); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.json", b.Bytes())
	var back SummaryJSON
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Runs) != 2 || back.Runs[1].Steps[0].Gate == nil || back.Runs[1].Steps[0].Gate.Met {
		t.Errorf("read back: %+v", back.Runs)
	}
}

// TestReportsDocDefinesEveryColumn: docs/reports.md, the one place every abbreviation is
// defined, has each summary column and compare figure with its meaning.
func TestReportsDocDefinesEveryColumn(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "reports.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range ExplainTable(summaryRuns()).Rows {
		if line := "| `" + row[0] + "` | " + row[1] + " | " + row[2] + " | " + row[3] + " |"; !bytes.Contains(doc, []byte(line)) {
			t.Errorf("docs/reports.md lacks the line %s (regenerate it with dbperf summary --explain --format markdown)", line)
		}
	}
	base, runs := compareRuns()
	for _, r := range CompareRows(base, runs) {
		if !bytes.Contains(doc, []byte("`"+r.Figure+"`")) {
			t.Errorf("docs/reports.md does not define %s", r.Figure)
		}
	}
}

// TestSLAColumns: steps judged against SLAs get the sla and goodput columns in the summary and a
// goodput row per SLA in compare, better when higher; runs without SLAs get neither.
func TestSLAColumns(t *testing.T) {
	mk := func(name string, goodput float64, met bool) Run {
		return Run{Meta: archive.Run{Name: name, Figures: ib}, Steps: []archive.Step{{Step: "qr100", Complete: true, Verified: true,
			Ops:  map[string]measure.OpSummary{"query": op(3000, 1000, 50, 900, 1500, 2000)},
			SLAs: []measure.SLAResult{{SLA: "query:p99<1ms", Met: met, ValueUs: 900, GoodputPerSec: goodput}}}}}
	}
	a, b := mk("a", 1000, true), mk("b", 600, false)
	sum := CompactSummaryTable([]Run{a, b})
	col := func(name string) int {
		for i, h := range sum.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s in %v", name, sum.Header)
		return -1
	}
	if sum.Rows[0][col("sla")] != "met" || sum.Rows[1][col("sla")] != "MISSED" || sum.Rows[1][col("goodput")] != "600" {
		t.Errorf("summary rows %v", sum.Rows)
	}
	cmp := CompareTable(a, []Run{b})
	found := false
	for i, row := range cmp.Rows {
		if row[1] == "goodput query:p99<1ms" {
			found = true
			if row[4] != "0.60" || cmp.Mark(i, 4) != MarkWorse {
				t.Errorf("goodput row %v mark %d, want 0.60 worse", row, cmp.Mark(i, 4))
			}
		}
	}
	if !found {
		t.Errorf("no goodput row in %v", cmp.Rows)
	}
	plain := CompactSummaryTable(summaryRuns())
	for _, h := range plain.Header {
		if h == "sla" || h == "goodput" {
			t.Errorf("runs without SLAs have column %s", h)
		}
	}
}

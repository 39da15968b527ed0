package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
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
			Target: driver.Info{Kind: "postgres", Version: "15.18"}},
		Steps: []archive.Step{
			{Step: "l.i0", Complete: true, Verified: true, Seconds: 12.3, ClientCPUUsPerOp: 1.16,
				Stalls: &measure.Stalls{Count: 2, LongestSec: 1, TotalSec: 1.5},
				Ops:    map[string]measure.OpSummary{"insert": op(2000000, 162601.6, 610, 3900, 9100, 15000)}},
			{Step: "l.x", Complete: true, Verified: true, Seconds: 4.5,
				Ops: map[string]measure.OpSummary{"index": {Count: 2000000, Statements: 2, PerSec: 444444.4, P50Us: 4400000, P99Us: 4500000, MaxUs: 4500000}}},
			{Step: "qr100", Complete: true, Verified: true, Seconds: 30, Errors: 2, ClientCPUUsPerOp: 14.5,
				Stalls: &measure.Stalls{},
				Host: &archive.HostSummary{RPQ: f(0.002), RKBPQ: f(0.031), WPI: f(0.5), WKBPI: f(4.25), CSPQ: f(1.5),
					CPUPQ: f(48.2), DBMSCPUPQ: f(30.1), CPUPS: 87, DBGB1: f(0.25), DBGB2: f(0.31), RSS: f(4.2), ClientCPUCores: 0.45},
				Ops: map[string]measure.OpSummary{
					"insert": op(6000, 200, 1800, 4800, 5800, 5800),
					"delete": op(6000, 200, 1500, 4100, 4600, 4600),
					"query":  op(900000, 30000, 33, 160, 430, 4260),
				},
				Workload: map[string]any{"insert_achieved_per_sec": 199.2, "insert_target_per_sec": 200.0, "insert_target_met": true}},
		},
	}, {
		Meta: archive.Run{Figures: ib, Name: "sqlite-1", Start: start.Add(time.Hour), Dbperf: archive.Build{Commit: "unknown"},
			Target: driver.Info{Kind: "sqlite", Version: "3.54.1"}},
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
	if _, err := ParseFormat("html"); err == nil || err.Error() != `unknown format "html": the formats are text, tsv, markdown` {
		t.Errorf("ParseFormat(html): %v", err)
	}
	if err := WriteTable(&bytes.Buffer{}, table, "csv"); err == nil {
		t.Error("WriteTable accepted format csv")
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/report"
)

// writeRun makes a run directory with one l.i0 step inserting at ips rows a second. Its run.json
// has no figures, as before runs carried their declaration: the Insert Benchmark's registered
// one serves.
func writeRun(t *testing.T, dir, name string, ips float64) {
	t.Helper()
	path := filepath.Join(dir, name)
	if _, err := archive.Create(path, archive.Run{Name: name, Workload: "insert", Steps: []archive.StepStatus{{Name: "l.i0", Dir: "l.i0", Complete: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(path, "l.i0"), 0o755); err != nil {
		t.Fatal(err)
	}
	step := archive.Step{Step: "l.i0", Complete: true, Verified: true, Seconds: 1, Stalls: &measure.Stalls{},
		Ops: map[string]measure.OpSummary{"insert": {Count: int64(ips), Statements: 10, PerSec: ips, P50Us: 100, P99Us: 900, MaxUs: 1000}}}
	if err := archive.WriteJSON(filepath.Join(path, "l.i0", "summary.json"), step); err != nil {
		t.Fatal(err)
	}
}

// TestSummaryFormatsAndCompare: summary in each format, compare against a base, and the
// mistakes of both.
func TestSummaryFormatsAndCompare(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a", 1000)
	writeRun(t, dir, "b", 1200)
	if s := run(t, dir, "summary", "--format", "tsv", "--wide", "a", "b"); s.code != 0 || !strings.HasPrefix(s.stdout, "run\tstep\tok\t") || !strings.Contains(s.stdout, "\nb\tl.i0\tyes\t1.0\t1200\t") || !strings.Contains(s.stdout, "\tcpu_us_op\t") {
		t.Errorf("summary --format tsv: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "summary", "--format", "markdown", "a"); s.code != 0 || !strings.Contains(s.stdout, "| --- |") {
		t.Errorf("summary --format markdown: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "summary", "--format", "xml", "a"); s.code == 0 || !strings.Contains(s.stderr, `unknown format "xml": the formats are text, tsv, markdown, json`) {
		t.Errorf("summary --format xml: exit %d %q", s.code, s.stderr)
	}
	// The base listed among the runs too (as a glob would) is not compared with itself.
	s := run(t, dir, "compare", "--base", "a", "a", "b")
	lines := strings.Split(strings.TrimSpace(s.stdout), "\n")
	if s.code != 0 || len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "step figure a b ratio" ||
		strings.Join(strings.Fields(lines[1]), " ") != "l.i0 ips 1000 1200 1.20+" {
		t.Errorf("compare: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "compare", "--base", "a", "a"); s.code == 0 || !strings.Contains(s.stderr, "compare needs at least one RUN besides the base") {
		t.Errorf("compare of the base alone: exit %d %q", s.code, s.stderr)
	}
	if s := run(t, dir, "compare", "--base", "a", "b", "--format", "markdown"); s.code != 0 || !strings.Contains(s.stdout, "| l.i0 | ips | 1000 | 1200 | **1.20+** |") {
		t.Errorf("compare --format markdown: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "compare", "b"); s.code == 0 || !strings.Contains(s.stderr, "compare needs --base RUN") {
		t.Errorf("compare without --base: exit %d %q", s.code, s.stderr)
	}
	if s := run(t, dir, "compare", "--base", "nowhere", "b"); s.code == 0 || !strings.Contains(s.stderr, "nowhere is not a dbperf run directory") {
		t.Errorf("compare with a missing base: exit %d %q", s.code, s.stderr)
	}
}

// TestSummaryCompactWideExplainJSON: the compact default, --wide, --explain with and without
// runs, and --format json of summary and compare.
func TestSummaryCompactWideExplainJSON(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a", 1000)
	writeRun(t, dir, "b", 1200)
	s := run(t, dir, "summary", "a", "b")
	if head := strings.Fields(strings.SplitN(s.stdout, "\n", 2)[0]); s.code != 0 || strings.Join(head, " ") != "run step ok secs ips qps i_p99 q_p99 errors i_target stalls wkbpi cpupq client" {
		t.Errorf("summary: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "summary", "--wide", "a"); s.code != 0 || !strings.Contains(s.stdout, "dbms_cpupq") {
		t.Errorf("summary --wide: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	for _, args := range [][]string{{"summary", "--explain"}, {"summary", "--explain", "a"}} {
		s := run(t, dir, args...)
		if s.code != 0 || !strings.Contains(s.stdout, "Per op") || !regexp.MustCompile(`(?m)^q_p99 +default +lower +99th percentile latency of a range query, µs$`).MatchString(s.stdout) {
			t.Errorf("%v: exit %d\n%s%s", args, s.code, s.stdout, s.stderr)
		}
	}
	if s := run(t, dir, "summary"); s.code == 0 || !strings.Contains(s.stderr, "summary needs at least one RUN directory (or --explain)") {
		t.Errorf("summary without runs: exit %d %q", s.code, s.stderr)
	}
	var sum report.SummaryJSON
	s = run(t, dir, "summary", "--format", "json", "a", "b")
	if err := json.Unmarshal([]byte(s.stdout), &sum); err != nil || s.code != 0 || len(sum.Runs) != 2 || sum.Runs[1].Steps[0].Figures["ips"] != 1200 {
		t.Errorf("summary --format json: exit %d %v\n%s%s", s.code, err, s.stdout, s.stderr)
	}
	var cmp report.CompareJSON
	s = run(t, dir, "compare", "--base", "a", "b", "--format", "json")
	if err := json.Unmarshal([]byte(s.stdout), &cmp); err != nil || s.code != 0 || cmp.Rows[0].Figure != "ips" || cmp.Rows[0].Runs[0].Mark != "better" {
		t.Errorf("compare --format json: exit %d %v\n%s%s", s.code, err, s.stdout, s.stderr)
	}
}

// TestCompareNotLikeForLike: runs made with other settings are named before the table.
func TestCompareNotLikeForLike(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a", 1000)
	writeRun(t, dir, "b", 1000)
	meta, _, err := archive.Read(filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	meta.Settings, meta.Seed = map[string]any{"rows": 20000}, 3
	if err := (&archive.Dir{Path: filepath.Join(dir, "b"), Meta: meta}).WriteMeta(); err != nil {
		t.Fatal(err)
	}
	s := run(t, dir, "compare", "--base", "a", "b")
	if first := strings.SplitN(s.stdout, "\n", 2)[0]; s.code != 0 || first != "not like for like: a vs b: rows - vs 20000, seed 0 vs 3" {
		t.Errorf("compare: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	s = run(t, dir, "compare", "--base", "a", "b", "--format", "tsv")
	if s.code != 0 || !strings.HasPrefix(s.stdout, "step\tfigure\t") || !strings.Contains(s.stderr, "not like for like: a vs b") {
		t.Errorf("compare --format tsv: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
}

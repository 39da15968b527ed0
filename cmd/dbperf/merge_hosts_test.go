package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tsvRows reads `dbperf summary --wide --format tsv` into one map of column to cell per row,
// keyed by run and step.
func tsvRows(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Split(lines[0], "\t")
	rows := map[string]map[string]string{}
	for _, l := range lines[1:] {
		cells := strings.Split(l, "\t")
		row := map[string]string{}
		for i, h := range header {
			if i < len(cells) {
				row[h] = cells[i]
			}
		}
		rows[row["run"]+"/"+row["step"]] = row
	}
	return rows
}

func fig(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a figure", s)
	}
	return v
}

// TestMergedHostColumns: 2 shards of a real PostgreSQL run, merged; summary, compare and the
// report show the merged steps' host columns from the shards' host blocks (not "-"): the
// busiest shard's client cores with "!" (every shard client-bound under --client-bound 0.001),
// shard 0's DBMS figures over both shards' operations, and the report a per-shard table and
// client_bound_why as the client cell's tooltip.
func TestMergedHostColumns(t *testing.T) {
	target := serverTargets(t, "dbperf_mergehosts")["postgres"]
	if target == "" {
		t.Skip("no PostgreSQL (-short)")
	}
	dir := t.TempDir()
	_, steps := runShards(t, dir, target, 2, "--clients", "2", "--rows", "3000", "--steps", "l.i0,qr100",
		"--q-seconds", "2", "--seed", "5", "--drop", "--client-bound", "0.001")
	r := run(t, dir, "summary", "--wide", "--format", "tsv", "s0", "s1", "merged")
	if r.code != 0 {
		t.Fatalf("summary: %d %s", r.code, r.stderr)
	}
	rows := tsvRows(t, r.stdout)
	for _, s := range steps {
		if s.Hosts == nil || !s.Hosts.ClientBound {
			t.Fatalf("step %s: hosts %+v; want both shards client-bound", s.Step, s.Hosts)
		}
		m, s0, s1 := rows["merged/"+s.Step], rows["s0/"+s.Step], rows["s1/"+s.Step]
		for _, col := range []string{"client", "cpupq", "dbms_cpupq", "cpups", "rss", "dbgb1"} {
			if m[col] == "-" || m[col] == "" {
				t.Errorf("step %s: merged %s is %q; want a figure (shard 0: %q)", s.Step, col, m[col], s0[col])
			}
		}
		if want := max(s0["client"], s1["client"]); m["client"] != want || !strings.HasSuffix(want, "!") {
			t.Errorf("step %s: merged client %q; shards %q, %q: want the busiest, client-bound", s.Step, m["client"], s0["client"], s1["client"])
		}
		if m["rss"] != s0["rss"] || m["dbgb1"] != s0["dbgb1"] {
			t.Errorf("step %s: merged rss %s, dbgb1 %s; shard 0's %s, %s", s.Step, m["rss"], m["dbgb1"], s0["rss"], s0["dbgb1"])
		}
		if fig(t, m["dbms_cpupq"]) >= fig(t, s0["dbms_cpupq"]) {
			t.Errorf("step %s: merged dbms_cpupq %s, shard 0's %s: shard 0's DBMS CPU is not over both shards' operations", s.Step, m["dbms_cpupq"], s0["dbms_cpupq"])
		}
	}
	if r := run(t, dir, "compare", "--base", "s0", "merged"); r.code != 0 || !strings.Contains(r.stdout, "dbms_cpupq") {
		t.Errorf("compare: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, "report", "merged", "-o", "r.html"); r.code != 0 {
		t.Fatalf("report: %d %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<table class="data shards">`, `<th>late wake-ups</th>`, `title="shard 0 (`, `; shard 1 (`, `>` + rows["merged/qr100"]["client"] + `</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report has no %q", want)
		}
	}
}

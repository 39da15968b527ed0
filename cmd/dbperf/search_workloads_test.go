package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/search"
)

// TestSearchScript: a search of your own script needs no setup (its tables are yours) and its
// rate is every script's transactions; with --builtin the init step runs once first; what a
// search cannot do is refused.
func TestSearchScript(t *testing.T) {
	dir := t.TempDir()
	sql := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(sql, []byte("\\set n random(1, 10)\nSELECT :n;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Whether a trial passes depends on the machine's load; what the search ran does not.
	r := run(t, dir, "search", "script", "--file", sql, "--sla", "one:p99<1m", "--start-rate", "50", "--max-rate", "100",
		"--max-trials", "2", "--trial", "1s", "--warmup", "0s", "--out", "s", "--seed", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rec := readSearch(t, filepath.Join(dir, "s"), r.stdout)
	if len(rec.Trials) != 2 || rec.Rule != search.RateRule || rec.Trials[0].Achieved < 25 {
		t.Errorf("search.json: %+v", rec)
	}
	meta, _, err := archive.Read(filepath.Join(dir, "s"))
	if err != nil || meta.Steps[0].Name != "run-r50" {
		t.Errorf("the first step %+v (%v): want the first trial, no setup", meta.Steps, err)
	}
	r = run(t, dir, "search", "script", "--builtin", "select-only", "--scale", "1", "--sla", "select-only:p99<1m", "--start-rate", "100",
		"--max-rate", "100", "--trial", "1s", "--warmup", "0s", "--target", "sqlite:"+filepath.Join(dir, "pgb.db"), "--out", "b", "--seed", "3")
	if r.code != 0 {
		t.Fatalf("builtin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if meta, _, err := archive.Read(filepath.Join(dir, "b")); err != nil || meta.Steps[0].Name != "init" || len(meta.Steps) != 2 {
		t.Errorf("builtin search's steps %+v (%v): want init once, then the trial", meta.Steps, err)
	}
	for args, want := range map[string]string{
		"--step init":      "--step init: the step a search runs is run",
		"--per-statement":  "--per-statement runs a closed loop only",
		"--sla two:p99<1s": `names op type "two"`,
	} {
		a := append([]string{"search", "script", "--file", sql, "--sla", "one:p99<1s"}, strings.Fields(args)...)
		if r := run(t, dir, a...); r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d %q, want %q", args, r.code, r.stderr, want)
		}
	}
}

// TestSearchYCSB: workload D inserts, so usertable is loaded again before every trial after the
// first, and each trial's check counts the records its own warm-up and step inserted.
func TestSearchYCSB(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "ycsb", "--workload", "d", "--records", "1000", "--sla", "read:p99<1m", "--start-rate", "100",
		"--max-rate", "200", "--max-trials", "2", "--trial", "1s", "--warmup", "1s", "--out", "s", "--seed", "3")
	if r.code != 0 { // a trial whose check failed (a record too many or too few) would fail the search
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if rec := readSearch(t, filepath.Join(dir, "s"), r.stdout); len(rec.Trials) != 2 || rec.Trials[0].Achieved < 50 {
		t.Errorf("search.json: %+v", rec)
	}
	_, steps, err := archive.Read(filepath.Join(dir, "s"))
	var reloads int
	for _, st := range steps {
		if strings.HasPrefix(st.Step, "load-r") && st.Verified {
			reloads++
		}
	}
	if err != nil || reloads != 1 {
		t.Errorf("%d checked reloads (%v); want one, before the second trial", reloads, err)
	}
	if r := run(t, dir, "search", "ycsb", "--setup", "run", "--sla", "read:p99<1s"); r.code == 0 || !strings.Contains(r.stderr, "--setup must start with load") {
		t.Errorf("--setup run: exit %d %q", r.code, r.stderr)
	}
}

// TestSearchLinkBenchQueryMode: search linkbench takes run linkbench's --query-mode, records it,
// and refuses simple where only MySQL offers it.
func TestSearchLinkBenchQueryMode(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "linkbench", "--maxid", "1001", "--requesters", "1", "--query-mode", "prepared", "--sla", "get_link_list:p99<1m",
		"--start-rate", "50", "--max-rate", "50", "--trial", "1s", "--warmup", "0s", "--out", "s", "--seed", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s", "run.json"))
	if err != nil || !strings.Contains(string(b), `"query_mode": "prepared"`) {
		t.Errorf("run.json has no query_mode prepared (%v)", err)
	}
	r = run(t, dir, "search", "linkbench", "--query-mode", "simple", "--sla", "get_link_list:p99<1m", "--out", "t")
	if r.code == 0 || !strings.Contains(r.stderr, "--query-mode simple applies to MySQL targets only") {
		t.Errorf("simple on SQLite: exit %d, %q", r.code, r.stderr)
	}
}

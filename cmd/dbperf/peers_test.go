package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptName: --name names the op type of the only --file: an SLA and the summary use that
// name, and the file's own name is no op type.
func TestScriptName(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "upd.sql")
	if err := os.WriteFile(file, []byte("\\set x random(1, 10)\nSELECT :x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "script", "--file", file, "--name", "mine", "--transactions", "20", "--quiet"}
	if r := run(t, dir, append(args, "--sla", "mine:p99<10s", "--out", "n")...); r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if s := run(t, dir, "summary", "--wide", "n"); s.code != 0 || !strings.Contains(s.stdout, "mine") {
		t.Errorf("summary has no op type mine: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	sub := t.TempDir()
	if r := run(t, sub, append(args, "--sla", "upd:p99<10s")...); r.code == 0 || !strings.Contains(r.stderr, `names op type "upd"`) {
		t.Errorf("an SLA on the file's name under --name mine: exit %d %q", r.code, r.stderr)
	}
}

// TestRepeatYCSB: run ycsb --repeat 2 makes a group of two runs, which summary reads as one
// (n = 2 and a median for each figure).
func TestRepeatYCSB(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "run", "ycsb", "--repeat", "2", "--workload", "b", "--records", "300", "--operations", "600", "--threads", "2", "--quiet", "--out", "g"); r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var sum groupSummary
	s := run(t, dir, "summary", "--format", "json", "g")
	if err := json.Unmarshal([]byte(s.stdout), &sum); s.code != 0 || err != nil || len(sum.Rows) == 0 {
		t.Fatalf("summary --format json of the group: exit %d, %v\n%s%s", s.code, err, s.stdout, s.stderr)
	}
	for _, r := range sum.Rows {
		if r.N != 2 {
			t.Errorf("figure %s over %d runs, want 2", r.Figure, r.N)
		}
	}
	if s := run(t, dir, "summary", "g"); s.code != 0 || !strings.Contains(s.stdout, "ops") {
		t.Errorf("summary of the group: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
}

// TestYCSBSplitLoadCommand: two loads of half the records each (--insert-start 0 and 500) into
// one SQLite file, then a run step, all pass their checks: the second load keeps the first's
// records (a load that dropped usertable left 500, and the run's reads missed).
func TestYCSBSplitLoadCommand(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "y.sqlite")
	for i, args := range [][]string{
		{"--steps", "load", "--insert-start", "0", "--insert-count", "500"},
		{"--steps", "load", "--insert-start", "500", "--insert-count", "500"},
		{"--steps", "run", "--workload", "c"},
	} {
		all := append([]string{"run", "ycsb", "--records", "1000", "--operations", "1000", "--target", target, "--quiet", "--out", "s" + string(rune('0'+i))}, args...)
		if r := run(t, dir, all...); r.code != 0 || !strings.Contains(r.stdout, "check: the database holds") {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestClientProcsFixed: --client-procs N --client-path raw runs pgbench's tpcb-like as pgbench
// -j N does, the clients sharing N threads: the step says it used N processors (3, which auto
// never gives on this path: it doubles from one), run.json records both choices and no thread
// per worker, and the balances still check.
func TestClientProcsFixed(t *testing.T) {
	dsn := testPostgres(t)
	dsn = dsn[:strings.LastIndex(dsn, "/")+1] + "dbperf_procs" // its own database, created by dbperf
	dir := t.TempDir()
	r := run(t, dir, "--client-procs", "3", "--client-path", "raw", "run", "script", "--builtin", "tpcb-like", "--scale", "1",
		"--clients", "4", "--transactions", "200", "--target", dsn, "--quiet", "--out", "p")
	if r.code != 0 || !strings.Contains(r.stdout, "check: ") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var sum struct {
		Host struct {
			ClientProcs int `json:"client_procs"`
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "p/run/summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum.Host.ClientProcs != 3 {
		t.Errorf("run step: client_procs %d (%v), want 3", sum.Host.ClientProcs, err)
	}
	var meta struct{ Settings map[string]any }
	b, _ = os.ReadFile(filepath.Join(dir, "p/run.json"))
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	s := meta.Settings
	if s["client_procs"] != "3" || s["client_path"] != "raw" || s["worker_os_threads"] != nil {
		t.Errorf("run.json settings: client_procs %v, client_path %v, worker_os_threads %v", s["client_procs"], s["client_path"], s["worker_os_threads"])
	}
}

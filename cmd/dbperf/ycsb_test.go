package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestYCSBCommand: run ycsb loads and runs a workload into a run directory that summary reads;
// its mistakes get one sentence and leave nothing behind.
func TestYCSBCommand(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "run", "ycsb", "--workload", "b", "--records", "500", "--operations", "2000", "--threads", "2", "--sla", "read:p99<10s", "--quiet", "--out", "y"); r.code != 0 || !strings.Contains(r.stdout, "== summary of") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if s := run(t, dir, "summary", "--wide", "y"); s.code != 0 || !strings.Contains(s.stdout, "rd_p99") {
		t.Errorf("summary: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "ycsb", "--workload", "g"}, "--workload \"g\": give a, b, c, d, e or f"},
		{[]string{"run", "ycsb", "--records", "0"}, "--records must be 1"},
		{[]string{"run", "ycsb", "--insert-start", "900", "--insert-count", "200"}, "must be within --records"},
		{[]string{"run", "ycsb", "--request-distribution", "pareto"}, "give uniform, zipfian, latest, hotspot, sequential or exponential"},
		{[]string{"run", "ycsb", "--steps", "run"}, "run load first"},
		{[]string{"run", "ycsb", "--sla", "get:p99<1ms"}, `names op type "get"`},
	} {
		sub := t.TempDir()
		r := run(t, sub, c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(sub, "runs")); err == nil {
			t.Errorf("%v left a run directory", c.args)
		}
	}
}

// TestYCSBQueryMode: run ycsb --query-mode loads and runs workload a with its checks on the CI's
// PostgreSQL and MariaDB in each mode and records the mode in run.json (SQLite without the flag:
// prepared); a key-value target and an unknown mode are refused with one sentence.
func TestYCSBQueryMode(t *testing.T) {
	dir := t.TempDir()
	for name, target := range serverTargets(t, "dbperf_ycsb_cmdmode") {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			out := "runs/" + name + "-" + mode
			r := run(t, dir, "run", "ycsb", "--records", "200", "--operations", "400", "--threads", "2", "--query-mode", mode,
				"--target", target, "--quiet", "--out", out)
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", name, mode, r.code, r.stderr)
			}
			if b, err := os.ReadFile(filepath.Join(dir, out, "run.json")); err != nil || !strings.Contains(string(b), `"query_mode": "`+mode+`"`) {
				t.Errorf("%s %s: run.json has no query_mode %s (%v)", name, mode, mode, err)
			}
		}
	}
	if r := run(t, dir, "run", "ycsb", "--records", "100", "--operations", "100", "--target", "sqlite", "--quiet", "--out", "runs/lite"); r.code != 0 {
		t.Fatalf("sqlite: exit %d\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "runs/lite/run.json")); err != nil || !strings.Contains(string(b), `"query_mode": "prepared"`) {
		t.Errorf("sqlite: run.json has no query_mode prepared (%v)", err)
	}
	for _, c := range []struct{ args, want string }{
		{"--target pebble --query-mode simple", "--query-mode applies to SQL targets only"},
		{"--target sqlite --query-mode text", `--query-mode "text": give simple, extended or prepared`},
	} {
		r := run(t, dir, append([]string{"run", "ycsb", "--out", "runs/bad"}, strings.Fields(c.args)...)...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestYCSBWorkloadFOps pins docs/ycsb.md's account of workload F: each read-modify-write is one
// operation of its own op type, its read and update not counted as read and update (YCSB's
// DBWrapper counts them there too), so read + read-modify-write make up every operation.
func TestYCSBWorkloadFOps(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "run", "ycsb", "--workload", "f", "--records", "200", "--operations", "1000", "--seed", "5", "--quiet", "--out", "f"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "f", "run", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum archive.Step
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	read, rmw, upd := sum.Ops["read"].Count, sum.Ops["read-modify-write"].Count, sum.Ops["update"].Count
	if read+rmw != 1000 || upd != 0 || rmw < 400 || rmw > 600 || sum.Workload["operations"] != 1000.0 {
		t.Errorf("workload f: %d reads, %d read-modify-writes, %d updates, operations %v; want 1000 in all, about half each, no updates",
			read, rmw, upd, sum.Workload["operations"])
	}
}

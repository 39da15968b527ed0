package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

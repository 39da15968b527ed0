package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusedFlags: a flag that conflicts with another or means nothing where it is given is
// refused with one sentence before anything runs, and leaves no run directory.
func TestRefusedFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"reference lines on linkbench", []string{"linkbench", "--reference-lines"}, "--reference-lines prints the lines of the Insert Benchmark's reference client; the linkbench workload's reference prints none"},
		{"reference lines on kv", []string{"kv", "--reference-lines"}, "the kv workload's reference prints none"},
		{"no-verify with full-checks", []string{"insert", "--no-verify", "--full-checks"}, "--full-checks chooses the checks that --no-verify skips: give one of them"},
		{"prepared on sqlite", []string{"insert", "--prepared"}, "--prepared applies to PostgreSQL and MySQL/MariaDB targets only, and sqlite is not one"},
		{"prepared on one embedded target of two", []string{"insert", "--prepared", "--target", "postgres://u@127.0.0.1:1/db", "--target", "pebble"}, "and pebble is not one"},
		{"sla on no step's op (insert)", []string{"insert", "--steps", "l.i0,l.x", "--sla", "query:p99<2ms"}, `--sla query:p99<2ms judges op type "query", which none of the steps l.i0,l.x records`},
		{"sla on no step's op (kv)", []string{"kv", "--steps", "fillseq,overwritesome", "--sla", "get:p99<1ms"}, `which none of the steps fillseq,overwritesome records`},
		{"sla on no step's op (linkbench)", []string{"linkbench", "--steps", "load", "--sla", "get_node:p99<1ms"}, `which none of the steps load records`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			r := run(t, dir, append([]string{"run"}, append(c.args, "--out", "runs/x")...)...)
			if r.code == 0 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want it to say %q", r.code, r.stderr, c.want)
			}
			if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n > 0 || r.stdout != "" {
				t.Errorf("more than one sentence: stdout %q, stderr %q", r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
				t.Errorf("a refused invocation left a run directory behind")
			}
		})
	}
}

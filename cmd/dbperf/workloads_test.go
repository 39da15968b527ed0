package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkBenchAndKVCommands: each workload command runs at a tiny size into a run directory
// that summary reads, and its mistakes get one sentence and leave nothing behind.
func TestLinkBenchAndKVCommands(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // in the summary
	}{
		{[]string{"run", "linkbench", "--maxid", "2001", "--requesters", "2", "--requests", "200", "--quiet", "--out", "lb"}, "gll_p99"},
		{[]string{"run", "kv", "--keys", "2000", "--threads", "2", "--step-seconds", "1", "--steps", "fillseq,readrandom", "--quiet", "--out", "kv"}, "readrandom"},
	} {
		if r := run(t, dir, c.args...); r.code != 0 || !strings.Contains(r.stdout, "== summary of") {
			t.Fatalf("%v: exit %d\n%s%s", c.args, r.code, r.stdout, r.stderr)
		}
		out := c.args[len(c.args)-1]
		if s := run(t, dir, "summary", "--wide", out); s.code != 0 || !strings.Contains(s.stdout, c.want) {
			t.Errorf("summary of %s: exit %d\n%s%s", out, s.code, s.stdout, s.stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "linkbench", "--maxid", "0"}, "--maxid must be more than --startid + 1"},
		{[]string{"run", "linkbench", "--mix", "2020"}, "--mix must be 2013 or 2017"},
		{[]string{"run", "linkbench", "--steps", "request"}, "run load first (e.g. --steps load,request)"},
		{[]string{"run", "kv", "--keys", "0"}, "--keys must be at least 1"},
		{[]string{"run", "kv", "--steps", "readrandom"}, "run fillseq first (e.g. --steps fillseq,readrandom)"},
		{[]string{"run", "kv", "--target", "rocksdb"}, "-tags rocksdb"},
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

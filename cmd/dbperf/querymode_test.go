package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestQueryModeFlags: the Insert Benchmark's --query-mode sets the mode --prepared sets, either
// flag may be given alone or both when they agree, and conflicting values are refused.
func TestQueryModeFlags(t *testing.T) {
	for _, c := range []struct {
		args     []string
		prepared bool
		err      string
	}{
		{nil, false, ""},
		{[]string{"--query-mode", "prepared"}, true, ""},
		{[]string{"--query-mode", "simple"}, false, ""},
		{[]string{"--prepared"}, true, ""},
		{[]string{"--prepared", "--query-mode", "prepared"}, true, ""},
		{[]string{"--prepared=false", "--query-mode", "simple"}, false, ""},
		{[]string{"--prepared", "--query-mode", "simple"}, false, "--query-mode simple conflicts with --prepared=true"},
		{[]string{"--query-mode", "simple", "--prepared"}, false, "--prepared=true conflicts with --query-mode simple"},
		{[]string{"--query-mode", "extended"}, false, "give simple or prepared"},
	} {
		f := pflag.NewFlagSet("insert", pflag.ContinueOnError)
		f.SetOutput(&strings.Builder{})
		var prepared bool
		addQueryModeFlags(f, &prepared)
		err := f.Parse(c.args)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.err)
		case c.err == "" && (err != nil || prepared != c.prepared):
			t.Errorf("%v: prepared %v, %v; want %v", c.args, prepared, err, c.prepared)
		}
	}
}

// TestLinkBenchQueryMode: run linkbench records the query mode in run.json's settings (SQLite
// prepares, its only mode), and refuses simple where only MySQL offers it.
func TestLinkBenchQueryMode(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "linkbench", "--maxid", "101", "--requesters", "1", "--requests", "10", "--query-mode", "prepared", "--out", "runs/p")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs/p/run.json"))
	if err != nil || !strings.Contains(string(b), `"query_mode": "prepared"`) {
		t.Fatalf("run.json has no query_mode prepared (%v)", err)
	}
	r = run(t, dir, "run", "linkbench", "--maxid", "101", "--query-mode", "simple", "--out", "runs/s")
	if r.code == 0 || !strings.Contains(r.stderr, "--query-mode simple applies to MySQL targets only") {
		t.Fatalf("simple on SQLite: exit %d, %q", r.code, r.stderr)
	}
	r = run(t, dir, "run", "linkbench", "--query-mode", "text", "--out", "runs/t")
	if r.code == 0 || !strings.Contains(r.stderr, "--query-mode must be simple or prepared") {
		t.Fatalf("a bad mode: exit %d, %q", r.code, r.stderr)
	}
}

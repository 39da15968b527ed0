package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSysbenchCommand: run sysbench prepares and runs a test into a run directory that summary
// reads, with sysbench's underscore spellings and its figures; run.json records the query mode
// and the options by sysbench's names; mistakes get one sentence and leave nothing behind.
func TestSysbenchCommand(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "run", "sysbench", "oltp_read_write", "--table_size", "300", "--tables", "2", "--threads", "2",
		"--events", "100", "--time", "0", "--rand-type", "pareto", "--sla", "trx:p99<10s", "--quiet", "--out", "s"); r.code != 0 || !strings.Contains(r.stdout, "== summary of") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if s := run(t, dir, "summary", "--wide", "s"); s.code != 0 || !strings.Contains(s.stdout, "qps") || !strings.Contains(s.stdout, "lat_p95_ms") {
		t.Errorf("summary: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "s", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"query_mode": "prepared"`, `"table_size": 300`, `"rand_type": "pareto"`, `"test": "oltp_read_write"`} {
		if !strings.Contains(string(meta), want) {
			t.Errorf("run.json lacks %s", want)
		}
	}
	// A warm-up before a timed run step on tables an earlier prepare left.
	db := "sqlite:" + filepath.Join(dir, "sb.sqlite")
	if r := run(t, dir, "run", "sysbench", "read_only", "--target", db, "--table-size", "200", "--steps", "prepare", "--quiet", "--out", "p"); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, "run", "sysbench", "read_only", "--target", db, "--table-size", "200", "--steps", "run", "--time", "1", "--warmup", "500ms", "--quiet", "--out", "w"); r.code != 0 {
		t.Fatalf("warm-up run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "w", "run", "summary.json")); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "sysbench", "oltp_tpcc"}, `unknown test "oltp_tpcc"`},
		{[]string{"run", "sysbench", "read_only", "--rand-type", "zipfian"}, "give uniform, gaussian, special or pareto"},
		{[]string{"run", "sysbench", "read_only", "--table-size", "0"}, "--table-size must be 1"},
		{[]string{"run", "sysbench", "read_only", "--time", "0"}, "give --events or --time"},
		{[]string{"run", "sysbench", "read_only", "--db-ps-mode", "auto", "--query-mode", "simple"}, "disagree"},
		{[]string{"run", "sysbench", "read_only", "--query-mode", "simple"}, "SQLite's statements are prepared"},
		{[]string{"run", "sysbench", "read_only", "--mysql-ignore-errors", "deadlock"}, "give error numbers"},
		{[]string{"run", "sysbench", "read_only", "--steps", "run"}, "run prepare first"},
		{[]string{"run", "sysbench", "read_only", "--sla", "query:p99<1ms"}, `names op type "query"`},
		{[]string{"run", "sysbench", "read_only", "--warmup", "1s"}, "step prepare creates and loads the tables"},
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

// TestSearchSysbench: search sysbench prepares once and runs trials of the run step into a run
// directory with search.json; a setup without prepare is refused in one sentence.
func TestSearchSysbench(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "sysbench", "point_select", "--table_size", "300", "--threads", "2", "--sla", "trx:p99<10s",
		"--start-rate", "200", "--max-trials", "2", "--trial", "1s", "--warmup", "0s", "--out", "s")
	if r.code != 0 || !strings.Contains(r.stdout, "highest passing rate") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "s", "search.json")); err != nil {
		t.Error(err)
	}
	if r := run(t, t.TempDir(), "search", "sysbench", "read_only", "--setup", "run", "--sla", "trx:p99<1s"); r.code == 0 || !strings.Contains(r.stderr, "--setup must be prepare") {
		t.Errorf("--setup run: exit %d %q", r.code, r.stderr)
	}
}

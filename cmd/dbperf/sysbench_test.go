package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
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
	// Each step's summary (and so its op table) holds only the op types it can record.
	for step, want := range map[string]string{"prepare": "load", "run": "trx"} {
		b, err := os.ReadFile(filepath.Join(dir, "s", step, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum archive.Step
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if _, ok := sum.Ops[want]; !ok || len(sum.Ops) != 1 {
			t.Errorf("%s step's ops: %v, want %s alone", step, slices.Sorted(maps.Keys(sum.Ops)), want)
		}
	}
	// A warm-up before a timed run step on tables an earlier prepare left.
	db := "sqlite:" + filepath.Join(dir, "sb.sqlite")
	if r := run(t, dir, "run", "sysbench", "read_only", "--target", db, "--table-size", "200", "--steps", "prepare", "--quiet", "--out", "p"); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, "run", "sysbench", "read_only", "--target", db, "--table-size", "200", "--steps", "run", "--time", "1", "--warmup", "500ms", "--threads", "2", "--quiet", "--out", "w"); r.code != 0 {
		t.Fatalf("warm-up run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkWarmupCut(t, filepath.Join(dir, "w", "run", "summary.json"))
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
		{[]string{"run", "sysbench", "read_only", "--rate", "500"}, "sysbench's --rate 500 is --arrival poisson --rate 500: add --arrival poisson"},
		{[]string{"run", "sysbench", "read_only", "--shard", "0/4", "--threads", "2", "--seed", "1"}, "splits 2 threads over 4 shards"},
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

// checkWarmupCut: after a warm-up, read_only's queries are exactly 14 reads and 2 others per
// transaction: the figures cut the warm-up between the same two events for both (the trx op's
// count, cut by the runner as it drains each client, may differ by the events that ended
// during the drain).
func checkWarmupCut(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum archive.Step
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	w := sum.Workload
	trx, _ := w["transactions"].(float64)
	if trx == 0 || w["queries_read"] != 14*trx || w["queries_other"] != 2*trx || w["queries_write"] != 0.0 {
		t.Errorf("after the warm-up: %v transactions, %v reads, %v other, %v writes; want 14 reads and 2 other a transaction",
			w["transactions"], w["queries_read"], w["queries_other"], w["queries_write"])
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

// TestShardedSysbench: 2 shard processes of one read_write run on PostgreSQL split the 3
// threads (prepare's threads and their tables with them) and the 300 events; the merged run has
// every table's rows loaded, all 300 events and their queries added up, and shard 0's checks of
// the whole tables passed.
func TestShardedSysbench(t *testing.T) {
	target := postgresDatabase(t, "dbperf_sbshard") // shard_test.go
	meta, steps := runWorkloadShards(t, t.TempDir(), "sysbench", target, 2, "read_write", "--tables", "3", "--table-size", "500",
		"--threads", "3", "--events", "300", "--time", "0", "--seed", "3")
	if a, b := meta.Shards[0].Work["threads"], meta.Shards[1].Work["threads"]; a[0] != 0 || a[1] != b[0] || b[1] != 3 {
		t.Errorf("the shards' threads %v and %v do not cover [0, 3)", a, b)
	}
	if len(steps) != 2 || !steps[0].Verified || !steps[1].Verified {
		t.Fatalf("merged steps %+v", steps)
	}
	if n := steps[0].Ops["load"].Count; n != 1500 {
		t.Errorf("prepare loaded %d rows, want 3 x 500", n)
	}
	if n := steps[1].Ops["trx"].Count; n != 300 {
		t.Errorf("the run did %d events, want 300", n)
	}
	w := steps[1].Workload
	if w["transactions"] != float64(300) {
		t.Errorf("merged transactions %v, want 300", w["transactions"])
	}
	if w["ignored_errors"] == float64(0) && w["queries_total"] != float64(300*20) { // a restart adds statements
		t.Errorf("merged queries %v, want 20 for each of 300 events", w["queries_total"])
	}
}

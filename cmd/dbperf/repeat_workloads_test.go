package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run `--repeat 2` of each peer workload (script, sysbench, ycsb) at a small size on
// an embedded target, then read the group back as a user would: group.json lists both repeats,
// each a run directory of its own, summary's statistics cover both runs, and dbperf report
// writes a page with a groups section and a latency series of each of the workload's op types.

// TestRepeatScriptGroup: a user's pgbench script on SQLite, op type "pick".
func TestRepeatScriptGroup(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pick.sql")
	if err := os.WriteFile(file, []byte("\\set x random(1, 100)\nSELECT :x + 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRepeatGroup(t, dir, "script", []string{"pick"},
		"run", "script", "--file", file, "--clients", "2", "--transactions", "50")
}

// TestRepeatSysbenchGroup: oltp_read_write on SQLite, 2 tables of 200 rows; op types trx and load.
func TestRepeatSysbenchGroup(t *testing.T) {
	checkRepeatGroup(t, t.TempDir(), "sysbench", []string{"trx", "load"},
		"run", "sysbench", "oltp_read_write", "--tables", "2", "--table-size", "200", "--threads", "2", "--events", "40")
}

// TestRepeatYCSBGroup: workload a on Pebble, 300 records and 600 operations; op types insert
// (the load), read and update.
func TestRepeatYCSBGroup(t *testing.T) {
	checkRepeatGroup(t, t.TempDir(), "ycsb", []string{"insert", "read", "update"},
		"run", "ycsb", "--workload", "a", "--records", "300", "--operations", "600", "--threads", "2")
}

// checkRepeatGroup runs args with --repeat 2 into dir/g and checks the group, its statistics
// and its report.
func checkRepeatGroup(t *testing.T, dir, workload string, ops []string, args ...string) {
	t.Helper()
	args = append(args, "--repeat", "2", "--seed", "7", "--quiet", "--out", "g")
	if r := run(t, dir, args...); r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	var g struct {
		Workload string   `json:"workload"`
		Repeats  int      `json:"repeats"`
		Runs     []string `json:"runs"`
		Seeds    []uint64 `json:"seeds"`
		Failed   []string `json:"failed"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "g", "group.json"))
	if err != nil {
		t.Fatalf("no group.json: %v", err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Workload != workload || g.Repeats != 2 || len(g.Runs) != 2 || len(g.Failed) != 0 || len(g.Seeds) != 2 || g.Seeds[0] == g.Seeds[1] {
		t.Errorf("group.json: %s", b)
	}
	for _, r := range g.Runs {
		if _, err := os.Stat(filepath.Join(dir, "g", r, "run.json")); err != nil {
			t.Errorf("repeat %s has no run.json: %v", r, err)
		}
	}
	var sum struct {
		Rows []struct {
			Figure string    `json:"figure"`
			N      int       `json:"n"`
			Median float64   `json:"median"`
			Low    *float64  `json:"ci95_low"`
			High   *float64  `json:"ci95_high"`
			Values []float64 `json:"values"`
		} `json:"rows"`
	}
	s := run(t, dir, "summary", "--format", "json", "g")
	if err := json.Unmarshal([]byte(s.stdout), &sum); s.code != 0 || err != nil || len(sum.Rows) == 0 {
		t.Fatalf("summary --format json of the group: exit %d, %v\n%s%s", s.code, err, s.stdout, s.stderr)
	}
	withInterval := 0
	for _, r := range sum.Rows {
		if r.N != 2 || len(r.Values) != 2 {
			t.Errorf("figure %s over %d runs (%d values), want 2", r.Figure, r.N, len(r.Values))
		}
		if r.Low != nil && r.High != nil && *r.Low <= r.Median && r.Median <= *r.High && r.Median > 0 {
			withInterval++
		}
	}
	if withInterval == 0 {
		t.Errorf("no figure of the group has a median inside a 95%% interval:\n%s", s.stdout)
	}
	if s := run(t, dir, "report", "g", "-o", "g.html"); s.code != 0 {
		t.Fatalf("report of the group: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "g.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<section id="groups">`) || !strings.Contains(string(page), "g/rep-2") {
		t.Errorf("g.html has no groups section or no run g/rep-2")
	}
	for _, op := range ops { // a latency series of the op type measured in the runs
		if !strings.Contains(string(page), `"what":"`+op+`"`) {
			t.Errorf("g.html has no series of op type %q", op)
		}
	}
}

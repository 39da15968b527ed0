package main

import (
	"encoding/json"
	"fmt"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/search"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchCommand runs a short search whose SLA every trial meets (p99 below a minute): it
// must double from --start-rate to --max-rate and say the answer is a bound, archive every trial
// as a step beside search.json, and refuse what it cannot search.
func TestSearchCommand(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "insert", "--target", "pebble", "--rows", "500", "--sla", "query:p99<1m",
		"--start-rate", "50", "--max-rate", "200", "--trial", "1s", "--warmup", "0s", "--out", "s", "--seed", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "highest passing rate: at least 200/s (passed at --max-rate 200)") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rec archive.Search
	b, err := os.ReadFile(filepath.Join(dir, "s", "search.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil {
		t.Fatalf("search.json: %v", err)
	}
	if len(rec.Trials) != 3 || rec.Trials[0].Rate != 50 || rec.Trials[2].Rate != 200 || !rec.Bounded || rec.Rule != search.RateRule {
		t.Errorf("search.json: %+v", rec)
	}
	for _, tr := range rec.Trials {
		if _, err := os.Stat(filepath.Join(dir, "s", tr.Step, "summary.json")); err != nil || !tr.Pass || len(tr.SLAs) != 1 {
			t.Errorf("trial %+v: %v", tr, err)
		}
	}
	for args, want := range map[string]string{
		"--step l.i1 --sla query:p99<1s": "step l.i1 cannot be searched",
		"--sla querry:p99<1s":            `names op type "querry"`,
		"--start-rate 10":                "search needs at least one --sla",
	} {
		r := run(t, dir, append([]string{"search", "insert", "--rows", "200"}, strings.Fields(args)...)...)
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d %q, want %q", args, r.code, r.stderr, want)
		}
	}
}

// TestSearchLinkBench: LinkBench's request step changes the graph, so every trial after the
// first starts from a graph loaded again (a step load-rRATE before it); the achieved rate is all
// request types together.
func TestSearchLinkBench(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "linkbench", "--target", "pebble", "--maxid", "2001", "--requesters", "2", "--sla", "get_link_list:p99<1m",
		"--start-rate", "100", "--max-rate", "200", "--trial", "1s", "--warmup", "0s", "--out", "s", "--seed", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "highest passing rate: at least 200/s") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rec archive.Search
	b, err := os.ReadFile(filepath.Join(dir, "s", "search.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil || len(rec.Trials) != 2 {
		t.Fatalf("search.json: %s %v", b, err)
	}
	if rec.Trials[1].Achieved < 0.95*200 {
		t.Errorf("trial at 200/s achieved %v: the rate of all request types, it must hold 95%%", rec.Trials[1].Achieved)
	}
	if _, err := os.Stat(filepath.Join(dir, "s", "load-r200", "summary.json")); err != nil {
		t.Errorf("no reload before the second trial: %v", err)
	}
	if r := run(t, dir, "search", "linkbench", "--step", "load", "--sla", "get_link_list:p99<1s"); r.code == 0 || !strings.Contains(r.stderr, "step load cannot be searched") {
		t.Errorf("search of the load step: exit %d %q", r.code, r.stderr)
	}
}

// TestSearchVaryClients: with --vary clients a closed loop's requester count doubles from 1 to
// --max-rate; the Insert Benchmark, whose tables are per client, refuses it.
func TestSearchVaryClients(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "linkbench", "--vary", "clients", "--target", "pebble", "--maxid", "2001", "--sla", "get_link_list:p99<1m",
		"--max-rate", "2", "--trial", "1s", "--warmup", "0s", "--out", "s", "--seed", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "highest passing client count: at least 2 clients") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "s", "request-c2", "summary.json")); err != nil {
		t.Errorf("no trial with 2 clients: %v", err)
	}
	if r := run(t, dir, "search", "insert", "--vary", "clients", "--sla", "query:p99<1s"); r.code == 0 || !strings.Contains(r.stderr, "its tables are per client") {
		t.Errorf("insert --vary clients: exit %d %q", r.code, r.stderr)
	}
}

// TestSearchTakesQuiet: a run's --quiet is taken by search too (it failed as an unknown flag).
func TestSearchTakesQuiet(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "insert", "--quiet", "--sla", "query:p99<2ms", "--max-trials", "1")
	if strings.Contains(r.stderr, "unknown flag") || !strings.Contains(r.stderr, "--max-trials must be at least 2") {
		t.Errorf("search --quiet: exit %d, %s", r.code, r.stderr)
	}
}

// TestDBMSCountersFlag: --dbms-counters=false samples no counter and says so in run.json (it was
// an environment variable, which no run recorded).
func TestDBMSCountersFlag(t *testing.T) {
	dir := t.TempDir()
	for _, on := range []bool{true, false} {
		out := filepath.Join(dir, fmt.Sprint(on))
		if r := run(t, dir, "run", "insert", "--steps", "l.i0", "--rows", "1000", "--quiet", "--out", out, fmt.Sprintf("--dbms-counters=%v", on)); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		_, err := os.Stat(filepath.Join(out, "l.i0", "counters.csv.gz"))
		if (err == nil) != on {
			t.Errorf("--dbms-counters=%v: counters.csv.gz %v", on, err)
		}
		b, _ := os.ReadFile(filepath.Join(out, "run.json"))
		if recorded := strings.Contains(string(b), `"dbms_counters": false`); recorded == on {
			t.Errorf("--dbms-counters=%v: run.json records it off: %v", on, recorded)
		}
	}
}

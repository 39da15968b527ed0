package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/search"
)

// readSearch reads a search's search.json and checks what every search archives, whatever the
// machine's load made of its verdicts: each trial a step with its summary, a verdict, and an
// answer or the reason there is none.
func readSearch(t *testing.T, dir, stdout string) archive.Search {
	t.Helper()
	var rec archive.Search
	b, err := os.ReadFile(filepath.Join(dir, archive.SearchFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || len(rec.Trials) == 0 {
		t.Fatalf("search.json: %s %v", b, err)
	}
	for _, tr := range rec.Trials {
		if _, err := os.Stat(filepath.Join(dir, tr.Step, "summary.json")); err != nil || tr.Why == "" || len(tr.SLAs) != 1 {
			t.Errorf("trial %+v: %v", tr, err)
		}
	}
	if !strings.Contains(stdout, "highest passing") && !strings.Contains(stdout, "passed (") {
		t.Errorf("no answer and no reason:\n%s", stdout)
	}
	return rec
}

// TestSearchKV runs a short search of readrandom on Pebble: one fillseq, then trials one after
// another, each with its warm-up archived beside it.
func TestSearchKV(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "kv", "--target", "pebble", "--keys", "2000", "--sla", "get:p99<1m",
		"--start-rate", "200", "--max-rate", "400", "--trial", "1s", "--warmup", "1s", "--out", "s", "--seed", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rec := readSearch(t, filepath.Join(dir, "s"), r.stdout)
	if rec.Trials[0].Rate != 200 || rec.Trials[0].Step != "readrandom-r200" || rec.Rule != search.RateRule {
		t.Errorf("search.json: %+v", rec)
	}
	for _, step := range []string{"fillseq", "readrandom-r200-warmup"} {
		if _, err := os.Stat(filepath.Join(dir, "s", step, "summary.json")); err != nil {
			t.Errorf("step %s: %v", step, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s", "fillseq-r400")); err == nil {
		t.Error("fillseq ran again before a trial: readrandom keeps the data, it needs one load")
	}
	if r := run(t, dir, "report", "s", "-o", "r.html"); r.code != 0 {
		t.Errorf("report: exit %d %s", r.code, r.stderr)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "r.html")); !strings.Contains(string(b), "readrandom-r200") {
		t.Error("the report does not show the search's trials")
	}
}

// TestSearchKVClients: --vary clients on SQLite's key-value table, whose file the trials share
// open; readwhilewriting's writer is beside the readers, its put an op type an SLA may name.
func TestSearchKVClients(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "search", "kv", "--vary", "clients", "--target", "sqlite", "--keys", "1000", "--step", "readwhilewriting",
		"--sla", "put:p99<1m", "--max-rate", "2", "--trial", "1s", "--warmup", "0s", "--out", "s", "--seed", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rec := readSearch(t, filepath.Join(dir, "s"), r.stdout)
	if rec.Vary != "clients" || rec.Trials[0].Step != "readwhilewriting-c1" || rec.Rule != search.ClientsRule {
		t.Errorf("search.json: %+v", rec)
	}
}

// TestSearchKVBadInput: what a key-value search cannot do gets one clear sentence.
func TestSearchKVBadInput(t *testing.T) {
	dir := t.TempDir()
	for args, want := range map[string]string{
		"--step overwritesome --sla get:p99<1s":    "step overwritesome cannot be searched: its length is keys/10 puts",
		"--step fillseq --sla put:p99<1s":          "step fillseq cannot be searched: it loads the database",
		"--step multireadrandom --sla get:p99<1s":  "cannot be searched here: Pebble has no batched read",
		"--step nosuch --sla get:p99<1s":           `unknown step "nosuch"`,
		"--load-steps readrandom --sla get:p99<1s": "--load-steps must start with fillseq",
		"--start-rate 10":                          "search needs at least one --sla",
		"--sla gett:p99<1s":                        `names op type "gett"`,
		"--sla put:p99<1s --warmup 0s --trial 1s":  "step readrandom has no put operations",
	} {
		r := run(t, dir, append([]string{"search", "kv", "--keys", "200", "--out", "o"}, strings.Fields(args)...)...)
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d %q, want %q", args, r.code, r.stderr, want)
		}
		os.RemoveAll(filepath.Join(dir, "o"))
	}
}

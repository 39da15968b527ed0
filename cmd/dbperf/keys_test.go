package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// conditionalKeys appear in summary.json only when something happened (a stall, a failure, a
// paced operation, a sample error) or depending on the machine's speed (stalls are judged only
// for a step whose main op ran 10 statements a second or more, which a loaded machine can make
// l.x miss): they are left out of the comparison on both sides.
var conditionalKeys = []string{"stalls", "stalls.count", "stalls.longest_sec", "stalls.rule", "stalls.total_sec", "stalls.at",
	"problems", "error", "host.late_wakeups", "host.paced_ops", "host.wakeup_max_us", "host.sample_errors"}

// withoutConditional drops the conditional keys from a line of testdata/summary-keys.txt.
func withoutConditional(line string) string {
	step, keys, _ := strings.Cut(line, ": ")
	var kept []string
	for _, k := range strings.Fields(keys) {
		if !slices.Contains(conditionalKeys, k) {
			kept = append(kept, k)
		}
	}
	return step + ": " + strings.Join(kept, " ")
}

// keyPaths lists every key of a JSON document as a dotted path; list elements are "[]".
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(e, p, out)
		}
	case []any:
		for _, e := range x {
			keyPaths(e, prefix+"[]", out)
		}
	}
}

// TestSummaryKeysUnchanged runs the Insert Benchmark's whole step list at a tiny size and
// compares the keys of every step's summary.json with testdata/summary-keys.txt: what the
// Insert Benchmark writes must not change by accident. History: the keys were those of commit
// 2057f8e (before the core was reshaped for every workload) through the reshape; the Insert
// Benchmark's fidelity work then added, on purpose, workload.check (what each step's check
// covered), workload.delete_queue_wait_{avg,max}_ms (deletes are timed from their send, as the
// reference's) and l.x's 100-row insert (the reference's l.x inserts first), and renamed dbperf's
// percentiles of the per-second rates host.rate_p50_all and rate_p99_all (the reference's p50 and
// p99, client 1's rates in descending order, are the workload's figures under those names).
func TestSummaryKeysUnchanged(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	if r := run(t, dir, "run", "insert", "--out", out, "--seed", "1", "--rows", "2000", "--l1-rows", "1000", "--q-seconds", "1",
		"--steps", "l.i0,l.x,l.i1,l.i2,settle,qr100,qp100"); r.code != 0 {
		t.Fatalf("run failed: exit %d\n%s", r.code, r.stderr)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "summary-keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, step := range []string{"l.i0", "l.x", "l.i1", "l.i2", "settle", "qr100", "qp100"} {
		b, err := os.ReadFile(filepath.Join(out, step, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		paths := map[string]bool{}
		keyPaths(doc, "", paths)
		var keys []string
		for k := range paths {
			if !slices.Contains(conditionalKeys, k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		got.WriteString(step + ": " + strings.Join(keys, " ") + "\n")
	}
	var wantKept []string
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		wantKept = append(wantKept, withoutConditional(line))
	}
	if strings.TrimSpace(got.String()) != strings.Join(wantKept, "\n") {
		t.Errorf("summary.json keys changed:\ngot:\n%s\nwant (testdata/summary-keys.txt):\n%s", got.String(), want)
	}
}

package main

import (
	"encoding/json"
	"net/url"
	"testing"
)

// TestCountersShortStepPostgres: a real Insert Benchmark step on PostgreSQL far shorter than
// its statistics interval counts its own rows: the session closes the step's connections, whose
// backends publish their last statistics as they exit, before the monitor's last sample.
func TestCountersShortStepPostgres(t *testing.T) {
	u, err := url.Parse(testPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/dbperf_counters_cmd_short"
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", u.String(), "--rows", "1000", "--steps", "l.i0", "--out", "runs/pg", "--quiet")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	c := run(t, dir, "counters", "runs/pg", "--step", "l.i0", "--json", "--match", "db.tup_inserted")
	var steps []struct {
		Seconds  float64 `json:"seconds"`
		Counters []struct {
			Name  string
			PerOp float64 `json:"per_op"`
		} `json:"counters"`
	}
	if err := json.Unmarshal([]byte(c.stdout), &steps); err != nil || len(steps) != 1 {
		t.Fatalf("counters --json: %v\n%s%s", err, c.stdout, c.stderr)
	}
	got := 0.0 // not listed: it did not move
	for _, x := range steps[0].Counters {
		if x.Name == "db.tup_inserted" {
			got = x.PerOp
		}
	}
	// One a row inserted (and a few of the catalog's, for the tables made at the step's start).
	if got < 0.99 || got > 1.1 {
		t.Errorf("db.tup_inserted per insert %g, want 1: the step's last statistics are not counted", got)
	}
}

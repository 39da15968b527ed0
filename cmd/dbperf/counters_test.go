package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountersCommand: a Pebble run's step shows the host's and Pebble's vital signs per op,
// then its counters with kinds; a user's definitions apply to the archived run; --json, --match
// and --step select; a bad definitions file is named with its line.
func TestCountersCommand(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", "pebble", "--rows", "3000", "--l1-rows", "1000", "--steps", "l.i0,l.x,l.i1", "--out", "runs/p", "--quiet")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	c := run(t, dir, "counters", "runs/p", "--step", "l.i1")
	for _, want := range []string{"runs/p l.i1: ", "per op = per insert", "cpu_us_per_op", "client_cpu_us_per_op", "wal_bytes_per_op",
		"WAL bytes written per op", "counters (", "pebble.wal.bytes_written", "counter", "l0_files", "gauge"} {
		if !strings.Contains(c.stdout, want) {
			t.Errorf("counters output lacks %q:\n%s%s", want, c.stdout, c.stderr)
		}
	}
	if strings.Contains(c.stdout, "runs/p l.i0") {
		t.Error("--step l.i1 shows l.i0")
	}
	os.WriteFile(filepath.Join(dir, "mine.conf"), []byte("[pebble]\nwal_per_insert_kb = rate(wal_bytes_written) / rate(op.insert) / 1024  # KB of WAL per row\n"), 0o644)
	j := run(t, dir, "counters", "runs/p", "--step", "l.i1", "--defs", "mine.conf", "--json", "--match", "pebble.levels.0.*")
	var steps []struct {
		Step   string `json:"step"`
		Vitals []struct {
			Name  string
			Value float64
		} `json:"vital_signs"`
		Counters []struct{ Name, Kind string } `json:"counters"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &steps); err != nil || len(steps) != 1 {
		t.Fatalf("--json: %v\n%s%s", err, j.stdout, j.stderr)
	}
	found := false
	for _, v := range steps[0].Vitals {
		found = found || v.Name == "wal_per_insert_kb" && v.Value > 0
	}
	if !found {
		t.Errorf("the user's definition is not evaluated: %+v", steps[0].Vitals)
	}
	for _, c := range steps[0].Counters {
		if !strings.HasPrefix(c.Name, "pebble.levels.0.") || c.Kind == "" {
			t.Errorf("--match pebble.levels.0.*: %+v", c)
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.conf"), []byte("# ok\nx = rate(a\n"), 0o644)
	if b := run(t, dir, "counters", "runs/p", "--defs", "bad.conf"); b.code == 0 || !strings.Contains(b.stderr, "bad.conf:2") {
		t.Errorf("a bad definitions file: exit %d %q", b.code, b.stderr)
	}
	if b := run(t, dir, "counters", "runs/p", "--step", "qr100"); b.code == 0 {
		t.Errorf("a step the run lacks: exit 0")
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestWarmup: a q step with --warmup archives its warm-up as the step qr100-warmup, whose
// inserts are absent from qr100's counts and present in the archive: the two add up to the
// rows the lengthened schedule wrote, which the check after qr100 finds in the database.
func TestWarmup(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "ib.db")
	if r := run(t, dir, "run", "insert", "--quiet", "--target", db, "--rows", "500", "--steps", "l.i0,l.x", "--out", "load"); r.code != 0 {
		t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
	}
	r := run(t, dir, "run", "insert", "--quiet", "--target", db, "--steps", "qr100", "--q-seconds", "2", "--warmup", "1s", "--out", "q")
	if r.code != 0 {
		t.Fatalf("qr100 with --warmup 1s: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var meta archive.Run
	readJSON(t, filepath.Join(dir, "q", "run.json"), &meta)
	if len(meta.Steps) != 2 || meta.Steps[0].Name != "qr100-warmup" || meta.Steps[1].Name != "qr100" || !meta.Steps[0].Complete || !meta.Steps[1].Complete {
		t.Fatalf("run.json steps %+v; want qr100-warmup then qr100, both complete", meta.Steps)
	}
	if meta.Settings["warmup_sec"] != 1.0 {
		t.Errorf("run.json warmup_sec %v; want 1", meta.Settings["warmup_sec"])
	}
	var warm, step archive.Step
	readJSON(t, filepath.Join(dir, "q", "qr100-warmup", "summary.json"), &warm)
	readJSON(t, filepath.Join(dir, "q", "qr100", "summary.json"), &step)
	wi, si := warm.Ops["insert"].Count, step.Ops["insert"].Count
	// 2 clients at 100 rows/s over 1s of warm-up and 2s measured: 600 rows in all.
	if wi == 0 || warm.Ops["query"].Statements == 0 || wi+si != 600 || si < 300 {
		t.Errorf("warm-up inserted %d rows and ran %d queries, qr100 %d rows; want both parts, adding up to 600", wi, warm.Ops["query"].Statements, si)
	}
	if !step.Verified || step.Start.Before(warm.End) {
		t.Errorf("qr100 verified %v, starts %v before its warm-up ended %v", step.Verified, warm.End.Sub(step.Start), warm.End)
	}
}

// TestWarmupRefused: a step of fixed work is refused with one sentence before the run
// directory exists.
func TestWarmupRefused(t *testing.T) {
	dir := t.TempDir()
	sql := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(sql, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"insert", "--steps", "l.i0,qr100"}, "step l.i0 is work of a fixed size"},
		{[]string{"linkbench"}, "step load loads the database"},
		{[]string{"kv", "--steps", "fillseq,readrandom"}, "step fillseq is work of a fixed size"},
		{[]string{"ycsb", "--steps", "load,run"}, "step load loads the records"},
		{[]string{"script", "--file", sql, "--transactions", "10"}, "step run does a fixed count of transactions (--transactions 10)"},
	} {
		args := append([]string{"run"}, tc.args...)
		args = append(args, "--warmup", "5s", "--out", "refused")
		r := run(t, dir, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "--warmup: "+tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want one line saying %q", tc.args, r.code, r.stderr, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "refused")); err == nil {
			t.Errorf("%v: the run directory exists after the refusal", tc.args)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestWarmupKVFigures: a key-value read step's own figures (the reference's row: keys read,
// ops/s) leave its warm-up out as its op counts do.
func TestWarmupKVFigures(t *testing.T) {
	dir := t.TempDir()
	db := "pebble:" + filepath.Join(dir, "kv")
	if r := run(t, dir, "run", "kv", "--quiet", "--target", db, "--keys", "2000", "--steps", "fillseq", "--out", "load"); r.code != 0 {
		t.Fatalf("fillseq: exit %d\n%s", r.code, r.stderr)
	}
	r := run(t, dir, "run", "kv", "--quiet", "--target", db, "--keys", "2000", "--steps", "readrandom", "--step-seconds", "1", "--warmup", "1s", "--out", "r")
	if r.code != 0 {
		t.Fatalf("readrandom with --warmup 1s: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var warm, step archive.Step
	readJSON(t, filepath.Join(dir, "r", "readrandom-warmup", "summary.json"), &warm)
	readJSON(t, filepath.Join(dir, "r", "readrandom", "summary.json"), &step)
	// The clients set their counts aside at their first operation after the warm-up, the
	// runner at its tick: a few operations may fall between (the clients' count is the figure's).
	got, _ := step.Workload["keys_read"].(float64)
	if n := float64(step.Ops["get"].Count); warm.Ops["get"].Count == 0 || n == 0 || got < 0.9*n || got > 1.1*n {
		t.Errorf("warm-up %d gets, step %d gets and keys_read %v; want the step's figure to count its own gets only",
			warm.Ops["get"].Count, step.Ops["get"].Count, step.Workload["keys_read"])
	}
}

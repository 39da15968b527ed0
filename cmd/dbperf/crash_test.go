package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dbperf crash runs, prints a verdict per setting, and its summary reads the run back.
func TestCrashCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "bbolt")
	r := run(t, dir, "crash", "--target", "bbolt", "--crashes", "1", "--min-run", "300ms", "--max-run", "500ms", "--seed", "5", "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "durable: 0 lost in 1 crashes") || !strings.Contains(r.stdout, "seed 5") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "crash", "summary", out)
	if r.code != 0 || !strings.Contains(r.stdout, "bbolt") || !strings.Contains(r.stdout, "NoSync=false") {
		t.Fatalf("summary: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "crash", "summary", "--format", "markdown", out)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "| target |") {
		t.Fatalf("markdown summary: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Plain dbperf summary prints crash runs as dbperf crash summary does, beside benchmark
	// runs, and refuses a format the crash table has not in one sentence.
	crashLines := run(t, dir, "crash", "summary", out).stdout
	r = run(t, dir, "summary", out)
	if r.code != 0 || r.stdout != crashLines {
		t.Fatalf("summary of a crash run: exit %d\n%s\n%s\nwant\n%s", r.code, r.stdout, r.stderr, crashLines)
	}
	bench := filepath.Join(dir, "bench")
	if r = run(t, dir, "run", "insert", "--steps", "l.i0", "--rows", "100", "--out", bench); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r = run(t, dir, "summary", out, bench)
	if r.code != 0 || !strings.HasPrefix(r.stdout, crashLines) || !strings.Contains(r.stdout, "l.i0") {
		t.Fatalf("summary of a crash run and a run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "summary", "--format", "json", out)
	if r.code == 0 || !strings.Contains(r.stderr, "crash runs print as text or markdown, not json") {
		t.Fatalf("summary --format json of a crash run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// Bad input gets one sentence and a non-zero exit, before anything runs.
func TestCrashBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crash", "--set", "nonsense"}, "want NAME=VALUE"},
		{[]string{"crash", "--kill", "sideways"}, "--kill must be process or power"},
		{[]string{"crash", "--target", "pebble", "--set", "NoSync=true"}, "has no setting"},
		{[]string{"crash", "--target", "postgres", "--set", "full_page_writes=off", "--kill", "power"}, "torn"},
		{[]string{"crash", "--min-run", "3s", "--max-run", "1s"}, "shorter"},
		{[]string{"crash", "--target", "mariadb-innodb", "--set", "innodb_doublewrite=0", "--kill", "power"}, "torn"},
		{[]string{"crash", "--crashes", "0"}, "--crashes must be at least 1"},
		{[]string{"crash", "--crashes", "-2"}, "--crashes must be at least 1"},
		{[]string{"crash", "--clients", "0"}, "--clients must be at least 1"},
		{[]string{"crash", "--batch", "-1"}, "--batch must be at least 1"},
		{[]string{"crash", "--target", "nosuch"}, "unknown target"},
		{[]string{"crash", "--target", "sqlite", "--set", "synchronus=OFF"}, "not one the crash test varies"},
	} {
		out := filepath.Join(dir, "x")
		args := append([]string{"--out", out, "--crashes", "1"}, tc.args[1:]...) // the case's --crashes wins
		r := run(t, dir, append([]string{"crash"}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
		if strings.Contains(r.stdout, "durable") {
			t.Errorf("%v: a refused run printed a verdict or promise: %q", tc.args, r.stdout)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the run directory %s was written", tc.args, out)
			os.RemoveAll(out)
		}
	}
}

// --batch counts transactions of several rows: the run reports them, and crash.json records
// the batch.
func TestCrashBatch(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "batch")
	r := run(t, dir, "crash", "--target", "sqlite", "--batch", "5", "--crashes", "1", "--min-run", "300ms", "--max-run", "500ms", "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "durable: 0 lost in 1 crashes") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "crash.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Config  struct{ Batch int }
		Results []struct {
			Acked     int64 `json:"acked"`
			AckedRows int64 `json:"acked_rows"`
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Config.Batch != 5 || len(f.Results) != 1 || f.Results[0].Acked == 0 || f.Results[0].AckedRows != 5*f.Results[0].Acked {
		t.Fatalf("crash.json: batch %d, results %+v: want 5 rows per acknowledged transaction", f.Config.Batch, f.Results)
	}
}

// A broken durability promise makes the command fail with exit status 3 (here Badger's new
// value log, whose directory it does not fsync, under a power cut).
func TestCrashBrokenPromiseExitStatus(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the power-loss layer needs root here")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
	dir := t.TempDir()
	r := run(t, dir, "crash", "--target", "badger", "--set", "SyncWrites=true", "--kill", "power", "--crashes", "1",
		"--min-run", "300ms", "--max-run", "300ms", "--out", filepath.Join(dir, "b"))
	if r.code != 3 || !strings.Contains(r.stdout, "DURABILITY PROMISE BROKEN") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

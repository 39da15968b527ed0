package main

import (
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
	} {
		r := run(t, dir, append(tc.args, "--out", filepath.Join(dir, "x"), "--crashes", "1")...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
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

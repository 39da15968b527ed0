package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/server"
	"github.com/jackc/pgx/v5"
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

// What a benchmark run gets today when its server is killed mid-step (docs/reliability.md's
// table of faults): the step stops at the first lost connection, its errors are counted by
// kind, its partial figures are kept with "complete": false, run.json says why, exit 1. A
// private server on its own port (never the shared test servers').
func TestFaultServerKilledMidInsertStep(t *testing.T) {
	if _, err := os.Stat("/usr/lib/postgresql"); err != nil {
		t.Skip("PostgreSQL is not installed")
	}
	sdir, err := os.MkdirTemp("", "dbperf-fault-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sdir, 0o755)
	defer os.RemoveAll(sdir)
	srv, err := server.New(server.Options{Kind: "postgres", DataDir: sdir, Port: 15482})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	url, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(ctx)
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	cmd := exec.Command(dbperfBin, "run", "insert", "--target", strings.TrimSuffix(url, "dbperf")+"fault", "--rows", "10000000",
		"--steps", "l.i0", "--quiet", "--out", out)
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the step is inserting: rows are committed in its tables.
	db := strings.TrimSuffix(url, "dbperf") + "fault"
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var n int64
		if c, err := pgx.Connect(ctx, db); err == nil {
			c.QueryRow(ctx, "SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables").Scan(&n)
			c.Close(ctx)
		}
		if n > 1000 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the step inserted nothing in two minutes:\n%s", stdout.String())
		}
	}
	if _, _, err := server.Kill(ctx, srv); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if _, err := srv.Start(ctx); err != nil { // for the deferred Stop, and to show it recovers
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "connection_lost") {
		t.Errorf("errors not counted by kind:\n%s", stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil || !strings.Contains(string(b), `"error"`) {
		t.Errorf("run.json does not say what happened (%v)", err)
	}
	s, err := os.ReadFile(filepath.Join(out, "l.i0", "summary.json"))
	if err != nil || !strings.Contains(string(s), `"complete": false`) {
		t.Errorf("the partial step's figures are not kept (%v)", err)
	}
}

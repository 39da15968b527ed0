package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/server"
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
	faultMidStep(t, 15482, "l.i0", func(url string) []string {
		return []string{"run", "insert", "--target", url, "--rows", "10000000", "--steps", "l.i0"}
	})
}

// The same in LinkBench's request step.
func TestFaultServerKilledMidLinkBenchRequests(t *testing.T) {
	faultMidStep(t, 15483, "request", func(url string) []string {
		return []string{"run", "linkbench", "--target", url, "--maxid", "2001", "--requests", "0", "--requests-seconds", "10m"}
	})
}

// faultMidStep runs the command args gives (against a private PostgreSQL's database "fault"),
// SIGKILLs the server once step has printed its first live line, and checks what the run kept.
func faultMidStep(t *testing.T, port int, step string, args func(url string) []string) {
	if _, err := os.Stat("/usr/lib/postgresql"); err != nil {
		t.Skip("PostgreSQL is not installed")
	}
	sdir, err := os.MkdirTemp("", "dbperf-fault-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sdir, 0o755)
	defer os.RemoveAll(sdir)
	srv, err := server.New(server.Options{Kind: "postgres", DataDir: sdir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	url, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(ctx)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(dbperfBin, append(args(strings.TrimSuffix(url, "dbperf")+"fault"), "--out", out)...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var stdout strings.Builder
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Kill once the step has printed a live line (a row of figures under its header).
	in, killed := false, false
	for l := range lines {
		stdout.WriteString(l + "\n")
		switch {
		case strings.HasPrefix(l, "== step "+step) || strings.HasPrefix(l, "== "+step):
			in = true
		case in && !killed && len(strings.Fields(l)) > 3 && strings.Trim(strings.Fields(l)[0], "0123456789.") == "":
			if _, _, err := server.Kill(ctx, srv); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if _, serr := srv.Start(ctx); serr != nil { // for the deferred Stop, and to show it recovers
		t.Fatal(serr)
	}
	if !killed {
		t.Fatalf("the step never printed a live line:\n%s", stdout.String())
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
	sum, err := os.ReadFile(filepath.Join(out, step, "summary.json"))
	if err != nil || !strings.Contains(string(sum), `"complete": false`) {
		t.Errorf("the partial step's figures are not kept (%v)", err)
	}
	t.Logf("%s", stdout.String())
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/server"
)

// Runs that survive a dying server (docs/reliability.md): each test starts a private server of
// its own (never the test command's shared ones), SIGKILLs it in the middle of a step and, but
// in the last test, starts it again a few seconds later.

// The Insert Benchmark's l.i1 (inserts and deletes) on PostgreSQL's lean path: the clients
// reconnect, the step finishes, the check after it passes, and run.json says what happened.
func TestFaultServerKilledMidInsertStep(t *testing.T) {
	f := startFaultServer(t, "postgres", 15484)
	f.run(t, faultRun{step: "l.i1", restart: true, args: []string{"run", "insert", "--target", f.url("fault"),
		"--steps", "l.i0,l.i1", "--l1-rows", "100000000", "--step-seconds", "8", "--fault-timeout", "45s"}})
}

// The same on MariaDB through the driver alone (--client-path driver), in a q step: the
// inserts, the deletes and the queriers all reconnect.
func TestFaultMariaDBKilledMidQueryStepDriverPath(t *testing.T) {
	f := startFaultServer(t, "mariadb", 13394)
	f.run(t, faultRun{step: "qr100", restart: true, args: []string{"run", "insert", "--target", f.url("fault"),
		"--client-path", "driver", "--steps", "l.i0,l.x,qr100", "--q-seconds", "8", "--fault-timeout", "45s"}})
}

// LinkBench's request step on PostgreSQL: the requesters reconnect and retry, the check after
// the step passes (allowing the writes in doubt it counted).
func TestFaultServerKilledMidLinkBenchRequests(t *testing.T) {
	f := startFaultServer(t, "postgres", 15485)
	f.run(t, faultRun{step: "request", restart: true, args: []string{"run", "linkbench", "--target", f.url("fault"),
		"--maxid", "2001", "--requests", "0", "--requests-seconds", "8s", "--fault-timeout", "45s"}})
}

// sysbench's read_write run step on PostgreSQL's lean path: each thread whose connection is
// lost opens a new one, prepares its statements again and runs the event again whole, from
// BEGIN, as sysbench does on MySQL when --mysql-ignore-errors names the lost connection; the
// check after the step passes.
func TestFaultServerKilledMidSysbenchRun(t *testing.T) {
	f := startFaultServer(t, "postgres", 15487)
	f.run(t, faultRun{step: "run", restart: true, args: []string{"run", "sysbench", "read_write", "--target", f.url("fault"),
		"--tables", "2", "--table-size", "2000", "--threads", "4", "--time", "10", "--fault-timeout", "45s"}})
}

// run script follows pgbench, which aborts a client whose command fails, a lost connection
// included (pgbench.c:3361-3378): the step ends at the loss, with a sentence that says so, and
// keeps its seconds as not complete.
func TestFaultScriptEndsAtLostConnection(t *testing.T) {
	f := startFaultServer(t, "postgres", 15488)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(dbperfBin, "run", "script", "--builtin", "select-only", "--scale", "1", "--target", f.url("fault"),
		"--clients", "2", "--step-seconds", "20", "--out", out)
	stdout, killed, err := f.killInStep(t, cmd, func(l string) bool { return strings.HasPrefix(l, "== step run") }, nil)
	if _, serr := f.srv.Start(context.Background()); serr != nil { // for the deferred Stop
		t.Fatal(serr)
	}
	if !killed {
		t.Fatal("step run never printed a live line")
	}
	want := "its connection was lost, and pgbench aborts a client whose command fails (pgbench.c:3361-3378), so the step ends"
	if err == nil || !strings.Contains(stdout, want) {
		t.Fatalf("exit %v; want a failure saying %q", err, want)
	}
	if _, sum := readFaultRun(t, out, "run"); sum.Complete || !strings.Contains(sum.Error, want) || sum.Faults == nil || sum.Faults.Errors["connection_lost"] == 0 {
		t.Errorf("summary.json: complete %v, error %q, faults %+v; want not complete, the sentence, the loss counted by kind", sum.Complete, sum.Error, sum.Faults)
	}
}

// A server that does not come back: the step ends after --fault-timeout with one sentence, its
// partial figures kept as not complete, and the finished step before it kept whole.
func TestFaultServerGoneEndsAfterFaultTimeout(t *testing.T) {
	f := startFaultServer(t, "postgres", 15486)
	f.run(t, faultRun{step: "l.i1", args: []string{"run", "insert", "--target", f.url("fault"),
		"--steps", "l.i0,l.i1", "--l1-rows", "100000000", "--step-seconds", "60", "--fault-timeout", "4s"}})
}

type faultServer struct {
	srv  server.Server
	base string // the server's URL, without a database
	kind string
}

// startFaultServer starts a private server of kind on port in a data directory of its own.
func startFaultServer(t *testing.T, kind string, port int) *faultServer {
	t.Helper()
	bin := map[string]string{"postgres": "/usr/lib/postgresql", "mariadb": "/usr/sbin/mariadbd"}[kind]
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed (%s)", kind, bin)
	}
	dir, err := os.MkdirTemp("", "dbperf-fault-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755) // the server's own user reaches it
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Durable commits: the published configs' (synchronous_commit = off,
	// innodb_flush_log_at_trx_commit = 2) may lose acknowledged commits when the server dies,
	// which the check after the step then rightly reports (docs/reliability.md).
	config := filepath.Join(dir, "durable.conf")
	settings := map[string]string{"postgres": "shared_buffers = 128MB\nsynchronous_commit = on\n",
		"mariadb": "innodb_buffer_pool_size = 128M\ninnodb_flush_log_at_trx_commit = 1\n"}[kind]
	if err := os.WriteFile(config, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Kind: kind, DataDir: filepath.Join(dir, "server"), Port: port, Config: config})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop(context.Background()) })
	return &faultServer{srv: srv, base: url[:strings.LastIndex(url, "/")+1], kind: kind}
}

// url is the target URL of database db on the server.
func (f *faultServer) url(db string) string { return f.base + db }

type faultRun struct {
	args    []string
	step    string // the step whose first live line kills the server
	restart bool   // start the server again 3 s after the kill
}

// run runs r's command, kills the server in r.step and checks what the run did and kept.
func (f *faultServer) run(t *testing.T, r faultRun) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(dbperfBin, append(r.args, "--out", out)...)
	restarted := make(chan error, 1)
	inStep := func(l string) bool {
		return strings.HasPrefix(l, "== step "+r.step) || strings.HasPrefix(l, "== "+r.step)
	}
	stdout, killed, err := f.killInStep(t, cmd, inStep, func() {
		if r.restart {
			go func() {
				time.Sleep(3 * time.Second)
				_, err := f.srv.Start(ctx)
				restarted <- err
			}()
		}
	})
	if !killed {
		t.Fatalf("step %s never printed a live line", r.step)
	}
	if r.restart {
		if err := <-restarted; err != nil {
			t.Fatalf("the server did not start again: %v", err)
		}
	} else if _, err := f.srv.Start(ctx); err != nil { // for the deferred Stop
		t.Fatal(err)
	}
	meta, sum := readFaultRun(t, out, r.step)
	if sum.Faults == nil || sum.Faults.Errors["connection_lost"] == 0 || len(sum.Faults.Unreachable) == 0 {
		t.Fatalf("summary.json's faults %+v: want lost connections and a window without the target", sum.Faults)
	}
	var status *archive.StepStatus
	for i := range meta.Steps {
		if meta.Steps[i].Name == r.step {
			status = &meta.Steps[i]
		}
	}
	if status == nil || status.Faults == nil || status.Faults.Errors["connection_lost"] != sum.Faults.Errors["connection_lost"] {
		t.Errorf("run.json's step %+v does not say what happened", status)
	}
	if meta.Settings["fault_timeout"] == nil {
		t.Error("run.json's settings have no fault_timeout")
	}
	if !strings.Contains(stdout, "faults: connection_lost") {
		t.Error("the step's output has no line about its faults")
	}
	if sr := run(t, t.TempDir(), "summary", out); !strings.Contains(sr.stdout, r.step+" faults: connection_lost") {
		t.Errorf("dbperf summary has no line about the step's faults:\n%s%s", sr.stdout, sr.stderr)
	}
	if r.restart {
		if err != nil || !meta.Complete || !sum.Complete || !sum.Verified {
			t.Fatalf("exit %v, run complete %v, step complete %v, checked %v: want the step to finish and pass its check",
				err, meta.Complete, sum.Complete, sum.Verified)
		}
		if sum.Faults.Reconnects == 0 || sum.Faults.Retries == 0 || sum.Faults.Unreachable[0].End.IsZero() {
			t.Errorf("faults %+v: want reconnects, retries and a window that ended", sum.Faults)
		}
		return
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1", err)
	}
	sentence := fmt.Sprintf("step %s ended after 4s without the target: ", r.step)
	if !strings.Contains(stdout, sentence) || !strings.HasPrefix(meta.Error, sentence) {
		t.Errorf("want %q in the output and run.json's error (%q)", sentence, meta.Error)
	}
	if !strings.HasPrefix(sum.Error, sentence) {
		t.Errorf("summary.json's error %q, want the sentence", sum.Error)
	}
	if sum.Complete || !sum.Faults.Unreachable[len(sum.Faults.Unreachable)-1].End.IsZero() {
		t.Errorf("the partial step: complete %v, windows %+v; want not complete, the last without an end", sum.Complete, sum.Faults.Unreachable)
	}
	if first := meta.Steps[0]; !first.Complete || first.Name == r.step {
		t.Errorf("the finished step before it: %+v, want kept complete", first)
	}
}

// killInStep runs cmd with its stdout and stderr in one pipe and SIGKILLs f's server at the
// first live line after a line that inStep picks out, then calls killed (if not nil). It
// returns the output (logged), whether it killed the server, and cmd's exit.
func (f *faultServer) killInStep(t *testing.T, cmd *exec.Cmd, inStep func(line string) bool, killed func()) (string, bool, error) {
	t.Helper()
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
	in, kill := false, false
	for sc := bufio.NewScanner(pr); sc.Scan(); {
		l := sc.Text()
		stdout.WriteString(l + "\n")
		switch {
		case inStep(l):
			in = true
		case in && !kill && liveLine(l):
			if _, _, err := server.Kill(context.Background(), f.srv); err != nil {
				t.Fatal(err)
			}
			kill = true
			if killed != nil {
				killed()
			}
		}
	}
	err = cmd.Wait()
	t.Logf("%s", stdout.String())
	return stdout.String(), kill, err
}

// liveLine tells a row of a step's figures (its first field a number) from its headers.
func liveLine(l string) bool {
	f := strings.Fields(l)
	return len(f) > 3 && strings.Trim(f[0], "0123456789.") == ""
}

// readFaultRun reads run.json and step's summary.json.
func readFaultRun(t *testing.T, out, step string) (archive.Run, archive.Step) {
	t.Helper()
	var meta archive.Run
	var sum archive.Step
	for _, f := range []struct {
		path string
		v    any
	}{{filepath.Join(out, "run.json"), &meta}, {filepath.Join(out, step, "summary.json"), &sum}} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, f.v); err != nil {
			t.Fatal(err)
		}
	}
	return meta, sum
}

// A second Ctrl-C exits at once with an interrupt's status, saying so, while the first one's
// ending waits on a server that answers nothing (stopped with SIGSTOP: its statements and the
// cancel requests for them wait).
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	f := startFaultServer(t, "postgres", 15487)
	dir := t.TempDir()
	cmd := exec.Command(dbperfBin, "run", "insert", "--target", f.url("fault"), "--steps", "l.i0", "--rows", "100000000",
		"--out", filepath.Join(dir, "run"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !liveLine(sc.Text()) {
	}
	st, err := f.srv.Status()
	if err != nil || !st.Running {
		t.Fatalf("status %+v, %v", st, err)
	}
	pids := append([]int{st.PID}, hostproc.Children(st.PID)...)
	signalAll := func(sig syscall.Signal) {
		for _, p := range pids {
			syscall.Kill(p, sig)
		}
	}
	signalAll(syscall.SIGSTOP)
	defer signalAll(syscall.SIGCONT) // before the deferred Stop
	// The live lines go on: stdout must not fill.
	go func() {
		for sc.Scan() {
		}
	}()
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "a second interrupt: exiting at once") {
		t.Fatalf("exit %v, stderr %q: want 130 and the second interrupt's sentence", err, stderr.String())
	}
}

// An output directory that cannot be made (under a regular file) is one sentence before
// anything runs.
func TestUnwritableOutputDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "run", "insert", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"), "--steps", "l.i0", "--rows", "10",
		"--out", filepath.Join(file, "run"))
	if r.code != 1 || !strings.HasPrefix(r.stderr, "dbperf: cannot create run directory "+filepath.Join(file, "run")) ||
		strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q: want one sentence and nothing run", r.code, r.stdout, r.stderr)
	}
}

// A negative --fault-timeout is one sentence before anything runs.
func TestNegativeFaultTimeout(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--fault-timeout", "-1s", "--out", filepath.Join(dir, "run"))
	if r.code != 1 || r.stderr != "dbperf: --fault-timeout must not be negative (got -1s)\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); err == nil {
		t.Error("a run directory was made")
	}
}

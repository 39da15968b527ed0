package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/server"
)

// These tests run the real binary, as a user would.

var dbperfBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dbperf-cli-")
	if err != nil {
		panic(err)
	}
	dbperfBin = filepath.Join(dir, "dbperf")
	if out, err := exec.Command("go", "build", "-o", dbperfBin, ".").CombinedOutput(); err != nil {
		panic("building dbperf: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(dbperfBin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// TestBadInput: every mistake gets one clear sentence on stderr, a non-zero exit, no run
// directory, and never the password.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown step", []string{"--steps", "l.i0,l.i7"}, `unknown step "l.i7": the steps are l.i0,l.x,l.i1,l.i2,settle,qr100`},
		{"unknown flag", []string{"--rowz", "5"}, "unknown flag: --rowz (see 'dbperf run insert --help')"},
		{"bad number", []string{"--clients", "0", "--rows", "-1"}, "--clients must be at least 1 (got 0)\n--rows must be at least 1 (got -1)"},
		{"unknown target", []string{"--target", "mongo:/x"}, `unknown target "mongo:/x": give one of badger[:DIR], bbolt[:FILE], `},
		{"bad dsn", []string{"--target", "postgres://u:hunter2@127.0.0.1:notaport/db"}, "is not a valid"},
		{"unreachable server", []string{"--target", "postgres://u:hunter2@127.0.0.1:1/db"}, "cannot connect to postgres at 127.0.0.1:1: connection refused; is the server running"},
		{"bad tables", []string{"--tables", "some"}, "--tables must be per-client or shared"},
		{"bad client procs", []string{"--client-procs", "0"}, `--client-procs must be auto, all or a number of processors above 0 (got "0")`},
		{"target in the run directory", []string{"--target", "pebble:runs/x"}, "the target's files (runs/x) and the run directory (runs/x) are in one place: give the target or --out another path"},
		{"run directory in the target", []string{"--target", "pebble:runs"}, "the target's files (runs) and the run directory (runs/x) are in one place"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "insert", "--out", "runs/x"}, c.args...)
			r := run(t, dir, args...)
			if r.code == 0 {
				t.Fatalf("exit 0, want an error; stdout:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr %q does not say %q", r.stderr, c.want)
			}
			if !strings.HasPrefix(r.stderr, "dbperf: ") {
				t.Errorf("stderr %q does not start with dbperf:", r.stderr)
			}
			if strings.Contains(r.stderr+r.stdout, "hunter2") {
				t.Errorf("the password is in the output: %s%s", r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
				t.Errorf("a failed invocation left a run directory behind")
			}
		})
	}
}

// testPostgres returns the test server's URL. PostgreSQL tests fail rather than skip when it is
// missing (scripts/test.sh starts it); -short leaves them out on purpose.
func testPostgres(t *testing.T) string {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("no PostgreSQL with -short")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh")
	}
	return dsn
}

func TestWrongPassword(t *testing.T) {
	dsn := testPostgres(t)
	bad := strings.Replace(dsn, "://postgres:", "://postgres:wrongpass", 1)
	if bad == dsn {
		t.Fatalf("DBPERF_TEST_POSTGRES %q has no postgres:PASSWORD part to alter", dsn)
	}
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", bad, "--out", "runs/x")
	if r.code == 0 || !strings.Contains(r.stderr, `password authentication failed for user "postgres"; check the password`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, "wrongpass") {
		t.Errorf("the password is in the output")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		t.Errorf("a failed invocation left a run directory behind")
	}
}

// TestPasswordNeverArchived runs against PostgreSQL with a password in the target and checks
// that no file of the run directory and no output line contains it.
func TestPasswordNeverArchived(t *testing.T) {
	dsn := testPostgres(t)
	dsn = dsn[:strings.LastIndex(dsn, "/")+1] + "dbperf_cli" // its own database, created by dbperf
	password := strings.SplitN(strings.SplitN(dsn, "@", 2)[0], ":", 3)[2]
	if password == "" {
		t.Fatalf("DBPERF_TEST_POSTGRES %q has no password", dsn)
	}
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", dsn, "--rows", "500", "--l1-rows", "100", "--q-seconds", "0.2",
		"--steps", "l.i0,l.x,l.i1,qr100", "--out", "runs/pg")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, password) {
		t.Errorf("the password is in the output")
	}
	filepath.Walk(filepath.Join(dir, "runs"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(password)) {
				t.Errorf("%s contains the password", p)
			}
		}
		return nil
	})
	var meta struct {
		Target struct {
			Version  string
			Settings map[string]any
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "runs/pg/run.json"))
	json.Unmarshal(b, &meta)
	if !strings.HasPrefix(meta.Target.Version, "15") || meta.Target.Settings["shared_buffers"] == nil {
		t.Errorf("run.json lacks the server's version and settings: %+v", meta.Target)
	}
	// Against a server whose clients wait in the kernel (--client-path kernel, the default)
	// --client-procs auto gives each step the CPUs Go may use plus one per caller: every step
	// says how many it used.
	for _, step := range []string{"l.i0", "l.x", "l.i1", "qr100"} {
		var sum struct {
			Host struct {
				ClientProcs int `json:"client_procs"`
			}
		}
		b, _ := os.ReadFile(filepath.Join(dir, "runs/pg", step, "summary.json"))
		json.Unmarshal(b, &sum)
		if n := sum.Host.ClientProcs; n < runtime.NumCPU()+1 || n > runtime.NumCPU()+16 {
			t.Errorf("%s: client_procs %d, want one per CPU and one per caller, %d..%d", step, n, runtime.NumCPU()+1, runtime.NumCPU()+16)
		}
	}
}

// TestInterrupt sends Ctrl-C during l.i1: finished steps stay complete, the current one is
// kept and marked incomplete, and no partial file remains.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(dbperfBin, "run", "insert", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--rows", "2000", "--l1-rows", "100000000", "--out", "runs/i")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, _ := os.ReadFile(filepath.Join(dir, "runs/i/l.i1/intervals.csv.partial")); bytes.Count(b, []byte("\n")) >= 2 {
			break // l.i1 has run for at least one second
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("l.i1 did not start:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130:\n%s", err, out.String())
	}
	var meta struct {
		Complete bool
		Error    string
		Steps    []struct {
			Name     string
			Complete bool
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs/i/run.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("run.json: %v", err)
	}
	if meta.Complete || meta.Error != "interrupted" || len(meta.Steps) != 3 {
		t.Fatalf("run.json: %+v", meta)
	}
	for i, s := range meta.Steps {
		if want := i < 2; s.Complete != want {
			t.Errorf("step %s complete=%v, want %v", s.Name, s.Complete, want)
		}
	}
	var sum struct {
		Complete bool
		Error    string
		Ops      map[string]struct{ Count int64 }
	}
	b, err = os.ReadFile(filepath.Join(dir, "runs/i/l.i1/summary.json"))
	if err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("l.i1/summary.json: %v", err)
	}
	if sum.Complete || sum.Error != "interrupted" || sum.Ops["insert"].Count == 0 {
		t.Errorf("l.i1 summary: %+v", sum)
	}
	for _, f := range []string{"intervals.csv", "latency.hlog"} {
		if _, err := os.Stat(filepath.Join(dir, "runs/i/l.i1", f)); err != nil {
			t.Errorf("interrupted step lost %s: %v", f, err)
		}
	}
	partial, _ := filepath.Glob(filepath.Join(dir, "runs/i/*/*.partial"))
	if len(partial) > 0 {
		t.Errorf("partial files left: %v", partial)
	}
}

// TestRunAndSummary is the README's first command at small scale, then summary and targets.
func TestRunAndSummary(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", "pebble", "--rows", "1000", "--l1-rows", "200", "--q-seconds", "0.3", "--out", "runs/p", "--wide")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	for _, want := range []string{"i_sec     t_sec     i_ips     t_ips     i_dps     t_dps     i_qps     t_qps     max_i     max_d     max_q  t_insert  t_delete   t_query   retry_i   retry_d   retry_q       pct      left",
		// Whether the inserts met their target depends on the machine's load in a 0.3 s step:
		// the line must be there, not a value.
		"check: the database holds exactly what the client wrote", "insert latency: <=256us:", "insert_target_met: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	s := run(t, dir, "summary", "runs/p", "runs/p")
	lines := strings.Split(strings.TrimSpace(s.stdout), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "(left out to fit") { // the note of what it left out, after the rows
			lines = lines[:i]
			break
		}
	}
	if s.code != 0 || len(lines) != 1+2*11 || !strings.HasPrefix(lines[0], "run ") {
		t.Fatalf("summary exit %d, %d lines:\n%s%s", s.code, len(lines), s.stdout, s.stderr)
	}
	if !strings.Contains(lines[1], "p  ") || !strings.Contains(lines[1], " l.i0 ") || !strings.Contains(lines[1], " yes ") {
		t.Errorf("first summary line: %q", lines[1])
	}
	if s := run(t, dir, "summary", "nowhere"); s.code == 0 || !strings.Contains(s.stderr, "nowhere is not a dbperf run directory") {
		t.Errorf("summary of a missing run: exit %d %q", s.code, s.stderr)
	}
	tg := run(t, dir, "targets")
	for _, k := range []string{"sqlite", "pebble", "bbolt", "postgres"} {
		if !strings.Contains(tg.stdout, k) {
			t.Errorf("targets does not list %s:\n%s", k, tg.stdout)
		}
	}
	if h := run(t, dir, "--help"); !strings.Contains(h.stdout, "dbperf run insert --target pebble:/tmp/ib --clients 4") {
		t.Errorf("--help has no examples:\n%s", h.stdout)
	}
	if again := run(t, dir, "run", "insert", "--out", "runs/p"); again.code == 0 || !strings.Contains(again.stderr, "already exists and is not empty") {
		t.Errorf("a second run into the same directory: exit %d %q", again.code, again.stderr)
	}
}

// TestPlan runs a plan of a managed PostgreSQL with a config and an embedded target: each run
// gets its own directory named after it, the server's settings come from that config, and the
// server is stopped afterwards.
func TestPlan(t *testing.T) {
	testPostgres(t) // the same installation; this test starts its own server
	dir := t.TempDir()
	data, err := os.MkdirTemp("", "dbperf-plan-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o755)
	defer os.RemoveAll(data)
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"runs": [
		{"server": "postgres", "configs": ["cached-by-os"], "port": 15472, "datadir": "`+data+`/pg"},
		{"target": "bbolt"}]}`), 0o644)
	r := run(t, dir, "run", "insert", "--plan", plan, "--rows", "300", "--l1-rows", "100", "--steps", "l.i0,l.x,l.i1", "--out", "runs/p")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stdout, "2 of 2 runs complete in runs/p") {
		t.Errorf("output does not say both runs completed:\n%s", r.stdout)
	}
	var meta struct {
		Complete bool
		Target   struct{ Settings map[string]any }
		Host     struct{ Disk string }
	}
	b, _ := os.ReadFile(filepath.Join(dir, "runs/p/postgres-cached-by-os/run.json"))
	// cached-by-os: a tenth of cached-by-dbms's cache, in PostgreSQL's 8kB pages.
	wantBuffers := fmt.Sprintf("%d (8kB)", server.OSCacheSize*1024/8)
	if err := json.Unmarshal(b, &meta); err != nil || !meta.Complete || meta.Target.Settings["shared_buffers"] != wantBuffers {
		t.Errorf("postgres-cached-by-os/run.json: complete=%v shared_buffers=%v (%v)", meta.Complete, meta.Target.Settings["shared_buffers"], err)
	}
	if meta.Host.Disk == "" {
		t.Errorf("postgres-cached-by-os/run.json names no disk: a server on this host has its data directory's")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs/p/bbolt/run.json")); err != nil {
		t.Errorf("no bbolt run: %v", err)
	}
	if st := run(t, dir, "server", "status", "postgres", "--datadir", data+"/pg", "--port", "15472"); st.code != 3 {
		t.Errorf("the plan's server still runs after the plan: %s", st.stdout)
	}
}

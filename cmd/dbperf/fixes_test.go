package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
)

func TestVersion(t *testing.T) {
	r := run(t, t.TempDir(), "--version")
	want := regexp.MustCompile(`^dbperf ` + regexp.QuoteMeta(archive.Version) + ` \(commit ([0-9a-f]{40}(\+modified)?|unknown), ` + regexp.QuoteMeta(runtime.Version()) + `\)\n$`)
	if r.code != 0 || !want.MatchString(r.stdout) {
		t.Errorf("--version: exit %d, %q; want version, commit and Go version", r.code, r.stdout)
	}
}

// TestDefaultRunDirsUnique is the loop: runs started within the same second get
// distinct default directories, which sort in the order the runs started.
func TestDefaultRunDirsUnique(t *testing.T) {
	dir := t.TempDir()
	for i := range 4 {
		if r := run(t, dir, "run", "insert", "--rows", "100", "--steps", "l.i0"); r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, r.code, r.stderr)
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "runs", "insert-sqlite-*"))
	if len(names) != 4 {
		t.Fatalf("%d run directories, want 4: %v", len(names), names)
	}
	sort.Strings(names)
	var last time.Time
	for _, n := range names {
		var meta struct{ Start time.Time }
		b, err := os.ReadFile(filepath.Join(n, "run.json"))
		if err != nil || json.Unmarshal(b, &meta) != nil {
			t.Fatalf("%s/run.json: %v", n, err)
		}
		if meta.Start.Before(last) {
			t.Errorf("%s started before the run named before it: names do not sort by time (%v)", n, names)
		}
		last = meta.Start
	}
}

// TestFailFast: mistakes found before anything is created, with the sentence that says what
// to do.
func TestFailFast(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative settle wait", []string{"--settle-wait", "-5s"}, "--settle-wait must not be negative (got -5s)"},
		{"l.i1 on a temporary database", []string{"--steps", "l.i1"}, "target sqlite is a new, empty temporary database: run l.i0 first (e.g. --steps l.i0,l.i1)"},
		{"l.i1 on a database without tables", []string{"--steps", "l.i1,l.i2", "--target", "sqlite:db.sqlite"}, "but in sqlite:db.sqlite table pi1 cannot be read"},
		{"settle on an empty pebble", []string{"--steps", "settle", "--target", "pebble:pdb"}, "run l.i0 first (e.g. --steps l.i0,settle) or give a database that has the tables"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, args := range [][]string{{"--out", "runs/x"}, nil} { // given and default --out
				r := run(t, dir, append([]string{"run", "insert"}, append(args, c.args...)...)...)
				if r.code == 0 || !strings.Contains(r.stderr, c.want) || !strings.HasPrefix(r.stderr, "dbperf: ") {
					t.Errorf("exit %d, stderr %q; want it to say %q", r.code, r.stderr, c.want)
				}
				if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
					t.Errorf("a failed invocation left a run directory behind")
				}
			}
		})
	}
}

// TestDocsSelfContained: no document links or points to a file outside the repository.
func TestDocsSelfContained(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md")
	outside := regexp.MustCompile("(\\]\\(|`)(\\.\\./|/work/)")
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d points outside the repository: %s", filepath.Base(d), i+1, line)
			}
		}
	}
}

// TestReadmeDefaults: every "(default; published)" size the README states for 'run insert' is
// the flag's default in the code.
func TestReadmeDefaults(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	help := run(t, t.TempDir(), "run", "insert", "--help").stdout
	readme := strings.Join(strings.Fields(string(b)), " ")
	stated := regexp.MustCompile("`--([a-z0-9-]+)`[^`(]*\\(([0-9.]+); [^)]+\\)").FindAllStringSubmatch(readme, -1)
	if len(stated) < 4 {
		t.Fatalf("the README states %d defaults; want at least --clients, --rows, --l1-rows, --q-seconds", len(stated))
	}
	for _, s := range stated {
		m := regexp.MustCompile(`--` + regexp.QuoteMeta(s[1]) + ` \S+ .*\(default (\S+)\)`).FindStringSubmatch(help)
		if m == nil || m[1] != s[2] {
			t.Errorf("the README says --%s defaults to %s; the code: %v", s[1], s[2], m)
		}
	}
	for flag, want := range map[string]string{"settle-wait": "default 0", "retries": "default 3", "data-min/--data-max": "default 10..20"} {
		if !strings.Contains(readme, "`--"+flag+"` ("+want) {
			t.Errorf("the README does not say --%s (%s)", flag, want)
		}
	}
	if !strings.Contains(help, "--retries int ") || !strings.Contains(help, "(default 3)") {
		t.Errorf("--retries default changed: update the README")
	}
}

// dataParent makes a directory the servers' system users can enter (t.TempDir is private).
func dataParent(t *testing.T) string {
	d, err := os.MkdirTemp("", "dbperf-cli-server-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o755)
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

type serverStatus struct {
	code int
	pid  string
	out  string
}

func status(t *testing.T, kind string, args ...string) serverStatus {
	t.Helper()
	r := run(t, t.TempDir(), append([]string{"server", "status", kind}, args...)...)
	m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(r.stdout)
	st := serverStatus{code: r.code, out: r.stdout + r.stderr}
	if m != nil {
		st.pid = m[1]
	}
	return st
}

// TestPlanServers: a plan checks its --out before it stops or starts any server (the running
// server keeps its pid), and the servers it starts are stopped when the run fails and when it
// is interrupted.
func TestPlanServers(t *testing.T) {
	testPostgres(t)
	dir, data := t.TempDir(), dataParent(t)+"/pg"
	const port = "15473"
	if r := run(t, dir, "server", "start", "postgres", "--datadir", data, "--port", port); r.code != 0 {
		t.Fatalf("server start: %s", r.stderr)
	}
	t.Cleanup(func() { run(t, dir, "server", "stop", "postgres", "--datadir", data) })
	before := status(t, "postgres", "--datadir", data)
	if before.code != 0 || before.pid == "" {
		t.Fatalf("status after start: %+v", before)
	}
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"runs": [{"server": "postgres", "configs": ["cached-by-os"], "port": `+port+`, "datadir": "`+data+`"}, {"target": "bbolt"}]}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "runs/p/bbolt"), 0o755)
	os.WriteFile(filepath.Join(dir, "runs/p/bbolt/keep"), []byte("x"), 0o644)
	r := run(t, dir, "run", "insert", "--plan", plan, "--rows", "300", "--steps", "l.i0", "--out", "runs/p")
	if r.code == 0 || !strings.Contains(r.stderr, "run directory runs/p/bbolt already exists and is not empty") {
		t.Errorf("a plan into an existing run directory: exit %d, %q", r.code, r.stderr)
	}
	if after := status(t, "postgres", "--datadir", data); after.code != 0 || after.pid != before.pid {
		t.Errorf("the plan touched the server before it checked --out: pid %s, then %+v", before.pid, after)
	}

	// A run that fails once its server runs (no tables for l.i1): the server is stopped.
	os.WriteFile(plan, []byte(`{"runs": [{"server": "postgres", "configs": ["cached-by-os"], "port": `+port+`, "datadir": "`+data+`"}]}`), 0o644)
	r = run(t, dir, "run", "insert", "--plan", plan, "--rows", "300", "--steps", "l.i1", "--out", "runs/fail")
	if r.code == 0 || !strings.Contains(r.stderr, "but in postgres://postgres@127.0.0.1:"+port+"/ib table pi1 cannot be read") {
		t.Errorf("l.i1 on a new server: exit %d, %q", r.code, r.stderr)
	}
	if st := status(t, "postgres", "--datadir", data); st.code != 3 {
		t.Errorf("the server still runs after its run failed: %+v", st)
	}

	// Interrupted (SIGTERM, as timeout(1) sends) during l.i1: the server is stopped too.
	cmd := exec.Command(dbperfBin, "run", "insert", "--plan", plan, "--rows", "300", "--l1-rows", "100000000", "--steps", "l.i0,l.i1", "--out", "runs/int")
	cmd.Dir = dir
	outFile := filepath.Join(dir, "out.txt")
	out, err := os.Create(outFile) // the live lines reach it unbuffered
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	output := func() string { b, _ := os.ReadFile(outFile); return string(b) }
	deadline := time.Now().Add(2 * time.Minute)
	for {
		// the step's header, its column line and a first live line: l.i1 runs
		if _, after, ok := strings.Cut(output(), "== step l.i1\n"); ok && strings.Count(after, "\n") >= 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("l.i1 did not start:\n%s", output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130:\n%s", err, output())
	}
	if !strings.Contains(output(), "stopped postgres") {
		t.Errorf("the output does not say the server was stopped:\n%s", output())
	}
	if st := status(t, "postgres", "--datadir", data); st.code != 3 {
		t.Errorf("the server still runs after its run was interrupted: %+v", st)
	}
}

// TestServerStatusByPort: without --datadir, status and stop find the server dbperf started
// on --port wherever its data directory is; a port held by something else is said so.
func TestServerStatusByPort(t *testing.T) {
	testPostgres(t)
	dir, data := t.TempDir(), dataParent(t)+"/mdb"
	const port = "13373"
	if r := run(t, dir, "server", "start", "mariadb", "--datadir", data, "--port", port); r.code != 0 {
		t.Fatalf("server start: %s", r.stderr)
	}
	t.Cleanup(func() { run(t, dir, "server", "stop", "mariadb", "--datadir", data) })
	st := status(t, "mariadb", "--port", port)
	if st.code != 0 || !strings.Contains(st.out, "running on 127.0.0.1:"+port) || !strings.Contains(st.out, "data "+data) {
		t.Errorf("status by port: %+v", st)
	}
	if other := status(t, "postgres", "--port", port); other.code != 3 || !strings.Contains(other.out, "port "+port+" on 127.0.0.1 is in use, but not by a postgres server dbperf started") {
		t.Errorf("status of another kind on that port: %+v", other)
	}
	if r := run(t, dir, "server", "stop", "mariadb", "--port", port); r.code != 0 {
		t.Errorf("stop by port: exit %d %s", r.code, r.stderr)
	}
	if st := status(t, "mariadb", "--datadir", data); st.code != 3 {
		t.Errorf("running after stop by port: %+v", st)
	}
}

// TestServerDataDirAccess: a data directory under a directory the server's user cannot enter
// (as mktemp -d makes) is refused in one sentence that names it and the fix, before anything
// is created. It applies when dbperf runs as root, where servers run as their system users.
func TestServerDataDirAccess(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only as root do the servers run as another user")
	}
	private, err := os.MkdirTemp("", "dbperf-private-") // mode 0700, like mktemp -d
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(private)
	for kind, user := range map[string]string{"mariadb": "mysql", "postgres": "postgres"} {
		r := run(t, t.TempDir(), "server", "start", kind, "--datadir", private+"/srv", "--port", "13374")
		want := "the " + kind + " server runs as the system user " + user + ", which cannot enter " + private + " (mode 0700"
		if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "chmod o+x "+private) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%s under a private directory: exit %d, %q; want one line saying %q", kind, r.code, r.stderr, want)
		}
		if _, err := os.Stat(private + "/srv"); err == nil {
			t.Errorf("%s: the data directory was created", kind)
		}
	}
}

// TestScriptStopsServers: scripts/test.sh stops the servers it starts when it ends, whether
// the tests pass, fail or are interrupted: the EXIT trap is set before the first server starts
// and stops every kind the script starts. (Running the script here would restart the servers
// this very test suite runs against.)
func TestScriptStopsServers(t *testing.T) {
	b, err := os.ReadFile("../../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	trap := strings.Index(script, "\ntrap stop_servers EXIT\n")
	start := strings.Index(script, "server start")
	if trap < 0 || start < 0 || trap > start {
		t.Fatalf("scripts/test.sh has no 'trap stop_servers EXIT' before its first 'server start'")
	}
	fn := regexp.MustCompile(`(?s)\nstop_servers\(\) \{\n(.*?)\n\}\n`).FindStringSubmatch(script)
	if fn == nil || !strings.Contains(fn[1], "server stop") {
		t.Fatalf("scripts/test.sh: stop_servers does not stop servers")
	}
	for _, m := range regexp.MustCompile(`for server in ([^;]+);`).FindStringSubmatch(script)[1:] {
		for _, s := range strings.Fields(m) {
			kind, _, _ := strings.Cut(s, ":")
			if !strings.Contains(fn[1], kind) {
				t.Errorf("stop_servers does not stop %s, which the script starts", kind)
			}
		}
	}
	for _, sig := range []string{"INT", "TERM"} {
		if !regexp.MustCompile(`\ntrap 'exit \d+' ` + sig + `\n`).MatchString(script) {
			t.Errorf("scripts/test.sh does not turn %s into an exit (which runs the EXIT trap)", sig)
		}
	}
}

// TestRepeat: --repeat 2 writes a run group of two runs with their own seeds, which summary and
// compare read as groups; a group beside a run directory is refused.
func TestRepeat(t *testing.T) {
	dir := t.TempDir()
	for _, g := range []string{"a", "b"} {
		if r := run(t, dir, "run", "insert", "--repeat", "2", "--quiet", "--seed", "5", "--rows", "500", "--steps", "l.i0,l.x", "--out", g); r.code != 0 {
			t.Fatalf("repeat into %s: exit %d\n%s", g, r.code, r.stderr)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "a", "group.json"))
	if err != nil || !strings.Contains(string(b), `"runs": [`) || !strings.Contains(string(b), `"rep-2"`) || !strings.Contains(string(b), "6") {
		t.Fatalf("group.json: %s %v", b, err)
	}
	if s := run(t, dir, "summary", "a"); s.code != 0 || !strings.Contains(s.stdout, "ci95_low") || !strings.Contains(s.stdout, "l.i0  ips") {
		t.Errorf("summary of a group: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	// The columns are as wide as their widest value, which depends on the runs' figures (a
	// busy machine gives wider ones): the header's words, not its spacing.
	header := regexp.MustCompile(`(?m)^step +figure +a +b +ratio +p +q$`)
	if s := run(t, dir, "compare", "--base", "a", "b"); s.code != 0 || !header.MatchString(s.stdout) {
		t.Errorf("compare of groups: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "summary", "a", "a/rep-1"); s.code == 0 || !strings.Contains(s.stderr, "give one kind or the other") {
		t.Errorf("a group beside a run: exit %d %q", s.code, s.stderr)
	}
	if s := run(t, dir, "run", "insert", "--repeat", "2", "--steps", "l.i1"); s.code == 0 || !strings.Contains(s.stderr, "--steps must start with l.i0") {
		t.Errorf("--repeat without l.i0: exit %d %q", s.code, s.stderr)
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestScriptCommand: run script runs a file (op named after it) and a built-in with its init on
// SQLite into run directories that summary reads; its mistakes (an unsupported meta-command, an
// SLA on no script, a bad weight, a script name no op type can have) get one sentence and
// leave nothing behind.
func TestScriptCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "upd.sql")
	if err := os.WriteFile(file, []byte("\\set x random(1, 10)\nSELECT :x AS x \\gset\n\\if :x > 5\nSELECT 1;\n\\endif\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args        []string
		want, check string
	}{
		// A user's script without --check has nothing to check: it says so, never "ok".
		{[]string{"run", "script", "--file", file, "--clients", "2", "--transactions", "50", "--sla", "upd:p99<10s", "--quiet", "--out", "f"}, "upd", "check: none"},
		{[]string{"run", "script", "--builtin", "select-only", "--clients", "2", "--transactions", "20", "--quiet", "--out", "b"}, "select-only", "check: the database holds"},
	} {
		if r := run(t, dir, c.args...); r.code != 0 || !strings.Contains(r.stdout, "== summary of") {
			t.Fatalf("%v: exit %d\n%s%s", c.args, r.code, r.stdout, r.stderr)
		} else if !strings.Contains(r.stdout, c.check) {
			t.Errorf("%v: no %q in\n%s", c.args, c.check, r.stdout)
		} else if end := r.stdout[strings.Index(r.stdout, "== summary of"):]; c.check == "check: none" && !regexp.MustCompile(`(?m)^ +run .* unchecked$`).MatchString(end) {
			t.Errorf("%v: the end table does not say the run step is unchecked, as summary does:\n%s", c.args, end)
		}
		out := c.args[len(c.args)-1]
		if s := run(t, dir, "summary", "--wide", out); s.code != 0 || !strings.Contains(s.stdout, c.want) {
			t.Errorf("summary of %s: exit %d\n%s%s", out, s.code, s.stdout, s.stderr)
		}
	}
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("SELECT 1;\n\\shell echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"x,y.sql", "failed.sql", "select-only.sql"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("SELECT 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "script", "--file", bad}, "bad:2: unsupported meta-command \\shell"},
		{[]string{"run", "script", "--file", file, "--sla", "nope:p99<1ms"}, `names op type "nope"`},
		{[]string{"run", "script", "--file", file + "@x"}, "the weight after @ must be an integer"},
		{[]string{"run", "script", "--builtin", "tpcb-like", "--steps", "run"}, "run the init step first"},
		{[]string{"run", "script"}, "give a script"},
		{[]string{"run", "script", "--file", file, "--query-mode", "fast"}, "--query-mode \"fast\""},
		{[]string{"run", "script", "--file", file, "--per-statement", "--arrival", "constant", "--rate", "10"}, "closed loop"},
		{[]string{"run", "script", "--file", file, "--per-statement", "--sla", "upd:p99<1s"}, "upd.1, upd.2, failed"},
		// names an op type cannot have, refused before any work
		{[]string{"run", "script", "--file", file, "--name", "my op"}, `script name "my op": an op type holds only letters`},
		{[]string{"run", "script", "--file", filepath.Join(dir, "x,y.sql")}, `script name "x,y"`},
		{[]string{"run", "script", "--file", filepath.Join(dir, "failed.sql")}, `script name "failed" is the op type of dbperf's own`},
		{[]string{"run", "script", "--builtin", "select-only", "--file", filepath.Join(dir, "select-only.sql")}, "two scripts are named select-only"},
	} {
		sub := t.TempDir()
		r := run(t, sub, c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(sub, "runs")); err == nil {
			t.Errorf("%v left a run directory", c.args)
		}
	}
}

// TestScriptInitFlags: pgbench's init options and -C reach the run (run.json's settings record
// them) or are refused in one sentence: outside the init step, off PostgreSQL, out of range.
func TestScriptInitFlags(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "script", "--builtin", "tpcb-like", "--steps", "init", "--init-steps", "dt g", "--quiet", "--out", "i")
	if r.code != 0 || !strings.Contains(r.stdout, "check: the database holds") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "i", "run.json"))
	if err != nil || !strings.Contains(string(b), `"init_steps": "dtg"`) || !strings.Contains(string(b), `"connect_per_transaction": false`) ||
		!strings.Contains(string(b), `"fillfactor": 100`) {
		t.Errorf("run.json's settings: %v\n%s", err, b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fillfactor", "90"}, "--fillfactor is PostgreSQL's table storage parameter; sqlite has none"},
		{[]string{"--fillfactor", "5"}, "--fillfactor must be 10 to 100"},
		{[]string{"--partitions", "2"}, "run on PostgreSQL only, not sqlite"},
		{[]string{"--partition-method", "hash"}, "--partition-method needs --partitions greater than 0"},
		{[]string{"--init-steps", ""}, "--init-steps has no step"},
		{[]string{"--init-steps", "dtq"}, "unknown step 'q'"},
		{[]string{"--init-steps", "dtG"}, "which sqlite does not have: use g"},
		{[]string{"--init-steps", "dt", "--steps", "run"}, "add init to --steps"},
		{[]string{"-C"}, "--connect-per-transaction runs on PostgreSQL only"},
	} {
		args := append([]string{"run", "script", "--builtin", "tpcb-like", "--transactions", "2"}, c.args...)
		if r := run(t, t.TempDir(), args...); r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

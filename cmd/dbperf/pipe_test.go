package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClosedStdout runs `dbperf run insert | head -1`: the closed pipe is an interrupt, not a
// kill. The temporary database is removed, no step file stays .partial, run.json says why the
// run stopped, and the exit status is an interrupt's.
func TestClosedStdout(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	first, stderr := pipeToHead(t, dir, tmp, "run", "insert", "--target", "sqlite", "--rows", "2000", "--l1-rows", "100000000", "--out", "runs/p")
	if !strings.HasPrefix(first, "dbperf insert on sqlite") {
		t.Errorf("head read %q", first)
	}
	if !strings.Contains(stderr, "standard output was closed") {
		t.Errorf("stderr does not say why the run stopped: %q", stderr)
	}
	var meta struct {
		Complete bool
		Error    string
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs/p/run.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("run.json: %v", err)
	}
	if meta.Complete || meta.Error != "interrupted: standard output was closed (broken pipe)" {
		t.Errorf("run.json: complete %v, error %q", meta.Complete, meta.Error)
	}
	if partial, _ := filepath.Glob(filepath.Join(dir, "runs/p/*/*.partial")); len(partial) > 0 {
		t.Errorf("partial files left: %v", partial)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the temporary database was left behind: %v", left)
	}
}

// TestClosedStdoutRepeat: a group of repeats stopped by a closed standard output says so too
// (it said only "interrupted").
func TestClosedStdoutRepeat(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	_, stderr := pipeToHead(t, dir, tmp, "run", "insert", "--repeat", "2", "--rows", "2000", "--l1-rows", "100000000", "--out", "runs/g")
	if !strings.Contains(stderr, "standard output was closed") {
		t.Errorf("stderr does not say why the group stopped: %q", stderr)
	}
}

// pipeToHead runs dbperf with args in dir (TMPDIR tmp), its standard output piped into head -1,
// and returns what head read and dbperf's standard error; dbperf must exit 130, an interrupt
// (a SIGPIPE kill has no status).
func pipeToHead(t *testing.T, dir, tmp string, args ...string) (first, stderr string) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	run := exec.Command(dbperfBin, args...)
	run.Dir = dir
	run.Env = append(os.Environ(), "TMPDIR="+tmp)
	var errb, out bytes.Buffer
	run.Stdout, run.Stderr = pw, &errb
	head := exec.Command("head", "-1")
	head.Stdin, head.Stdout = pr, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	if err := head.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close() // the pipe's ends now belong to the two processes only
	pr.Close()
	head.Wait()
	err = run.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v (want status 130, an interrupt; a SIGPIPE kill has none); stderr:\n%s", err, errb.String())
	}
	return out.String(), errb.String()
}

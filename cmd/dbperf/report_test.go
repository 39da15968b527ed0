package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCrashRuns: dbperf report reads a crash run (crash.json) into its section of lost
// commits, alone or beside a benchmark run, whose page then still opens on its headlines.
func TestReportCrashRuns(t *testing.T) {
	dir := t.TempDir()
	crashDir := filepath.Join(dir, "crash-bbolt")
	r := run(t, dir, "crash", "--target", "bbolt", "--crashes", "1", "--min-run", "300ms", "--max-run", "500ms", "--seed", "5", "--out", crashDir)
	if r.code != 0 {
		t.Fatalf("crash: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	runDir := filepath.Join(dir, "bench")
	r = run(t, dir, "run", "insert", "--steps", "l.i0,l.x", "--rows", "2000", "--out", runDir)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	r = run(t, dir, "report", crashDir, "-o", "crash.html")
	if r.code != 0 || !strings.Contains(r.stdout, "1 crash runs") {
		t.Fatalf("report of a crash run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	page := read("crash.html")
	for _, want := range []string{"Lost commits per crash", "<th>bbolt</th><th>NoSync=false</th><th>process</th>",
		"durable: 0 lost in 1 crashes"} {
		if !strings.Contains(page, want) {
			t.Errorf("crash.html lacks %q", want)
		}
	}
	if strings.Contains(page, `id="summary"`) {
		t.Errorf("crash.html has a benchmark summary")
	}
	r = run(t, dir, "report", runDir, crashDir, "-o", "mixed.html")
	if r.code != 0 {
		t.Fatalf("report of both: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	page = read("mixed.html")
	glance, crash, summary := strings.Index(page, `id="glance"`), strings.Index(page, `id="crash"`), strings.Index(page, `id="summary"`)
	if glance < 0 || crash < glance || summary < crash {
		t.Errorf("mixed.html: headlines at %d, crash section at %d, summary at %d: want them in that order", glance, crash, summary)
	}
}

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestFullDiskIsTheStepsFailure: a step whose files cannot be written (a full disk: its
// intervals.csv goes to /dev/full, which fails every write with ENOSPC) fails with that one
// cause, not a list of every file's error, and the closing summary keeps the database check's
// own outcome, which passed.
func TestFullDiskIsTheStepsFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	path := filepath.Join(t.TempDir(), "run")
	w := &script{steps: []string{"a"}}
	d, err := archive.Create(path, archive.Run{Name: "run", Figures: w.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(path, "a"), 0o755)
	for _, f := range []string{"intervals.csv", "latency.hlog"} {
		if err := os.Symlink("/dev/full", filepath.Join(path, "a", f+".partial")); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	runErr := (&Session{Workload: w, Dir: d, Out: &out, Verify: true}).Run(t.Context())
	if runErr == nil || strings.Count(runErr.Error(), "no space left on device") != 1 || strings.Contains(runErr.Error(), "[") {
		t.Fatalf("Run: %v; want one 'no space left on device', not a list", runErr)
	}
	if !strings.Contains(runErr.Error(), "(and 1 more of its files)") {
		t.Errorf("Run: %v; want the count of the other files that failed", runErr)
	}
	_, steps, err := archive.Read(path)
	if err != nil || len(steps) != 1 {
		t.Fatalf("archive: %v, %d steps", err, len(steps))
	}
	if s := steps[0]; s.Complete || !s.Verified || !strings.Contains(s.Error, "no space left on device") {
		t.Errorf("summary.json: complete %v verified %v error %q; want not complete, verified, the write error", s.Complete, s.Verified, s.Error)
	}
	var row []string
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "a" {
			row = f
			break
		}
	}
	if len(row) < 2 || row[len(row)-1] != "ok" {
		t.Errorf("closing summary row %q: want check ok (it passed):\n%s", row, out.String())
	}
	if !strings.Contains(out.String(), "   FAILED: writing step a: ") {
		t.Errorf("the step's end does not say it failed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "a did not complete: writing step a: ") {
		t.Errorf("the closing summary does not say why a did not complete:\n%s", out.String())
	}
}

package archive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// TestFinishOnFullDisk: when a step's streamed files cannot be written (here the kernel's
// /dev/full, which fails every write with ENOSPC, as a full disk does), Finish fails and the
// summary.json it still manages to write says the step is not complete, whatever the session
// thought of it: 'dbperf summary' must not show such a step "ok yes".
func TestFinishOnFullDisk(t *testing.T) {
	d, err := Create(filepath.Join(t.TempDir(), "run"), Run{Name: "run"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.StartStep("l.i0", []measure.OpType{{Name: "insert"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.intervals.f.Close()
	w.intervals.f = full
	w.intervals.w.Reset(full)
	if err := w.intervals.Write([]string{"1.000", "0", "1.000"}); err != nil {
		t.Fatal(err) // buffered: the error comes when the file is flushed
	}
	err = w.Finish(Step{Step: "l.i0", Complete: true, Verified: true})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Finish on a full disk: %v", err)
	}
	_, steps, rerr := Read(d.Path)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(steps) != 0 {
		t.Fatalf("run.json lists %d steps; the session adds them, not Finish", len(steps))
	}
	b, rerr := os.ReadFile(filepath.Join(d.Path, "l.i0", "summary.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !strings.Contains(string(b), `"complete": false`) || !strings.Contains(string(b), "no space left on device") {
		t.Errorf("summary.json of a step whose files were lost:\n%s", b)
	}
}

package archive

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// oldRun is a run directory written by dbperf before run.json's target had a type of the
// archive's own (it was the driver's) and before the host summary's per-op figures had generic
// names: run.json and each step's summary.json as that version wrote them (commit fe299ed, `dbperf
// run insert --target pebble --rows 300 --steps l.i0,l.x,l.i1,qr100`).
const oldRun = "testdata/run-0.1.0"

// TestOldRunStillReads: an old run directory loads, its target and host figures come through,
// and writing what was read gives back the same bytes, so the format has not changed.
func TestOldRunStillReads(t *testing.T) {
	meta, steps, err := Read(oldRun)
	if err != nil {
		t.Fatal(err)
	}
	tg := meta.Target
	if tg.Kind != "pebble" || tg.Engine != "Pebble" || tg.Version != "v2.1.7" || tg.Target != "pebble:/tmp/oldib" || tg.Settings["memtable_bytes"] != float64(4<<20) {
		t.Errorf("target: %+v", tg)
	}
	if len(steps) != 4 || !steps[2].Complete || steps[2].Host == nil {
		t.Fatalf("steps: %d, l.i1 %+v", len(steps), steps[2])
	}
	if h := steps[2].Host; h.WriteRate != 30672.4 || h.WritesPerWrite == nil || *h.WritesPerWrite != 0.067 || *h.WriteKBPerWrite != 0.726 || *h.CPUUsPerOp != 66 {
		t.Errorf("l.i1's host figures: %+v", h)
	}
	if h := steps[3].Host; h.ReadRate != 62719.2 || *h.ReadKBPerOp != 0.008 || *h.ReadsPerOp != 0.001 {
		t.Errorf("qr100's host figures: %+v", h)
	}
	same := func(path string, v any) {
		t.Helper()
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(append(got, '\n'), want) {
			t.Errorf("%s read and written again differs:\n%s", path, got)
		}
	}
	same(filepath.Join(oldRun, "run.json"), meta)
	for i, s := range meta.Steps {
		same(filepath.Join(oldRun, s.Dir, "summary.json"), steps[i])
	}
}

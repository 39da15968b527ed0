package merge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestMergedFaults: a merged step's faults are the shards' added up (errors by kind, retries,
// reconnects) with each shard's window without the target kept, labelled by its shard and on
// the rendezvous's clock, in summary.json and run.json alike; a step no shard had faults in
// has none.
func TestMergedFaults(t *testing.T) {
	base := t.TempDir()
	clocks := []time.Duration{0, 2 * time.Second}
	dirs := startShards(t, filepath.Join(base, "sharded"), 2, clocks, nil)
	// A window 5 s into shard k's query step, by its own clock, of 1.5 s.
	var windowAt []time.Time
	for k, d := range dirs {
		path := filepath.Join(d, "query", "summary.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		var sum archive.Step
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		at := sum.Start.Add(5 * time.Second)
		windowAt = append(windowAt, at.Add(-clocks[k]))
		s["faults"] = archive.Faults{Errors: map[string]int64{"connection_lost": int64(3 + k), "deadlock": 1},
			Retries: int64(10 * (k + 1)), Reconnects: 2,
			Unreachable: []archive.Window{{Start: at, End: at.Add(1500 * time.Millisecond), Seconds: 1.5}}}
		if b, err = json.Marshal(s); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(base, "merged")
	meta, err := Runs(out, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, steps, err := archive.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Faults != nil || meta.Steps[0].Faults != nil {
		t.Errorf("the load step had no faults, merged: %+v", steps[0].Faults)
	}
	for where, f := range map[string]*archive.Faults{"summary.json": steps[1].Faults, "run.json": meta.Steps[1].Faults} {
		if f == nil {
			t.Fatalf("%s: the merged query step has no faults", where)
		}
		if f.Errors["connection_lost"] != 7 || f.Errors["deadlock"] != 2 || f.Retries != 30 || f.Reconnects != 4 {
			t.Errorf("%s: %+v, want connection_lost 7, deadlock 2, 30 retries, 4 reconnects", where, f)
		}
		if line := f.String(); !strings.Contains(line, "shard 1 without the target 1.5s") {
			t.Errorf("%s: %q names no shard", where, line)
		}
		if len(f.Unreachable) != 2 {
			t.Fatalf("%s: windows %+v, want one per shard", where, f.Unreachable)
		}
		for _, w := range f.Unreachable {
			if w.Shard == nil || *w.Shard < 0 || *w.Shard > 1 {
				t.Fatalf("%s: window %+v has no shard", where, w)
			}
			if k := *w.Shard; !w.Start.Equal(windowAt[k]) || !w.End.Equal(windowAt[k].Add(1500*time.Millisecond)) || w.Seconds != 1.5 {
				t.Errorf("%s: shard %d's window %s to %s, want %s on the rendezvous's clock", where, k, w.Start, w.End, windowAt[k])
			}
		}
	}
}

package merge

import (
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
)

// TestMergedInsertGate: a merged qr100 meets the Insert Benchmark's insert target when the
// shards' summed achieved rate holds 95% of the whole run's target, whatever each shard's own
// verdict: a shard at 92% made up by one at 100% meets it; two at 94% do not.
func TestMergedInsertGate(t *testing.T) {
	figs := insertbench.Declaration()
	shardStep := func(achieved, target float64) archive.Step {
		return archive.Step{Step: "qr100", Workload: map[string]any{
			"insert_target_per_sec": target, "insert_achieved_per_sec": achieved, "insert_target_met": achieved >= 0.95*target}}
	}
	for _, c := range []struct {
		name  string
		sums  []archive.Step
		total float64
		met   bool
	}{
		{"slow shard made up", []archive.Step{shardStep(100, 100), shardStep(92, 100)}, 192, true},
		{"both just below", []archive.Step{shardStep(94, 100), shardStep(94, 100)}, 188, false},
		{"uneven shares", []archive.Step{shardStep(150, 150), shardStep(40, 50)}, 190, true},
	} {
		w := mergeWorkload(c.sums, figs)
		if w["insert_achieved_per_sec"] != c.total || w["insert_target_per_sec"] != 200.0 || w["insert_target_met"] != c.met {
			t.Errorf("%s: merged %v, want achieved %g of 200, met %v", c.name, w, c.total, c.met)
		}
		if !figs.Gate.Applies(archive.Step{Workload: w}) {
			t.Errorf("%s: the merged step lost its gate", c.name)
		}
	}
}

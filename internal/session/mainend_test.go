package session

import (
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// TestMainEnd: a step whose main op stopped 8 s into 10 (overwriteandwait's puts, then its
// compaction wait) has its main op's rate over those 8 s, as db_bench's ops_sec of the
// overwrite; the other op types keep the step's seconds; and the wait's two seconds, with no
// puts at all, are not judged as stalls of the puts.
func TestMainEnd(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ops := []measure.OpType{{Name: "put"}, {Name: "compaction_wait"}}
	res := runner.Result{Total: measure.NewInterval(2), Start: t0, End: t0.Add(10 * time.Second)}
	res.Total.Ops[0].Units, res.Total.Ops[1].Units = 800, 1
	plan := &workload.StepPlan{Step: runner.Step{Ops: ops}, Main: 0, Write: 0, Read: workload.None,
		MainEnd: func() time.Time { return t0.Add(8 * time.Second) }}
	sum, _ := summarize("overwriteandwait", plan, res)
	if got := sum.Ops["put"].PerSec; got != 100 {
		t.Errorf("put rate %v/s, want 100 (800 puts over the 8 s of the overwrite)", got)
	}
	if got := sum.Ops["compaction_wait"].PerSec; got != 0.1 {
		t.Errorf("wait rate %v/s, want 0.1 (over the step's 10 s)", got)
	}
	var secs []measure.Second
	for i := 1; i <= 10; i++ {
		rate := 100.0
		if i > 8 {
			rate = 0 // the compaction wait
		}
		secs = append(secs, measure.Second{T: float64(i), Seconds: 1, Rate: rate})
	}
	if all := measure.DetectStalls(secs, measure.DefaultStallRule); all.Count != 1 {
		t.Fatalf("every second judged: %d stalls, want the wait's 1 (the test shows nothing)", all.Count)
	}
	if judged := measure.DetectStalls(secondsUntil(secs, 8), measure.DefaultStallRule); judged.Count != 0 {
		t.Errorf("seconds until the puts stopped: %d stalls at %v, want none", judged.Count, judged.At)
	}
	plan.MainEnd = func() time.Time { return time.Time{} } // no wait: the step's own end
	if sum, _ := summarize("s", plan, res); sum.Ops["put"].PerSec != 80 {
		t.Errorf("without a main end: %v/s, want 80", sum.Ops["put"].PerSec)
	}
}

package insertbench

import (
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// gateResult is a q step's runner result: inserts rows in secs seconds.
func gateResult(rows int64, secs float64, complete bool) runner.Result {
	start := time.Unix(1000, 0)
	total := measure.NewInterval(3)
	total.Ops[stepInsert].Units = rows
	return runner.Result{Total: total, Start: start, End: start.Add(time.Duration(secs * float64(time.Second))), Complete: complete}
}

// An interrupted q step's inserts divide by the seconds that ran, not by the whole schedule: a
// step of 20 scheduled seconds interrupted after 3.8 s, whose inserts ran at 210/s, warned that
// they were at 40/s, below 95% of the target of 200/s.
func TestInsertGateInterruptedDividesBySecondsRun(t *testing.T) {
	figs, warnings := insertGate(200, 20)(gateResult(800, 3.8, false))
	if got := figs[keyAchieved].(float64); got < 210 || got > 211 {
		t.Errorf("achieved %v/s, want 210.5 (800 rows in 3.8 s)", got)
	}
	if figs[keyMet] != true || len(warnings) > 0 {
		t.Errorf("met %v, warnings %q: inserts at 210/s meet 95%% of 200/s", figs[keyMet], warnings)
	}
}

// A complete step still divides by its whole schedule when its last statement came before the
// schedule's end (the fence post), and still misses the gate when the inserts fell behind.
func TestInsertGateComplete(t *testing.T) {
	figs, _ := insertGate(200, 20)(gateResult(4000, 19.99, true))
	if got := figs[keyAchieved].(float64); got != 200 {
		t.Errorf("achieved %v/s, want 200 (4000 rows over the 20 s schedule)", got)
	}
	figs, warnings := insertGate(200, 20)(gateResult(3000, 20.5, true))
	if figs[keyMet] != false || len(warnings) != 1 {
		t.Errorf("met %v, warnings %q: 146/s misses 95%% of 200/s", figs[keyMet], warnings)
	}
}

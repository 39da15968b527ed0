package session

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// TestLiveWait: a wait (the settle) shows the seconds it has waited of the most it may wait,
// and what is left of that, in every format; not "0.0%" and "-" until its one operation ends.
func TestLiveWait(t *testing.T) {
	ops := []measure.OpType{{Name: "settle", Unit: "tables", Abbrev: "s"}}
	plan := &workload.StepPlan{Step: runner.Step{Ops: ops}, Main: 0, Progress: 0, Total: 2, Wait: 60 * time.Second}
	iv := measure.NewInterval(len(ops))
	for _, live := range []Live{LiveCompact, LiveWide} {
		var b bytes.Buffer
		l := newLive(&b, live, time.Second, "settle", plan, nil)
		for s := range 12 {
			iv.Start, iv.End = time.Unix(int64(s), 0), time.Unix(int64(s+1), 0)
			l.print(iv)
		}
		l.finish()
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		first, last := strings.Fields(lines[2]), strings.Fields(lines[len(lines)-1])
		if got := first[len(first)-2:]; got[0] != "1.0s/60s" || got[1] != "59s" {
			t.Errorf("%s: first line ends %q, want 1.0s/60s 59s:\n%s", live, got, b.String())
		}
		if got := last[len(last)-2:]; got[0] != "12s/60s" || got[1] != "48s" {
			t.Errorf("%s: last line ends %q, want 12s/60s 48s:\n%s", live, got, b.String())
		}
	}
}

package session

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestPrintStallCounters: the step's output names the counters that moved in its first
// stalls, a gauge without "/s", and points to the rest.
func TestPrintStallCounters(t *testing.T) {
	st := archive.StallCounters{FromSec: 3, ToSec: 5, Moved: []archive.MovedCounter{
		{Name: "bgwriter.checkpoints_req", Stall: 0.5, Median: 0}, {Name: "locks.waiting", Stall: 3, Median: 0, Gauge: true}}}
	var b bytes.Buffer
	printHostFigures(&b, &archive.HostSummary{StallCounters: []archive.StallCounters{st, st, st, st, st}}, false, true, 0)
	out := b.String()
	for _, want := range []string{"stall 3.0-5.0s, counters that moved most: bgwriter.checkpoints_req 0.5/s (median 0), locks.waiting 3 (median 0)",
		"... 2 more stalls"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "stall 3.0") != 3 {
		t.Errorf("want 3 stalls' lines:\n%s", out)
	}
	b.Reset()
	printHostFigures(&b, &archive.HostSummary{StallCounters: []archive.StallCounters{{FromSec: 1, ToSec: 2}}}, false, true, 0)
	if !strings.Contains(b.String(), "stall 1.0-2.0s: no counter moved by half its median second") {
		t.Errorf("a stall no counter explains:\n%s", b.String())
	}
}

package session

import (
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestHostLineOfAWait: a wait's host figures (the settle's) have no per-op half, whose
// figures would divide by a few long waits ("cpu 590000.0 us"); a step's line fits 100
// columns, breaking before its per-op half when the figures are long.
func TestHostLineOfAWait(t *testing.T) {
	big, small := 1015000.0, 0.0105
	h := &archive.HostSummary{CPUPS: 100, ClientCPUCores: 0.77, CPUUsPerOp: &big, DBMSCPUUsPerOp: &big,
		ClientCPUUsPerOp: 5432.1, ReadKBPerOp: &small, WriteKBPerWrite: &big}
	var b strings.Builder
	printHostFigures(&b, h, false, false, 0)
	if got := b.String(); strings.Contains(got, "per op") || !strings.Contains(got, "the step is a wait") {
		t.Errorf("a wait's host line: %q", got)
	}
	b.Reset()
	printHostFigures(&b, h, false, true, 0)
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if len(l) > lineWidth {
			t.Errorf("a line of %d columns: %q", len(l), l)
		}
	}
	if !strings.Contains(b.String(), "per op: cpu 1015000 us (dbms 1015000, client 5432)") {
		t.Errorf("per-op figures: %q", b.String())
	}
}

package report

import (
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/counters"
)

// TestWhyTableMarksSteady: the report's explanation table marks a figure per op whose rate a
// second held "=/s", as compare --why prints it, and a group's row within the repeats' noise "~".
func TestWhyTableMarksSteady(t *testing.T) {
	w := &counters.Why{Step: "qr100", Op: "query", BaseRate: 100, RunRate: 300, Repeats: [2]int{1, 1},
		Rows: []counters.WhyRow{
			{Name: "wal_bytes per op", Section: counters.SectionDBMS, Base: 300, Run: 100, Change: 1.1, Steady: true},
			{Name: "blks_read per op", Section: counters.SectionDBMS, Base: 5, Run: 1, Change: 1.6},
			{Name: "xact_commit per op", Section: counters.SectionDBMS, Base: 1, Run: 1.2, Change: 0.18, InNoise: true},
		}}
	tab := whyTable("b", "#000", "a", w)
	got := map[string]string{}
	for _, r := range tab.Rows {
		got[r.Name] = r.Ratio
	}
	if !strings.HasSuffix(got["wal_bytes per op"], " =/s") {
		t.Errorf("steady row's ratio %q lacks =/s", got["wal_bytes per op"])
	}
	if strings.Contains(got["blks_read per op"], "=/s") || strings.Contains(got["blks_read per op"], "~") {
		t.Errorf("moved row's ratio %q is marked", got["blks_read per op"])
	}
	if !strings.HasSuffix(got["xact_commit per op"], " ~") {
		t.Errorf("in-noise row's ratio %q lacks ~", got["xact_commit per op"])
	}
}

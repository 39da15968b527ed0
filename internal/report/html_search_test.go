package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// TestSearchSection: a search's run gets a section with one chart of its trials (achieved rate,
// p50, p99, p99.9 and the SLA's bound) and a note of every verdict; other runs get none.
func TestSearchSection(t *testing.T) {
	dir := t.TempDir()
	rec := archive.Search{Step: "qr100", SLAs: []string{"query:p99<2ms"}, Rate: 2000, FailRate: 4000, Reason: "bracketed within 5%",
		Trials: []archive.Trial{
			{Rate: 1000, Pass: true, Why: "pass", Achieved: 1000, P50Us: 50, P99Us: 900, P999Us: 1500, ServiceP99Us: 40, SLAs: []measure.SLAResult{{SLA: "query:p99<2ms", Met: true}}},
			{Rate: 4000, Pass: false, Why: "SLA query:p99<2ms missed", Achieved: 3900, P50Us: 80, P99Us: 5000, P999Us: 9000},
			{Rate: 2000, Pass: true, Why: "pass", Achieved: 2000, P50Us: 60, P99Us: 1500, P999Us: 2500},
		}}
	if err := archive.WriteJSON(filepath.Join(dir, archive.SearchFile), rec); err != nil {
		t.Fatal(err)
	}
	st, c, err := searchSection([]Run{{Path: dir}, {Path: t.TempDir()}}, []string{"s", "plain"})
	if err != nil || st == nil || c == nil {
		t.Fatalf("section %v, chart %v, %v", st, c, err)
	}
	if len(c.X) != 3 || c.X[0] != 1000 || c.X[2] != 4000 || len(c.Series) != 6 || c.Series[0].What != "sla" || c.Series[5].What != "service p99" {
		t.Errorf("x %v, series %+v", c.X, c.Series)
	}
	if got := *c.Y[1][1]; got != 2000 { // achieved at 2000/s, the middle of the sorted rates
		t.Errorf("achieved at 2000/s = %v", got)
	}
	if !strings.Contains(st.Note, "highest passing rate 2000/s") || !strings.Contains(st.Note, "2. 4000/s: SLA query:p99<2ms missed") {
		t.Errorf("note: %s", st.Note)
	}
	if st, _, _ := searchSection([]Run{{Path: t.TempDir()}}, []string{"plain"}); st != nil {
		t.Error("a run without search.json got a search section")
	}
	// A search of a closed loop's clients: counts on the axis and in the note, no service time.
	rec = archive.Search{Step: "readrandom", Vary: "clients", SLAs: []string{"get:p99<1ms"}, Rate: 4, Reason: "passed at --max-rate 4", Bounded: true,
		Trials: []archive.Trial{{Rate: 4, Pass: true, Why: "pass", Achieved: 9000, P99Us: 300}}}
	if err := archive.WriteJSON(filepath.Join(dir, archive.SearchFile), rec); err != nil {
		t.Fatal(err)
	}
	st, c, _ = searchSection([]Run{{Path: dir}}, []string{"c"})
	if c.XLabel != "clients of a closed loop" || len(c.Series) != 4 || !strings.Contains(st.Note, "highest passing client count 4 clients") || !strings.Contains(st.Note, "1. 4 clients: pass") {
		t.Errorf("clients: x %q, %d series, note %s", c.XLabel, len(c.Series), st.Note)
	}
}

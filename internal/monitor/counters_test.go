package monitor

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// fullSet is a DBMS with a few curated counters (dbms.csv's) and more in its full set: a
// per-table row and a gauge. Its third full sample hangs until the query times out.
type fullSet struct {
	calls atomic.Int64
}

func (f *fullSet) DBMSCounters(context.Context) (map[string]float64, error) {
	return map[string]float64{"commits": 1}, nil
}

func (f *fullSet) DBMSCounterSet(ctx context.Context) (map[string]float64, error) {
	n := f.calls.Add(1)
	if n == 3 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return map[string]float64{"commits": float64(10 * n), "dirty_pages": float64(n), "table.t1.seq_scan": 7}, nil
}

func (f *fullSet) DBMSGauges() []string { return []string{"dirty_*"} }

// TestCountersFile: the monitor writes every counter of the full set to counters.csv.gz, with
// a first sample at the step's start (t_sec 0) and one per boundary, the kinds the target
// declared, and unknown values where a sample timed out; dbms.csv keeps its curated columns,
// one row per boundary, from the same samples (one query a second, not two).
func TestCountersFile(t *testing.T) {
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, err := d.StartStep("s", []measure.OpType{{Name: "op"}}, start)
	if err != nil {
		t.Fatal(err)
	}
	target := &fullSet{}
	m := New(t.Context(), target)
	m.QueryTimeout = 50 * time.Millisecond
	st, err := m.Begin(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	st.Start(t.Context(), start)
	for i := 1; i <= 4; i++ {
		st.Tick(start.Add(time.Duration(i) * time.Second))
	}
	st.End(t.Context(), Totals{MainOps: 1})
	if err := w.Finish(archive.Step{Step: "s"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(d.Path, "s")
	s, err := archive.ReadCounters(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.TSec) != 5 || s.TSec[0] != 0 || s.TSec[4] != 4 {
		t.Fatalf("ticks %v, want 0..4", s.TSec)
	}
	if got := s.Values["commits"]; got[0] != 10 || got[1] != 20 || !math.IsNaN(got[2]) || got[3] != 40 {
		t.Errorf("commits %v: want 10, 20, unknown (timed out), 40, 50", got)
	}
	if s.Kinds["dirty_pages"] != archive.KindGauge || s.Kinds["table.t1.seq_scan"] != archive.KindCumulative {
		t.Errorf("kinds %v", s.Kinds)
	}
	if target.calls.Load() != 5 {
		t.Errorf("%d full samples for 5 ticks: dbms.csv must come from the same ones", target.calls.Load())
	}
	rows := readCSV(t, filepath.Join(dir, "dbms.csv"))
	if len(rows) != 5 || len(rows[0]) != 3 || rows[1][2] != "20" || rows[2][2] != "" {
		t.Errorf("dbms.csv %v: want the curated column, one row per boundary", rows)
	}
}

// jumpy's db.blks_read grows 100 a sample, 10,000 more at the 4th boundary (samples: Begin's,
// the start's, then one per boundary); its commits grow steadily.
type jumpy struct{ n atomic.Int64 }

func (j *jumpy) DBMSCounters(ctx context.Context) (map[string]float64, error) {
	return j.DBMSCounterSet(ctx)
}
func (j *jumpy) DBMSGauges() []string { return nil }
func (j *jumpy) DBMSCounterSet(context.Context) (map[string]float64, error) {
	n := j.n.Add(1)
	reads := float64(100 * n)
	if n >= 6 {
		reads += 10000
	}
	return map[string]float64{"db.blks_read": reads, "db.xact_commit": float64(50 * n)}, nil
}

// TestStallCounters: the summary names, for each stall the session hands over, the counters
// that moved most in it; none without stalls.
func TestStallCounters(t *testing.T) {
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, err := d.StartStep("s", []measure.OpType{{Name: "op"}}, start)
	if err != nil {
		t.Fatal(err)
	}
	m := New(t.Context(), &jumpy{})
	st, err := m.Begin(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	st.Start(t.Context(), start)
	for i := 1; i <= 8; i++ {
		st.Tick(start.Add(time.Duration(i) * time.Second))
	}
	sum := st.End(t.Context(), Totals{MainOps: 1, Stalls: &measure.Stalls{Count: 1, At: []float64{4}}})
	if len(sum.StallCounters) != 1 {
		t.Fatalf("stall counters %+v", sum.StallCounters)
	}
	sc := sum.StallCounters[0]
	// PostgreSQL's counters (db.*) are read a second past the stall, its publishing delay
	// (counters.Step.Late): 10,100 in 3-4 s and 100 in 4-5 s.
	if sc.FromSec != 3 || sc.ToSec != 4 || len(sc.Moved) == 0 || sc.Moved[0].Name != "db.blks_read" || sc.Moved[0].Stall != 5100 || sc.Moved[0].Median != 100 {
		t.Errorf("stall counters %+v: want db.blks_read 5100/s against 100/s in 3-4 s (read to 5 s)", sc)
	}
	for _, mv := range sc.Moved {
		if mv.Name == "db.xact_commit" {
			t.Errorf("a steady counter moved: %+v", mv)
		}
	}
	w.Finish(archive.Step{Step: "s"})
}

// TestCountersOff: NoCounters (--dbms-counters off) asks the DBMS for nothing and writes neither
// file.
func TestCountersOff(t *testing.T) {
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, _ := d.StartStep("s", []measure.OpType{{Name: "op"}}, start)
	target := &fullSet{}
	m := New(t.Context(), target)
	m.NoCounters = true
	st, err := m.Begin(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	st.Start(t.Context(), start)
	st.Tick(start.Add(time.Second))
	st.End(t.Context(), Totals{})
	w.Finish(archive.Step{Step: "s"})
	if target.calls.Load() != 0 {
		t.Errorf("%d samples with counters off", target.calls.Load())
	}
	for _, f := range []string{"dbms.csv", archive.CountersFile} {
		if _, err := os.Stat(filepath.Join(d.Path, "s", f)); err == nil {
			t.Errorf("%s written with counters off", f)
		}
	}
}

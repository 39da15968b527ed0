package archive

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

func countersStep(t *testing.T) (*StepWriter, string) {
	t.Helper()
	d, err := Create(filepath.Join(t.TempDir(), "run"), Run{Name: "run"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.StartStep("qr100", []measure.OpType{{Name: "query"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return w, filepath.Join(d.Path, "qr100")
}

func kindOf(n string) CounterKind {
	if n == "dirty" {
		return KindGauge
	}
	return KindCumulative
}

// TestCountersRoundTrip: values written only when they change come back one per tick; a
// failed sample and a counter missing from a sample read as unknown (NaN) at that tick and
// are not carried over it; kinds come back as declared; a new name gets NaN before it appeared.
func TestCountersRoundTrip(t *testing.T) {
	w, dir := countersStep(t)
	c, err := w.Counters()
	if err != nil {
		t.Fatal(err)
	}
	samples := []struct {
		vals   map[string]float64
		failed bool
	}{
		{map[string]float64{"reads": 10, "dirty": 5}, false},
		{map[string]float64{"reads": 10, "dirty": 7}, false},
		{nil, true},
		{map[string]float64{"reads": 30, "dirty": 7, "table.t1.scans": 1}, false},
		{map[string]float64{"reads": 30, "table.t1.scans": 1}, false}, // dirty not read
		{map[string]float64{"reads": 30, "dirty": 7, "table.t1.scans": 1}, false},
	}
	for i, s := range samples {
		if err := c.Sample(float64(i), int64(1000*i), s.vals, s.failed, kindOf); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(Step{Step: "qr100", Complete: true}); err != nil {
		t.Fatal(err)
	}
	s, err := ReadCounters(dir)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := map[string][]float64{
		"reads":          {10, 10, nan, 30, 30, 30},
		"dirty":          {5, 7, nan, 7, nan, 7},
		"table.t1.scans": {nan, nan, nan, 1, 1, 1},
	}
	if len(s.TSec) != 6 || s.UnixMs[5] != 5000 {
		t.Fatalf("ticks %v %v", s.TSec, s.UnixMs)
	}
	for n, w := range want {
		got := s.Values[n]
		if len(got) != len(w) {
			t.Fatalf("%s: %v, want %v", n, got, w)
		}
		for i := range w {
			if got[i] != w[i] && !(math.IsNaN(got[i]) && math.IsNaN(w[i])) {
				t.Errorf("%s[%d] = %v, want %v (all %v)", n, i, got[i], w[i], got)
			}
		}
	}
	if s.Kinds["dirty"] != KindGauge || s.Kinds["reads"] != KindCumulative {
		t.Errorf("kinds %v", s.Kinds)
	}
}

// TestCountersPartialAndOld: an interrupted step's .partial file reads up to where it was
// cut, and a run written before counters.csv.gz existed is read from its dbms.csv.
func TestCountersPartialAndOld(t *testing.T) {
	w, dir := countersStep(t)
	c, _ := w.Counters()
	for i := range 3000 {
		c.Sample(float64(i), 0, map[string]float64{"a": float64(i), "b": float64(i * 7)}, false, kindOf)
	}
	c.st.csv.Flush()
	c.st.w.Flush()
	c.st.gz.Flush()
	s, err := ReadCounters(dir)
	if err != nil || len(s.TSec) < 100 || s.Values["b"][99] != 693 {
		t.Fatalf("partial: %v, %d ticks", err, len(s.TSec))
	}
	old := t.TempDir()
	os.WriteFile(filepath.Join(old, "dbms.csv"), []byte("t_sec,unix_ms,db.xact_commit\n1.000,1,5\n2.000,2,\n"), 0o644)
	s, err = ReadCounters(old)
	if err != nil || len(s.TSec) != 2 || s.Values["db.xact_commit"][0] != 5 || !math.IsNaN(s.Values["db.xact_commit"][1]) {
		t.Fatalf("dbms.csv: %v %+v", err, s)
	}
}

// TestCountersSizeHour measures the file for an hour at 1 Hz with 400 counters, a third of
// which move every second (the rest now and then): the figure in docs/counters.md. It fails
// above 8 MB, a third of what dbms.csv would take with the same columns.
func TestCountersSizeHour(t *testing.T) {
	if testing.Short() {
		t.Skip("writes an hour of samples")
	}
	w, dir := countersStep(t)
	c, _ := w.Counters()
	rng := rand.New(rand.NewPCG(1, 2))
	vals := map[string]float64{}
	names := make([]string, 400)
	for i := range names {
		names[i] = fmt.Sprintf("table.bench_%03d.counter_%d", i/10, i%10)
		vals[names[i]] = float64(rng.IntN(1e6))
	}
	for tick := range 3600 {
		for i, n := range names {
			if i%3 == 0 || rng.IntN(20) == 0 {
				vals[n] += float64(rng.IntN(20000))
			}
		}
		c.Sample(float64(tick+1), time.Now().UnixMilli(), vals, false, kindOf)
	}
	if err := w.Finish(Step{Step: "qr100", Complete: true}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, CountersFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: 400 counters, 3600 s: %.2f MB", CountersFile, float64(fi.Size())/1e6)
	if fi.Size() > 8e6 {
		t.Errorf("%d bytes for an hour", fi.Size())
	}
}

// BenchmarkReadCountersHour reads an hour at 1 Hz of 400 counters, a third moving each second.
func BenchmarkReadCountersHour(b *testing.B) {
	d, _ := Create(filepath.Join(b.TempDir(), "run"), Run{Name: "r"})
	w, _ := d.StartStep("s", []measure.OpType{{Name: "op"}}, time.Now())
	c, _ := w.Counters()
	vals := map[string]float64{}
	for i := range 400 {
		vals[fmt.Sprintf("table.t%02d.c%d", i/10, i%10)] = 0
	}
	for tick := range 3600 {
		i := 0
		for n := range vals {
			if i%3 == tick%3 {
				vals[n] += float64(tick * i)
			}
			i++
		}
		c.Sample(float64(tick), 0, vals, false, kindOf)
	}
	w.Finish(Step{Step: "s"})
	b.ResetTimer()
	for range b.N {
		if _, err := ReadCounters(w.dir); err != nil {
			b.Fatal(err)
		}
	}
}

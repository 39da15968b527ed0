package counters

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// wandering is n seconds at rate with noise of standard deviation sigma (a share of the rate)
// that wanders: each second keeps half of the last one's (AR(1), φ = 0.5), as a DBMS's
// seconds do (a flush, a checkpoint, statistics published once a second).
func wandering(r *rand.Rand, n int, rate, sigma float64) []float64 {
	const phi = 0.5
	out := make([]float64, n)
	e := r.NormFloat64() * sigma
	for i := range out {
		e = phi*e + r.NormFloat64()*sigma*math.Sqrt(1-phi*phi)
		out[i] = rate * (1 + e)
	}
	return out
}

// TestExplainMeanNoiseLength: the noise of a step's mean tightens with its length, where the
// per-second noise does not. A 6% drop in 3% noise (a true 5% sits on compare's threshold,
// which half the pairs' means then miss) is significant in every one of 200 pairs of 1800 s
// steps, and in at most 70% of pairs of 10 s steps (measured: 56%; by the per-second rule
// alone, 6% > 3%, nearly all at either length). Without a change, the difference of 1800 s
// means leaves its 95% interval in at most 10% of pairs: the batch means absorb the seconds'
// correlation.
func TestExplainMeanNoiseLength(t *testing.T) {
	const pairs = 200
	count := func(n int, drop float64) (significant, outside int) {
		for seed := range uint64(pairs) {
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			bx, rx := wandering(r, n, 1000, 0.03), wandering(r, n, 1000*(1-drop), 0.03)
			w := ExplainRuns(synthStep(bx, nil), synthStep(rx, nil), nil)
			if w == nil || math.IsNaN(w.MeanNoise) {
				t.Fatalf("%d s: no noise of the mean: %+v", n, w)
			}
			if w.Significant {
				significant++
			}
			if testing.Verbose() && seed == 0 {
				t.Logf("%d s, drop %.0f%%: %s", n, 100*drop, w.Line())
			}
			if math.Abs(w.RunRate-w.BaseRate) > w.MeanNoise*w.BaseRate {
				outside++
			}
		}
		return significant, outside
	}
	if sig, _ := count(1800, 0.06); sig != pairs {
		t.Errorf("1800 s, 6%% drop in 3%% noise: significant in %d of %d pairs, want all", sig, pairs)
	}
	if sig, _ := count(10, 0.06); sig > pairs*7/10 {
		t.Errorf("10 s, 6%% drop in 3%% noise: significant in %d of %d pairs, want at most 70%%", sig, pairs)
	}
	sig10, _ := count(10, 0.06)
	t.Logf("10 s, 6%% drop: significant in %d of %d pairs", sig10, pairs)
	if _, out := count(1800, 0); out > pairs/10 {
		t.Errorf("1800 s, no change: outside the mean's 95%% interval in %d of %d pairs, want at most 10%%", out, pairs)
	}
	w := ExplainRuns(synthStep(steady(30, 1000), nil), synthStep(steady(30, 900), nil), nil)
	if !strings.Contains(w.Line(), "per-second noise ±1.0%, step mean ±") {
		t.Errorf("line shows no noise of the mean: %q", w.Line())
	}
	if w := ExplainRuns(synthStep(steady(8, 1000), nil), synthStep(steady(8, 900), nil), nil); !strings.Contains(w.Line(), "step mean's noise unknown: under 9 s") || !w.Significant {
		t.Errorf("8 s: %q", w.Line())
	}
}

// TestExplainSteady: in a q step the inserts' fixed rate over twice the queries halves their
// counter per op; its rate a second did not move, so it is Steady, ranked after a counter
// whose rate did, and never named, though its per-op change is the larger.
func TestExplainSteady(t *testing.T) {
	base := synthStep(steady(20, 1000), map[string]float64{"misses": 0.5, "reads": 1})
	run := synthStep(steady(20, 2000), map[string]float64{"misses": 0.6, "reads": 1})
	addFixed := func(s *Step, name string, perSec float64) {
		v := make([]float64, len(s.TSec))
		for i, ts := range s.TSec {
			v[i] = perSec * ts
		}
		s.Names, s.Kinds[name], s.Values[name] = append(s.Names, name), 0, v
	}
	addFixed(base, "ins", 100)
	addFixed(run, "ins", 100)
	w := ExplainRuns(base, run, nil)
	if w == nil || !w.Significant {
		t.Fatalf("%+v", w)
	}
	var names []string
	for _, r := range w.Rows[1:] {
		names = append(names, r.Name)
		if r.Steady != (r.Name == "ins per op") {
			t.Errorf("row %+v: steady %v", r, r.Steady)
		}
	}
	if strings.Join(names, ",") != "misses per op,ins per op" {
		t.Errorf("rows %v, want misses per op then ins per op", names)
	}
	if line := w.Line(); !strings.HasSuffix(line, "moved most: misses per op 1.2x (0.5 -> 0.6)") {
		t.Errorf("line %q", line)
	}
}

// TestExplainOtherCPU: the host's CPU per op grew while the DBMS's and dbperf's did not: the
// row other_cpu_us_per_op shows the difference, and the line names it before a DBMS counter
// that moved less.
func TestExplainOtherCPU(t *testing.T) {
	per := func(host, misses float64) map[string]float64 {
		return map[string]float64{"host.cpu_busy_sec": host * 1e-6, "host.dbms_cpu_sec": 60e-6, "host.client_cpu_sec": 20e-6, "misses": misses}
	}
	w := ExplainRuns(synthStep(steady(20, 1000), per(100, 1)), synthStep(steady(20, 500), per(200, 1.5)), Vitals())
	if w == nil || !w.Significant {
		t.Fatalf("%+v", w)
	}
	found := false
	for _, r := range w.Rows {
		if r.Name == otherCPU {
			found = true
			if math.Abs(r.Base-20) > 1e-6 || math.Abs(r.Run-120) > 1e-6 || r.Steady {
				t.Errorf("row %+v, want 20 -> 120, not steady", r)
			}
		}
	}
	if !found {
		t.Errorf("no %s row: %+v", otherCPU, w.Rows)
	}
	want := "moved most: other_cpu_us_per_op 6x (20 -> 120; the host's CPU outside the DBMS and dbperf), misses per op 1.5x (1 -> 1.5)"
	if line := w.Line(); !strings.HasSuffix(line, want) {
		t.Errorf("line %q\nwant it to end %q", line, want)
	}
}

// TestDefWarnings: a misspelt section and a misspelt counter are each one sentence; a call of
// two versions' counters, one of which exists, and a section of another target are not.
func TestDefWarnings(t *testing.T) {
	defs, err := Parse("mine.conf", strings.NewReader(`[postgress]
x = rate(db.blks_hit) / ops
[postgres]
y = rate(db.blks_hitt) / ops
z = delta(db.blks_hit checkpointer.num_requested)
[mysql]
m = rate(handler_write) / ops
`))
	if err != nil {
		t.Fatal(err)
	}
	s := synthStep(steady(5, 100), map[string]float64{"db.blks_hit": 3})
	s.Sections = []string{"*", "postgres", "postgresql"}
	got := DefWarnings(defs, []*Step{s})
	want := []string{
		"mine.conf: section [postgress] names no target kind",
		"mine.conf:4: y reads db.blks_hitt, which matches no counter in any step read",
	}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %q, want it to start %q", got[i], want[i])
		}
	}
}

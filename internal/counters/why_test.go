package counters

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// synthStep is a step of one-second intervals: the main op q at rates[i] in interval i, and
// per counter its increase per op in every interval (a running total).
func synthStep(rates []float64, perOp map[string]float64) *Step {
	s := &Step{Name: "s", MainOp: "q", Kinds: map[string]archive.CounterKind{}, Values: map[string][]float64{},
		Sections: []string{"*"}, matches: map[string][]string{}}
	s.TSec = []float64{0}
	ops := []float64{0}
	for i, r := range rates {
		s.TSec = append(s.TSec, float64(i+1))
		ops = append(ops, ops[i]+r)
	}
	s.Names, s.Kinds["op.q"], s.Values["op.q"] = []string{"op.q"}, archive.KindCumulative, ops
	for n, p := range perOp {
		v := make([]float64, len(ops))
		for i := range ops {
			v[i] = p * ops[i]
		}
		s.Names, s.Kinds[n], s.Values[n] = append(s.Names, n), archive.KindCumulative, v
	}
	return s
}

func steady(n int, rate float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = rate + float64(i%2)*rate/100 // 1% jitter
	}
	return out
}

// swinging is n seconds at rate, each a share swing above or below it at random (seeded).
func swinging(n int, rate, swing float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = rate * (1 + swing*float64(1-2*r.IntN(2)))
	}
	return out
}

// TestExplainRunsNoise: a 7% drop of a steady rate is explained; the same drop of a rate that
// swings ±25% at random from one second to the next is within the noise of its 20 s mean
// and is not, and a 3% drop is below compare's threshold however steady.
func TestExplainRunsNoise(t *testing.T) {
	base := synthStep(steady(20, 1000), map[string]float64{"c": 1})
	n := len(base.TSec) // a tail of 0.03 s with 1 op: a rate of 33/s that is no noise
	base.TSec = append(base.TSec, base.TSec[n-1]+0.03)
	for _, name := range base.Names {
		v := base.Values[name]
		base.Values[name] = append(v, v[n-1]+1) // one op, and c one per op
	}
	if w := ExplainRuns(base, synthStep(steady(20, 930), map[string]float64{"c": 2}), nil); w == nil || !w.Significant || !strings.Contains(w.Line(), "moved most: c per op 2x (1 -> 2)") {
		t.Errorf("a steady 7%% drop: %+v %q", w, w.Line())
	}
	swing := swinging(20, 930, 0.25, 1)
	if w := ExplainRuns(base, synthStep(swing, map[string]float64{"c": 2}), nil); w == nil || w.Significant || len(w.Rows) > 0 || !strings.HasSuffix(w.Line(), ": not explained") {
		t.Errorf("a 7%% drop within ±25%% per-second noise: %+v %q", w, w.Line())
	}
	if w := ExplainRuns(base, synthStep(steady(20, 970), map[string]float64{"c": 2}), nil); w == nil || w.Significant {
		t.Errorf("a 3%% drop: %+v", w)
	}
}

// TestExplainRanking: a counter from 0 ranks by how many counts it moved: 5 per op above a
// counter that tripled, one event in the step (as a counter per op and as a definition) as a
// doubling, below it; the host's rows come first in their fixed order whatever they did.
func TestExplainRanking(t *testing.T) {
	defs, err := Parse("t", strings.NewReader("events = delta(ev)\nread_per_op = rate(host.reads) / ops\ncpu_us_per_op = 1e6 * rate(host.cpu_busy_sec) / ops\n"))
	if err != nil {
		t.Fatal(err)
	}
	base := synthStep(steady(10, 1000), map[string]float64{"misses": 0, "y": 1, "host.reads": 1, "host.cpu_busy_sec": 1e-4, "ev": 0})
	run := synthStep(steady(10, 500), map[string]float64{"misses": 5, "y": 3, "host.reads": 1, "host.cpu_busy_sec": 2e-4, "ev": 0})
	run.Values["ev"][10] = 1 // one event in the last second
	w := ExplainRuns(base, run, defs)
	var names []string
	for _, r := range w.Rows {
		names = append(names, r.Name)
	}
	want := []string{"q/s", "cpu_us_per_op", "misses per op", "y per op", "ev per op", "events"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("rows %v, want %v", names, want)
	}
	if !strings.Contains(w.Line(), "moved most: misses per op from 0 (0 -> 5), y per op 3x (1 -> 3), ev per op from 0 (0 -> 0.000199)") {
		t.Errorf("line %q", w.Line())
	}
}

// TestExplainGroups: with repeats, a counter whose change stays inside the repeats' spread is
// marked and ranked after one that left it, however larger its ratio; the line names only
// the latter, and the group test's verdict decides whether the step is explained.
func TestExplainGroups(t *testing.T) {
	side := func(rate float64, wide, narrow []float64) []*Step {
		var out []*Step
		for i := range wide {
			out = append(out, synthStep(steady(10, rate+float64(i)), map[string]float64{"wide": wide[i], "narrow": narrow[i]}))
		}
		return out
	}
	base := side(1000, []float64{1, 5, 10}, []float64{2, 2.1, 1.9})
	run := side(800, []float64{8, 20, 9}, []float64{4, 4.2, 3.9})
	w := ExplainGroups(base, run, nil, true, "qps q = 0.01")
	if w == nil || !w.Significant || len(w.Rows) != 3 {
		t.Fatalf("%+v", w)
	}
	if r := w.Rows[1]; r.Name != "narrow per op" || r.InNoise {
		t.Errorf("first DBMS row %+v, want narrow beyond the spread", r)
	}
	if r := w.Rows[2]; r.Name != "wide per op" || !r.InNoise || r.Ratio() != "1.8x" {
		t.Errorf("second DBMS row %+v, want wide (1.8x) inside the spread", r)
	}
	line := w.Line()
	if !strings.Contains(line, "(0.8x, qps q = 0.01, 3 vs 3 repeats); per op, moved most beyond the repeats' spread: narrow per op 2x (2 -> 4)") || strings.Contains(line, "wide") {
		t.Errorf("line %q", line)
	}
	same := side(800, []float64{2, 5, 9}, []float64{1.9, 2.2, 2})
	if w := ExplainGroups(base, same, nil, true, "qps q = 0.01"); !strings.HasSuffix(w.Line(), "; no figure per op moved by 5% or more beyond the repeats' spread") {
		t.Errorf("nothing left the spread: %q", w.Line())
	}
	if w := ExplainGroups(base, run, nil, false, "qps q = 0.2"); w.Significant || len(w.Rows) > 0 {
		t.Errorf("not significant by the group test: %+v", w)
	}
}

// TestExplainRunsNoisePercent: a per-second noise above 100% reads as a plain percentage
// ("±184%", never "±1.8e+02%"), and a step whose main op arrives in bursts (Bursty: l.x's
// index builds) is judged by the threshold alone, its seconds' swings being no noise.
func TestExplainRunsNoisePercent(t *testing.T) {
	base := synthStep(steady(20, 1000), map[string]float64{"c": 1})
	swing := make([]float64, 25) // batches of 5 s: their means swing too
	for i := range swing {
		swing[i] = 900 * (1 + 0.95*float64(1-2*(i%2)))
	}
	w := ExplainRuns(base, synthStep(swing, map[string]float64{"c": 2}), nil)
	if w == nil || w.Significant || !strings.Contains(w.Line(), "per-second noise ±178%") {
		t.Errorf("a 7%% drop within ±184%% per-second noise: %+v %q", w, w.Line())
	}
	bursty := synthStep(swing, map[string]float64{"c": 2})
	bursty.Bursty = true
	w = ExplainRuns(base, bursty, nil)
	if w == nil || !w.Significant || !strings.Contains(w.Line(), "arrive in bursts") || !strings.Contains(w.Line(), "c per op 2x") {
		t.Errorf("a 7%% drop of a bursty op: %+v %q", w, w.Line())
	}
	if got := percent(1.84); got != "184%" {
		t.Errorf("percent(1.84) = %q, want 184%%", got)
	}
	if got := percent(0.004); got != "0.4%" {
		t.Errorf("percent(0.004) = %q, want 0.4%%", got)
	}
}

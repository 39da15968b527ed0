package counters

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Why one step differs from the base's (`dbperf compare --why`, docs/counters.md "How to read
// an explanation"): whether its main rate changed significantly, one line naming the figures
// per op that moved most, and a table top down: throughput; CPU per op; IO per op; context
// switches per op; then the DBMS's vital signs and counters per op ranked by how much they
// changed. It names counters, never a cause. The HTML report calls ExplainRuns and
// ExplainGroups too, so both say the same.

// WhyThreshold is the change of a run's main rate below which a step is not explained:
// compare's own mark threshold.
const WhyThreshold = 0.05

// WhyTop is how many of the DBMS's figures an explanation's table shows.
const WhyTop = 20

// The sections of an explanation's table, top down.
const (
	SectionThroughput = "throughput"
	SectionCPU        = "cpu"
	SectionIO         = "io"
	SectionCS         = "cs"
	SectionDBMS       = "dbms"
)

// hostWhy are the rows after throughput, in order, with their section (vitals.conf's [*]): the
// host's CPU per op, then the client's and the DBMS's, each whole and split into user and system.
var hostWhy = []struct{ name, section string }{
	{"cpu_us_per_op", SectionCPU}, {"cpu_user_us_per_op", SectionCPU}, {"cpu_sys_us_per_op", SectionCPU},
	{"client_cpu_us_per_op", SectionCPU}, {"client_user_us_per_op", SectionCPU}, {"client_sys_us_per_op", SectionCPU},
	{"dbms_cpu_us_per_op", SectionCPU}, {"dbms_user_us_per_op", SectionCPU}, {"dbms_sys_us_per_op", SectionCPU},
	{otherCPU, SectionCPU},
	{"reads_per_op", SectionIO}, {"read_kb_per_op", SectionIO}, {"write_kb_per_op", SectionIO}, {"writes_per_op", SectionIO},
	{"cs_per_op", SectionCS},
}

// otherCPU is the host's CPU per op less the DBMS's and dbperf's: what other processes and
// the kernel's own threads used (cpu_us_per_op - dbms_cpu_us_per_op - client_cpu_us_per_op).
const otherCPU = "other_cpu_us_per_op"

// leafHost are the host rows the line may name: the parts, not their sums (cpu_us_per_op is
// other + DBMS + client; user and system split those again).
var leafHost = map[string]bool{otherCPU: true, "client_cpu_us_per_op": true, "dbms_cpu_us_per_op": true,
	"reads_per_op": true, "read_kb_per_op": true, "write_kb_per_op": true, "writes_per_op": true, "cs_per_op": true}

// WhyRow is one row of an explanation: a figure of the base and of the run (of a group: the
// median over its repeats).
type WhyRow struct {
	Name    string  `json:"name"` // as printed: a counter's name with " per op" or " (mean)"
	Section string  `json:"section"`
	Base    float64 `json:"base"`
	Run     float64 `json:"run"`
	// Change is how much it moved: |log(run / base)|, each side counted from the figure's
	// resolution (what one more count of its counters adds), so that a figure from or to 0
	// ranks by how many counts it moved, not as an infinite change.
	Change float64 `json:"change"`
	// InNoise: run groups only: the repeats' ranges of base and run overlap, so the change
	// may be the repeats' noise; such rows rank after the others and are marked "~".
	InNoise bool `json:"in_noise,omitempty"`
	// Steady: a figure per op whose rate a second did not change (by WhyThreshold and beyond
	// its noise: the noise of its step mean for single runs, the repeats' spread for groups),
	// so per op it moved only as the main rate did (in a q step, the inserts' fixed rate over
	// more queries). Such rows rank after the others, are marked "=/s" and never named.
	Steady bool `json:"steady,omitempty"`
	Vital  bool `json:"vital,omitempty"` // a definition (a vital sign or the user's)
}

// Ratio prints run/base: "1.62x", "=" when both are 0, "from 0".
func (r WhyRow) Ratio() string {
	switch {
	case r.Base == 0 && r.Run == 0:
		return "="
	case r.Base == 0:
		return "from 0"
	}
	return fmt.Sprintf("%.3gx", r.Run/r.Base)
}

// Why is one step of a run (or run group) explained against the base's.
type Why struct {
	Step string `json:"step"`
	Op   string `json:"op"` // the base's main op type: what "per op" divides by in both
	// BaseRate and RunRate are the main op's rate a second (groups: the repeats' medians).
	BaseRate float64 `json:"base_rate"`
	RunRate  float64 `json:"run_rate"`
	Repeats  [2]int  `json:"repeats"` // steps read: base, run (1 and 1 for single runs)
	// Noise is the larger of the two runs' per-second noise of the main rate (mainNoise), as
	// a share of the base's rate; NaN for groups, or when a step has under 3 intervals.
	Noise float64 `json:"-"`
	// MeanNoise is the half-width of the 95% interval of the difference of the two steps'
	// mean rates (diffNoise: batch means), as a share of the base's rate; NaN when unknown
	// (groups, a step of under 9 s).
	MeanNoise float64 `json:"-"`
	// Significant: single runs, the rate changed by WhyThreshold or more and by more than
	// MeanNoise (when unknown: more than Noise); groups, the group test said so. Only a
	// significant step is explained.
	Significant bool `json:"significant"`
	// Test says how Significant was decided, for the line: "per-second noise ±3.1%, step mean
	// ±0.4%", "q = 0.002".
	Test string   `json:"test"`
	Rows []WhyRow `json:"rows,omitempty"` // top down; empty when not significant
}

// Ratio is the main rate's run/base.
func (w *Why) Ratio() float64 { return w.RunRate / w.BaseRate }

// Groups tells whether the explanation is of run groups.
func (w *Why) Groups() bool { return w.Repeats[0] > 1 || w.Repeats[1] > 1 }

// Moved are the rows the line names: the three figures that moved most by WhyThreshold or
// more, neither Steady nor (groups) within the repeats' spread: the DBMS's, and the host's
// parts (leafHost: other processes', the DBMS's and dbperf's CPU, IO, context switches), so a
// busy host is named when its figure moved most.
func (w *Why) Moved() []WhyRow {
	var out []WhyRow
	for _, r := range w.Rows {
		if (r.Section == SectionDBMS || leafHost[r.Name]) && !r.InNoise && !r.Steady && r.Change > math.Log(1+WhyThreshold) &&
			r.Base >= 0 && r.Run >= 0 { // below 0: other_cpu_us_per_op within the CPU figures' resolution (a step of 0.05 s)
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Change > out[j].Change })
	return out[:min(len(out), 3)]
}

// Line is the one-line explanation: the main rate of both, how its change was judged, and
// the figures per op that moved most, by name.
func (w *Why) Line() string {
	line := fmt.Sprintf("%s: %s/s %s -> %s (%.3gx, %s)", w.Step, w.Op, Num(w.BaseRate), Num(w.RunRate), w.Ratio(), w.Test)
	if !w.Significant {
		return line + ": not explained"
	}
	var moved []string
	for _, r := range w.Moved() {
		what := ""
		if r.Name == otherCPU {
			what = "; the host's CPU outside the DBMS and dbperf"
		}
		moved = append(moved, fmt.Sprintf("%s %s (%s -> %s%s)", r.Name, r.Ratio(), Num(r.Base), Num(r.Run), what))
	}
	steady := 0 // rows that moved per op only as the main rate did
	for _, r := range w.Rows {
		if r.Steady && r.Change > math.Log(1+WhyThreshold) {
			steady++
		}
	}
	switch {
	case len(moved) == 0 && steady > 0:
		return line + fmt.Sprintf("; no figure per op moved by %.0f%% or more but as the main rate did: %d moved per op with their rate a second steady (=/s)",
			100*WhyThreshold, steady)
	case len(moved) == 0 && w.Groups():
		return line + fmt.Sprintf("; no figure per op moved by %.0f%% or more beyond the repeats' spread", 100*WhyThreshold)
	case len(moved) == 0:
		return line + fmt.Sprintf("; no figure per op moved by %.0f%% or more", 100*WhyThreshold)
	case w.Groups():
		return line + "; per op, moved most beyond the repeats' spread: " + strings.Join(moved, ", ")
	}
	return line + "; per op, moved most: " + strings.Join(moved, ", ")
}

// ExplainRuns explains a step of a run against the base's: significant when its main rate
// (summary.json's, as compare's) changed by WhyThreshold or more and beyond the noise of the
// steps' means (diffNoise); a step too short for that is judged by the larger per-second
// noise. Nil when the base has no main op or either has no rate. It sets the run's MainOp to
// the base's.
func ExplainRuns(base, run *Step, defs []*Def) *Why {
	w := newWhy(base, []*Step{run})
	if w == nil {
		return nil
	}
	w.Repeats = [2]int{1, 1}
	w.BaseRate, w.RunRate = base.mainRate(), run.mainRate()
	if !(w.BaseRate > 0) || math.IsNaN(w.RunRate) {
		return nil
	}
	bx, rx := base.secondRates(base.OpsRate), run.secondRates(run.OpsRate)
	bn, rn := secondNoise(bx), secondNoise(rx)
	w.Noise = max(bn, rn) / w.BaseRate
	w.MeanNoise = diffNoise(bx, rx) / w.BaseRate
	d := math.Abs(w.RunRate - w.BaseRate)
	switch {
	case base.Bursty || run.Bursty:
		w.Noise = math.NaN()
		w.Test = "no per-second noise: the main op's units arrive in bursts (median latency 1 s or more)"
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold
	case math.IsNaN(w.Noise):
		w.Test = "per-second noise unknown: under 3 intervals"
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold
	case math.IsNaN(w.MeanNoise):
		w.Test = "per-second noise ±" + percent(w.Noise) + "; step mean's noise unknown: under 9 s"
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold && d > max(bn, rn)
	default:
		w.Test = "per-second noise ±" + percent(w.Noise) + ", step mean ±" + percent(w.MeanNoise)
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold && d > w.MeanNoise*w.BaseRate
	}
	if w.Significant {
		w.Rows = whyRows([]*Step{base}, []*Step{run}, defs)
	}
	return w
}

// ExplainGroups explains a step of a run group against the base group's: base and run are
// the step in each repeat. significant and test are the group test's verdict on the main
// rate (compare's Welch test adjusted by Benjamini-Hochberg: docs/repeats.md), e.g. true,
// "q = 0.002"; this package does not compute it, since it depends on every figure of the
// compare. Each figure's change is judged against the repeats' spread (WhyRow.InNoise).
func ExplainGroups(base, run []*Step, defs []*Def, significant bool, test string) *Why {
	if len(base) == 0 || len(run) == 0 {
		return nil
	}
	w := newWhy(base[0], append(base[1:], run...))
	if w == nil {
		return nil
	}
	w.Repeats = [2]int{len(base), len(run)}
	w.BaseRate, w.RunRate = medianOf(base, (*Step).mainRate), medianOf(run, (*Step).mainRate)
	if !(w.BaseRate > 0) || math.IsNaN(w.RunRate) {
		return nil
	}
	w.Noise, w.MeanNoise, w.Significant = math.NaN(), math.NaN(), significant
	w.Test = fmt.Sprintf("%s, %d vs %d repeats", test, len(base), len(run))
	if w.Significant {
		w.Rows = whyRows(base, run, defs)
	}
	return w
}

// percent is a fraction as a plain percentage: "±190%", "±12%", "±0.4%" (never 2e+02).
func percent(f float64) string {
	if p := 100 * f; p < 10 {
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(100*f, 'f', 0, 64) + "%"
}

// newWhy starts an explanation of the base's step, making "per op" the base's main op in
// every other step; nil when the base has none.
func newWhy(base *Step, others []*Step) *Why {
	if base.MainOp == "" {
		return nil
	}
	for _, s := range others {
		s.MainOp = base.MainOp
	}
	return &Why{Step: base.Name, Op: base.MainOp, Noise: math.NaN(), MeanNoise: math.NaN()}
}

// mainRate is the main op's rate over the step: summary.json's (compare's and the report's
// figure), else the counters' ticks'.
func (s *Step) mainRate() float64 {
	if r, ok := s.SummaryRates[s.MainOp]; ok && r > 0 {
		return r
	}
	return s.OpsRate(s.Whole())
}

func medianOf(steps []*Step, f func(*Step) float64) float64 {
	var v []float64
	for _, s := range steps {
		if x := f(s); !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	return median(v)
}

// Num prints a figure with 4 significant digits, plainly (no exponent from 1e-4 to 1e12).
func Num(v float64) string {
	if v == 0 || math.Abs(v) >= 1e4 && math.Abs(v) < 1e12 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

package counters

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
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
	{"reads_per_op", SectionIO}, {"read_kb_per_op", SectionIO}, {"write_kb_per_op", SectionIO}, {"writes_per_op", SectionIO},
	{"cs_per_op", SectionCS},
}

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
	Vital   bool `json:"vital,omitempty"` // a definition (a vital sign or the user's)
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
	// Significant: single runs, the rate changed by WhyThreshold or more and by more than
	// Noise; groups, the group test said so. Only a significant step is explained.
	Significant bool `json:"significant"`
	// Test says how Significant was decided, for the line: "per-second noise ±3.1%", "q = 0.002".
	Test string   `json:"test"`
	Rows []WhyRow `json:"rows,omitempty"` // top down; empty when not significant
}

// Ratio is the main rate's run/base.
func (w *Why) Ratio() float64 { return w.RunRate / w.BaseRate }

// Groups tells whether the explanation is of run groups.
func (w *Why) Groups() bool { return w.Repeats[0] > 1 || w.Repeats[1] > 1 }

// Moved are the rows the line names: the three DBMS figures that moved most by WhyThreshold
// or more (groups: beyond the repeats' spread); without any, the host's that did.
func (w *Why) Moved() []WhyRow {
	pick := func(section func(string) bool) []WhyRow {
		var out []WhyRow
		for _, r := range w.Rows {
			if section(r.Section) && !r.InNoise && r.Change > math.Log(1+WhyThreshold) {
				out = append(out, r)
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Change > out[j].Change })
		return out[:min(len(out), 3)]
	}
	if m := pick(func(s string) bool { return s == SectionDBMS }); len(m) > 0 {
		return m
	}
	return pick(func(s string) bool { return s != SectionDBMS && s != SectionThroughput })
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
		moved = append(moved, fmt.Sprintf("%s %s (%s -> %s)", r.Name, r.Ratio(), Num(r.Base), Num(r.Run)))
	}
	switch {
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
// changed by WhyThreshold or more and by more than either run's per-second noise. Nil when
// the base has no main op or either has no rate. It sets the run's MainOp to the base's.
func ExplainRuns(base, run *Step, defs []*Def) *Why {
	w := newWhy(base, []*Step{run})
	if w == nil {
		return nil
	}
	w.Repeats = [2]int{1, 1}
	w.BaseRate, w.RunRate = base.OpsRate(base.Whole()), run.OpsRate(run.Whole())
	if !(w.BaseRate > 0) || math.IsNaN(w.RunRate) {
		return nil
	}
	bn, rn := base.mainNoise(), run.mainNoise()
	w.Noise = max(bn, rn) / w.BaseRate
	d := math.Abs(w.RunRate - w.BaseRate)
	switch {
	case base.Bursty || run.Bursty:
		w.Noise = math.NaN()
		w.Test = "no per-second noise: the main op's units arrive in bursts (median latency 1 s or more)"
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold
	case math.IsNaN(w.Noise):
		w.Test = "per-second noise unknown: under 3 intervals"
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold
	default:
		w.Test = "per-second noise ±" + percent(w.Noise)
		w.Significant = math.Abs(w.Ratio()-1) >= WhyThreshold && d > max(bn, rn)
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
	w.BaseRate, w.RunRate = medianOf(base, func(s *Step) float64 { return s.OpsRate(s.Whole()) }),
		medianOf(run, func(s *Step) float64 { return s.OpsRate(s.Whole()) })
	if !(w.BaseRate > 0) || math.IsNaN(w.RunRate) {
		return nil
	}
	w.Noise, w.Significant = math.NaN(), significant
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
	return &Why{Step: base.Name, Op: base.MainOp, Noise: math.NaN()}
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

// mainNoise is the main rate's per-second noise: the median change from one interval to the
// next, over 0.954 (for normal noise of standard deviation σ, the median |difference| of two
// seconds is 0.954σ), so that neither a trend across the step nor a single stall inflates it.
// A short interval (the step's tail, under half a second) is left out: its few ops make a
// rate of no meaning. NaN with fewer than 3 intervals.
func (s *Step) mainNoise() float64 {
	var d []float64
	prev := math.NaN()
	for k := 1; k < len(s.TSec); k++ {
		r := s.OpsRate(Window{k - 1, k})
		if math.IsNaN(r) || s.Seconds(Window{k - 1, k}) < 0.5 {
			continue
		}
		if !math.IsNaN(prev) {
			d = append(d, math.Abs(r-prev))
		}
		prev = r
	}
	if len(d) < 2 {
		return math.NaN()
	}
	return median(d) / 0.954
}

// whyFig is a figure of one step: its value and resolution.
type whyFig struct {
	value, res   float64
	vital, gauge bool
}

// stepFigures are a step's definitions and DBMS counters per op (a gauge: its mean) over its
// whole window, by the name its row prints.
func stepFigures(s *Step, defs []*Def) map[string]whyFig {
	w := s.Whole()
	e := s.env(w, defs)
	out := map[string]whyFig{}
	perOpOf := map[string]string{} // counter -> a definition that is rate(counter) / ops
	for _, d := range s.Applicable(defs) {
		if b, ok := d.Expr.(binary); ok && b.op == '/' && b.r == ident("ops") {
			if c, ok := b.l.(call); ok && c.fn == "rate" && len(c.patterns) == 1 {
				perOpOf[c.patterns[0]] = d.Name
			}
		}
		if v := e.variable(d.Name); d.Name != "ops_per_sec" && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[d.Name] = whyFig{value: v, res: e.res(d.Expr, 0), vital: true}
		}
	}
	opsInc, _ := s.Increase("op."+s.MainOp, w)
	for _, f := range s.Counters(w, true) {
		if _, dup := out[perOpOf[f.Name]]; dup {
			continue // the vital sign is the same figure
		}
		if f.Kind == archive.KindGauge {
			out[f.Name+" (mean)"] = whyFig{value: f.Value, res: 1, gauge: true}
		} else if !math.IsNaN(f.PerOp) && opsInc > 0 {
			out[f.Name+" per op"] = whyFig{value: f.PerOp, res: 1 / opsInc}
		}
	}
	return out
}

// res is an expression's resolution over the env's window: how much its value moves for one
// more count of each counter it reads (a running total's one unit, a gauge's one unit), by
// the rules of error propagation, a denominator taken as exact (per op: one count over the
// step's ops). NaN where unknown.
func (e *env) res(x Expr, depth int) float64 {
	secs := e.s.Seconds(e.w)
	switch x := x.(type) {
	case num:
		return 0
	case ident:
		switch x {
		case "ops":
			return 1 / secs
		case "seconds":
			return 0
		}
		if d, ok := e.defs[string(x)]; ok && depth < 16 {
			return e.res(d.Expr, depth+1)
		}
		return math.NaN()
	case call:
		if x.fn == "rate" {
			return 1 / secs
		}
		return 1
	case unary:
		return e.res(x.x, depth)
	case binary:
		l, r := x.l.eval(e), x.r.eval(e)
		rl, rr := e.res(x.l, depth), e.res(x.r, depth)
		switch x.op {
		case '+', '-':
			return rl + rr
		case '*':
			return math.Abs(l)*rr + math.Abs(r)*rl
		}
		_ = rr // a denominator is taken as exact: the resolution is the value's near 0
		return rl / math.Abs(r)
	}
	return math.NaN()
}

// sideFig is a figure over one side's steps: the median value, the range, the resolution.
type sideFig struct {
	median, lo, hi, res float64
	vital, gauge        bool
}

// sideFigures gathers stepFigures over a side's steps (one per repeat).
func sideFigures(steps []*Step, defs []*Def) map[string]sideFig {
	vals := map[string][]float64{}
	out := map[string]sideFig{}
	for _, s := range steps {
		for n, f := range stepFigures(s, defs) {
			vals[n] = append(vals[n], f.value)
			sf, ok := out[n]
			if !ok {
				sf = sideFig{res: f.res, vital: f.vital, gauge: f.gauge}
			}
			sf.res = max(sf.res, f.res)
			out[n] = sf
		}
	}
	for n, v := range vals {
		sf := out[n]
		sf.median, sf.lo, sf.hi = median(v), minOf(v), maxOf(v)
		out[n] = sf
	}
	return out
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// change is |log(b/a)| with res added to both sides (a tiny share of the larger when res is
// not known): a figure from 0 ranks by how many of its counts it moved.
func change(a, b, res float64) float64 {
	if !(res > 0) || math.IsInf(res, 0) {
		res = 1e-6*math.Max(math.Abs(a), math.Abs(b)) + 1e-12
	}
	return math.Abs(math.Log((math.Abs(b) + res) / (math.Abs(a) + res)))
}

// whyRows are an explanation's rows, top down: the main rate, the host's figures in hostWhy's
// order, then the DBMS's figures known on both sides that moved, ranked: beyond the repeats'
// spread first, then by change, the first WhyTop.
func whyRows(base, run []*Step, defs []*Def) []WhyRow {
	groups := len(base) > 1 || len(run) > 1
	inNoise := func(b, r sideFig) bool { return groups && b.lo <= r.hi && r.lo <= b.hi }
	rates := func(steps []*Step) sideFig {
		var v []float64
		for _, s := range steps {
			v = append(v, s.OpsRate(s.Whole()))
		}
		return sideFig{median: median(v), lo: minOf(v), hi: maxOf(v)}
	}
	br, rr := rates(base), rates(run)
	rows := []WhyRow{{Name: base[0].MainOp + "/s", Section: SectionThroughput, Base: br.median, Run: rr.median,
		Change: change(br.median, rr.median, 0), InNoise: inNoise(br, rr)}}
	bf, rf := sideFigures(base, defs), sideFigures(run, defs)
	host := map[string]bool{}
	for _, h := range hostWhy {
		host[h.name] = true
		b, ok1 := bf[h.name]
		r, ok2 := rf[h.name]
		if ok1 && ok2 {
			rows = append(rows, WhyRow{Name: h.name, Section: h.section, Base: b.median, Run: r.median,
				Change: change(b.median, r.median, 0), InNoise: inNoise(b, r), Vital: true})
		}
	}
	var dbms []WhyRow
	for n, b := range bf {
		r, ok := rf[n]
		if !ok || host[n] || b.median == 0 && r.median == 0 {
			continue
		}
		c := change(b.median, r.median, max(b.res, r.res))
		if c > 0 {
			dbms = append(dbms, WhyRow{Name: n, Section: SectionDBMS, Base: b.median, Run: r.median, Change: c,
				InNoise: inNoise(b, r), Vital: b.vital})
		}
	}
	sort.Slice(dbms, func(i, j int) bool {
		a, b := dbms[i], dbms[j]
		if a.InNoise != b.InNoise {
			return !a.InNoise
		}
		if a.Change != b.Change {
			return a.Change > b.Change
		}
		return a.Name < b.Name
	})
	if len(dbms) > WhyTop {
		dbms = dbms[:WhyTop]
	}
	return append(rows, dbms...)
}

// Num prints a figure with 4 significant digits, plainly (no exponent from 1e-4 to 1e12).
func Num(v float64) string {
	if v == 0 || math.Abs(v) >= 1e4 && math.Abs(v) < 1e12 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

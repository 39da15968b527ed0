package counters

import (
	"math"
	"sort"

	"github.com/dbperf/dbperf/internal/archive"
)

// The rows of an explanation (why.go): each figure of both sides, how much it changed, and
// whether its rate a second changed at all (WhyRow.Steady).

// whyFig is a figure of one step: its value and resolution, and for a figure per op its
// numerator: the rate a second it divides by the main op's rate, over any window.
type whyFig struct {
	value, res   float64
	vital, gauge bool
	perSec       func(Window) float64 // nil: not a figure per op
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
			f := whyFig{value: v, res: e.res(d.Expr, 0), vital: true}
			if b, ok := d.Expr.(binary); ok && b.op == '/' && b.r == ident("ops") {
				f.perSec = func(w Window) float64 { return s.Eval(b.l, w, defs) }
			}
			out[d.Name] = f
		}
	}
	addOtherCPU(s, out)
	opsInc, _ := s.Increase("op."+s.MainOp, w)
	for _, f := range s.Counters(w, true) {
		if _, dup := out[perOpOf[f.Name]]; dup {
			continue // the vital sign is the same figure
		}
		if f.Kind == archive.KindGauge {
			out[f.Name+" (mean)"] = whyFig{value: f.Value, res: 1, gauge: true}
		} else if !math.IsNaN(f.PerOp) && opsInc > 0 {
			name := f.Name
			out[f.Name+" per op"] = whyFig{value: f.PerOp, res: 1 / opsInc, perSec: func(w Window) float64 { return s.Rate(name, w) }}
		}
	}
	return out
}

// addOtherCPU adds otherCPU: the host's CPU per op less dbperf's and the DBMS's (none known
// for an embedded engine, whose CPU is dbperf's, or a server on another host).
func addOtherCPU(s *Step, figs map[string]whyFig) {
	host, ok1 := figs["cpu_us_per_op"]
	client, ok2 := figs["client_cpu_us_per_op"]
	if !ok1 || !ok2 {
		return
	}
	dbms := figs["dbms_cpu_us_per_op"].value
	figs[otherCPU] = whyFig{value: host.value - client.value - dbms, vital: true, perSec: func(w Window) float64 {
		d := s.Rate("host.dbms_cpu_sec", w)
		if math.IsNaN(d) {
			d = 0
		}
		return 1e6 * (s.Rate("host.cpu_busy_sec", w) - s.Rate("host.client_cpu_sec", w) - d)
	}}
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

// sideFig is a figure over one side's steps: the median value, the range, the resolution;
// for a figure per op, its rate a second likewise, and the first step's per-second rates.
type sideFig struct {
	median, lo, hi, res float64
	vital, gauge        bool
	rate                *sideFig // nil: not a figure per op
	perSec              []func(Window) float64
	steps               []*Step
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
			if f.perSec != nil {
				sf.perSec, sf.steps = append(sf.perSec, f.perSec), append(sf.steps, s)
			}
			out[n] = sf
		}
	}
	for n, v := range vals {
		sf := out[n]
		sf.median, sf.lo, sf.hi = median(v), minOf(v), maxOf(v)
		if len(sf.perSec) == len(v) {
			var r []float64
			for i, f := range sf.perSec {
				r = append(r, f(sf.steps[i].Whole()))
			}
			sf.rate = &sideFig{median: median(r), lo: minOf(r), hi: maxOf(r)}
		}
		out[n] = sf
	}
	return out
}

// rateSteady tells a figure per op whose rate a second did not change: by less than
// WhyThreshold, or within its noise: for groups the repeats' ranges of the rate overlap, for
// single runs the difference of the steps' mean rates is within diffNoise (when the steps
// are long enough to know it).
func rateSteady(b, r sideFig, groups bool) bool {
	if b.rate == nil || r.rate == nil {
		return false
	}
	rb, rr := b.rate.median, r.rate.median
	switch {
	case math.IsNaN(rb) || math.IsNaN(rr):
		return false
	case rb == 0 && rr == 0:
		return true
	case rb == 0:
		return false
	case math.Abs(rr/rb-1) < WhyThreshold:
		return true
	case groups:
		return b.rate.lo <= r.rate.hi && r.rate.lo <= b.rate.hi
	}
	bs, rs := b.steps[0], r.steps[0]
	dn := diffNoise(bs.secondRates(b.perSec[0]), rs.secondRates(r.perSec[0]))
	return !math.IsNaN(dn) && math.Abs(rr-rb) <= dn
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
// order, then the DBMS's figures known on both sides that moved, ranked: those neither within
// the repeats' spread nor Steady first, then by change, the first WhyTop.
func whyRows(base, run []*Step, defs []*Def) []WhyRow {
	groups := len(base) > 1 || len(run) > 1
	inNoise := func(b, r sideFig) bool { return groups && b.lo <= r.hi && r.lo <= b.hi }
	rates := func(steps []*Step) sideFig {
		var v []float64
		for _, s := range steps {
			v = append(v, s.mainRate())
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
				Change: change(b.median, r.median, 0), InNoise: inNoise(b, r), Steady: rateSteady(b, r, groups), Vital: true})
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
				InNoise: inNoise(b, r), Steady: rateSteady(b, r, groups), Vital: b.vital})
		}
	}
	sort.Slice(dbms, func(i, j int) bool {
		a, b := dbms[i], dbms[j]
		if qa, qb := a.InNoise || a.Steady, b.InNoise || b.Steady; qa != qb {
			return !qa
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

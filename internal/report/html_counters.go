package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/measure"
)

// The report's vital-sign charts: per step, every vital sign of the step's DBMS
// (vitals.conf, docs/counters.md) that some run defines, one small chart each, a value per
// second for every run, on the step's time axis (the throughput and latency charts') with its
// stalls shaded as there. Any other counter is the picker's (html_picker.go).

// vitalCharts are nil when no run has counters for the step. A sign the base does not know
// is charted from the runs that do; the charts follow vitals.conf's order, which reads top
// down (reads, writes, then background work and waits).
// Signs at 0 in every second of every run are named in zero instead, not drawn as flat lines.
func vitalCharts(step string, si int, names []string, runs []Run, base int, steps []*counters.Step) (charts []*htmlChart, zero []string) {
	defs, all := stepVitals(base, steps)
	shade := stepShade(step, runs, steps)
	for k, d := range defs {
		ts := newTimeChart(fmt.Sprintf("s%d-vital-%d", si, k), step, "vital", d.Name)
		ts.c.Doc, ts.c.XLabel = d.Doc, "" // the step's other charts name the axis
		nonzero := false
		ts.c.Scales["v"] = htmlScale{Label: vitalUnit(d), Side: 3}
		for ri, s := range steps {
			if s == nil {
				continue
			}
			t, v, some, nz := vitalSeries(s, d, all)
			nonzero = nonzero || nz
			if some {
				ts.add(htmlSeries{Label: names[ri], What: d.Name, Run: ri, Scale: "v"}, t, v)
			}
		}
		switch {
		case len(ts.c.Series) == 0:
		case !nonzero:
			zero = append(zero, d.Name)
		default:
			ts.c.Shade = shade
			charts = append(charts, ts.finish())
		}
	}
	return charts, zero
}

// stepVitals are the DBMS's vital signs of the step's runs, the base's kind first (not the
// host's, which the host charts and the explanation show), and every definition for Eval.
func stepVitals(base int, steps []*counters.Step) ([]*counters.Def, []*counters.Def) {
	all := counters.Vitals()
	order := append([]int{base}, seqExcept(len(steps), base)...)
	var out []*counters.Def
	seen := map[string]bool{}
	for _, ri := range order {
		if steps[ri] == nil {
			continue
		}
		for _, d := range dbmsVitals(steps[ri], all) {
			if !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d)
			}
		}
	}
	return out, all
}

// vitalUnit is a sign's axis label: per op (per commit...), %, in the interval, a value.
func vitalUnit(d *counters.Def) string {
	switch {
	case strings.Contains(d.Name, "_per_"):
		return strings.ReplaceAll(d.Name[strings.Index(d.Name, "_per_")+1:], "_", " ")
	case strings.HasSuffix(d.Name, "_pct"):
		return "%"
	case strings.Contains(d.Source, "delta("):
		return "in the interval"
	case strings.Contains(d.Source, "value("):
		return "value (mean)"
	case strings.Contains(d.Source, "rate("):
		return "per second"
	}
	return "value"
}

// stepShade are the runs' stalls in the step as shaded windows of their counters' ticks.
func stepShade(step string, runs []Run, steps []*counters.Step) []htmlShade {
	var out []htmlShade
	for ri, s := range steps {
		if s != nil {
			out = append(out, stallShade(step, ri, runs[ri], s)...)
		}
	}
	return out
}

// counterSteps are the runs' counters of a step (nil for a run without them, or too short).
func counterSteps(runs []Run, step string) []*counters.Step {
	steps := make([]*counters.Step, len(runs))
	for ri, r := range runs {
		if s, err := counters.LoadStep(r.Path, r.Meta, step); err == nil && len(s.TSec) > 2 {
			steps[ri] = s
		}
	}
	return steps
}

// dbmsVitals are the shipped vital signs of the step's DBMS (not the host's, which the host
// charts show).
func dbmsVitals(s *counters.Step, defs []*counters.Def) []*counters.Def {
	var out []*counters.Def
	for _, d := range s.Applicable(defs) {
		if len(d.Sections) != 1 || d.Sections[0] != "*" {
			out = append(out, d)
		}
	}
	return out
}

// vitalPoints is about how many points a run's line of a vital sign has at most: a longer
// step's intervals are joined into windows of a whole number of them (an hour: 6 s), each
// evaluated exactly over its window, so that the page stays small; the picker keeps every
// second.
const vitalPoints = 600

// vitalSeries is a definition's value in each window of the step, at the window's end (nil
// where undefined, or where the window lasted under half a second, too few ops for a figure
// per op: a step's short last interval); some: any value, nonzero: any not 0.
func vitalSeries(s *counters.Step, d *counters.Def, defs []*counters.Def) (t, v []*float64, some, nonzero bool) {
	n := len(s.TSec) - 1
	bin := max(1, (n+vitalPoints-1)/vitalPoints)
	for from := 0; from < n; from += bin {
		w := counters.Window{From: from, To: min(from+bin, n)}
		t = append(t, &s.TSec[w.To])
		x := s.Eval(d.Expr, w, defs)
		if math.IsNaN(x) || math.IsInf(x, 0) || s.Seconds(w) < 0.5 {
			v = append(v, nil)
			continue
		}
		x = measure.Round(x, 6)
		v = append(v, &x)
		some, nonzero = true, nonzero || x != 0
	}
	return t, v, some, nonzero
}

// variation is how much a series varies: (max - min) / median of its defined values, 0 when
// it has fewer than three.
func variation(v []float64) float64 {
	var ok []float64
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			ok = append(ok, x)
		}
	}
	if len(ok) < 3 {
		return 0
	}
	sort.Float64s(ok)
	med := ok[len(ok)/2]
	if med <= 0 {
		med = math.Max(math.Abs(ok[len(ok)-1]), 1e-12)
	}
	return (ok[len(ok)-1] - ok[0]) / med
}

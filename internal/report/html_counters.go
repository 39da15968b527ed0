package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/dbperf/dbperf/internal/counters"
)

// The report's counters chart: per step, the DBMS's vital signs per op a second that varied
// most, for every run, beside the throughput chart, with the step's stalls shaded as there
// (docs/counters.md).

// countersChartSigns is how many vital signs the chart draws: the most varied in the base.
const countersChartSigns = 4

// countersChart is nil when no run has counters for the step.
func countersChart(step string, si int, names []string, runs []Run, base int, steps []*counters.Step) *htmlChart {
	if steps[base] == nil {
		return nil
	}
	defs := dbmsVitals(steps[base])
	series := map[string][][]float64{} // sign -> per run, per interval
	var spread []signSpread
	for _, d := range defs {
		per := make([][]float64, len(runs))
		for ri, s := range steps {
			if s != nil {
				per[ri] = perInterval(s, d)
			}
		}
		if v := variation(per[base]); v > 0 {
			series[d.Name] = per
			spread = append(spread, signSpread{d.Name, v})
		}
	}
	if len(spread) == 0 {
		return nil
	}
	sort.SliceStable(spread, func(i, j int) bool { return spread[i].v > spread[j].v })
	spread = spread[:min(len(spread), countersChartSigns)]
	ts := newTimeChart(fmt.Sprintf("s%d-counters", si), step, "counters", step+": the DBMS's vital signs that varied most, per second")
	ts.c.Scales["v"] = htmlScale{Label: "value (log)", Log: true, Side: 3}
	for k, sp := range spread {
		for ri, s := range steps {
			if s == nil {
				continue
			}
			t := make([]*float64, 0, len(s.TSec)-1)
			v := make([]*float64, 0, len(s.TSec)-1)
			for i, x := range series[sp.name][ri] {
				t = append(t, &s.TSec[i+1])
				if x > 0 && !math.IsInf(x, 0) { // a log scale: no zeros
					v = append(v, &x)
				} else {
					v = append(v, nil)
				}
			}
			ts.add(htmlSeries{Label: names[ri] + " " + sp.name, What: sp.name, Run: ri, Scale: "v", Dash: opDashes[k%len(opDashes)]}, t, v)
		}
	}
	for ri, r := range runs {
		if steps[ri] == nil {
			continue
		}
		for _, st := range r.Steps {
			if st.Step != step || st.Stalls == nil {
				continue
			}
			for _, w := range steps[ri].StallWindows(st.Stalls) {
				ts.c.Shade = append(ts.c.Shade, htmlShade{Run: ri, From: steps[ri].TSec[w.From], To: steps[ri].TSec[w.To]})
			}
		}
	}
	return ts.finish()
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

type signSpread struct {
	name string
	v    float64
}

// dbmsVitals are the shipped vital signs of the step's DBMS (not the host's, which the host
// charts show).
func dbmsVitals(s *counters.Step) []*counters.Def {
	var out []*counters.Def
	for _, d := range s.Applicable(counters.Vitals()) {
		if len(d.Sections) != 1 || d.Sections[0] != "*" {
			out = append(out, d)
		}
	}
	return out
}

// perInterval is a definition's value in each interval of the step (NaN where undefined).
func perInterval(s *counters.Step, d *counters.Def) []float64 {
	out := make([]float64, len(s.TSec)-1)
	for i := range out {
		out[i] = s.Eval(d.Expr, counters.Window{From: i, To: i + 1}, counters.Vitals())
	}
	return out
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

package report

import (
	"fmt"
	"math"

	"github.com/dbperf/dbperf/internal/archive"
)

// figure is one row kind of CompareTable: how to read it from a step, how to print it, and
// which direction is better.
type figure struct {
	name   string
	format string
	better archive.Direction
	gated  bool // not comparable when the run missed its step's gate
	value  func(s archive.Step) (float64, bool)
}

func hostFigure(get func(h *archive.HostSummary) *float64) func(archive.Step) (float64, bool) {
	return func(s archive.Step) (float64, bool) {
		if s.Host == nil {
			return 0, false
		}
		p := get(s.Host)
		if p == nil {
			return 0, false
		}
		return *p, true
	}
}

// hostFigures are the monitor's rows of CompareTable, after the workload's: costs per operation,
// memory, size and stalls, for all of which less is better.
var hostFigures = []figure{
	{"cpupq", "%.1f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.CPUPQ })},
	{"rkbpq", "%.3f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.RKBPQ })},
	{"wkbpi", "%.3f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.WKBPI })},
	{"dbms_cpupq", "%.1f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.DBMSCPUPQ })},
	{"client_cpupq", "%.1f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return &h.ClientCPUPQ })},
	{"rss", "%.3f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.RSS })},
	{"dbgb1", "%.3f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.DBGB1 })},
	{"stalls", "%.0f", archive.LowerIsBetter, false, func(s archive.Step) (float64, bool) {
		if s.Stalls == nil {
			return 0, false
		}
		return float64(s.Stalls.Count), true
	}},
}

// compareFigures are the rows of a step in CompareTable: the workloads' declared figures, then
// the monitor's.
func compareFigures(runs []Run) []figure {
	var figs []figure
	for _, c := range workloadColumns(runs, func(c archive.Column) bool { return c.Compare }) {
		figs = append(figs, figure{name: c.Name, format: "%.0f", better: c.Better, gated: c.Gated, value: c.Value})
	}
	return append(figs, hostFigures...)
}

// runName is a run's name, or its path when it has none.
func runName(r Run) string {
	if r.Meta.Name != "" {
		return r.Meta.Name
	}
	return r.Path
}

// findStep returns the run's step of that name.
func findStep(r Run, name string) (archive.Step, bool) {
	for _, s := range r.Steps {
		if s.Step == name {
			return s, true
		}
	}
	return archive.Step{}, false
}

// ratio formats v/base and marks it against LowRatio and HighRatio, better or worse by the
// figure's direction. A zero base gives "1.00" for a zero value and "inf" (high) otherwise.
func ratio(v, base float64, better archive.Direction) (string, Mark) {
	var r float64
	switch {
	case base == 0 && v == 0:
		r = 1
	case base == 0:
		r = math.Inf(1)
	default:
		r = v / base
	}
	m := MarkNone
	higher, lower := MarkBetter, MarkWorse
	if better == archive.LowerIsBetter {
		higher, lower = MarkWorse, MarkBetter
	}
	switch {
	case r < LowRatio:
		m = lower
	case r > HighRatio:
		m = higher
	}
	if math.IsInf(r, 1) {
		return "inf", m
	}
	return fmt.Sprintf("%.2f", r), m
}

// CompareTable compares runs with a base, figure by figure. It has one row per step of the base
// (in the base's order) and figure that the base or a run has: step, figure, the base's value,
// then per run its value and its ratio to the base's value. Ratios outside [LowRatio, HighRatio]
// are marked MarkBetter or MarkWorse by the figure's direction. A figure or step missing in a
// run shows "-" as value and ratio. A step with a gate (the Insert Benchmark's q steps: 95% of
// the insert target) starts with the gate's row (i_target): every run's achieved/target ("!"
// when missed), ratio cells empty; and when the base or a run missed it the ratios of its gated
// figures read NotComparable and are marked MarkNotComparable; a base that missed it has its
// own gated values marked too.
func CompareTable(base Run, runs []Run) Table {
	t := Table{Header: []string{"step", "figure", runName(base)}}
	for _, r := range runs {
		t.Header = append(t.Header, runName(r), "ratio")
	}
	figs := compareFigures(append([]Run{base}, runs...))
	missed := func(r Run, s archive.Step) bool { return r.Meta.Figures.Gate.Failed(s) }
	for _, bs := range base.Steps {
		steps := make([]archive.Step, len(runs))
		has := make([]bool, len(runs))
		for i, r := range runs {
			steps[i], has[i] = findStep(r, bs.Step)
		}
		if gate := gateOf(base, bs, runs, steps, has); gate != nil {
			row := []string{bs.Step, gate.Column, gateCell(gate, bs)}
			for i := range runs {
				cell := "-"
				if has[i] {
					cell = gateCell(gate, steps[i])
				}
				row = append(row, cell, "")
			}
			t.Rows = append(t.Rows, row)
			t.Marks = append(t.Marks, make([]Mark, len(row)))
		}
		for _, fig := range figs {
			bv, bok := fig.value(bs)
			present := bok
			for i := range runs {
				if has[i] {
					if _, ok := fig.value(steps[i]); ok {
						present = true
					}
				}
			}
			if !present {
				continue
			}
			baseNC := fig.gated && missed(base, bs)
			row := []string{bs.Step, fig.name, "-"}
			marks := []Mark{MarkNone, MarkNone, MarkNone}
			if bok {
				row[2] = fmt.Sprintf(fig.format, bv)
				if baseNC {
					marks[2] = MarkNotComparable
				}
			}
			for i := range runs {
				v, ok := 0.0, false
				if has[i] {
					v, ok = fig.value(steps[i])
				}
				if !ok {
					row = append(row, "-", "-")
					marks = append(marks, MarkNone, MarkNone)
					continue
				}
				row = append(row, fmt.Sprintf(fig.format, v))
				marks = append(marks, MarkNone)
				switch {
				case baseNC || (fig.gated && missed(runs[i], steps[i])):
					row = append(row, NotComparable)
					marks = append(marks, MarkNotComparable)
				case !bok:
					row = append(row, "-")
					marks = append(marks, MarkNone)
				default:
					s, m := ratio(v, bv, fig.better)
					row = append(row, s)
					marks = append(marks, m)
				}
			}
			t.Rows = append(t.Rows, row)
			t.Marks = append(t.Marks, marks)
		}
	}
	return t
}

// gateOf is the gate of a step when the base's step or a run's step of that name has it.
func gateOf(base Run, bs archive.Step, runs []Run, steps []archive.Step, has []bool) *archive.Gate {
	if g := base.Meta.Figures.Gate; g.Applies(bs) {
		return g
	}
	for i, s := range steps {
		if g := runs[i].Meta.Figures.Gate; has[i] && g.Applies(s) {
			return g
		}
	}
	return nil
}

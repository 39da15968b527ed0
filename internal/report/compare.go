package report

import (
	"fmt"
	"math"

	"github.com/dbperf/dbperf/internal/archive"
)

// figure is one row kind of CompareTable: how to read it from a step, and how to print it.
type figure struct {
	name   string
	format string
	query  bool // a query figure: not comparable when the run missed its q step's insert target
	value  func(s archive.Step) (float64, bool)
}

func opRate(op string) func(archive.Step) (float64, bool) {
	return func(s archive.Step) (float64, bool) {
		o, found := s.Ops[op]
		return o.PerSec, found
	}
}

func opLatency(op string, pick func(p50, p99, p999 float64) float64) func(archive.Step) (float64, bool) {
	return func(s archive.Step) (float64, bool) {
		o, found := s.Ops[op]
		if !found || o.Statements == 0 {
			return 0, false
		}
		return pick(o.P50Us, o.P99Us, o.P999Us), true
	}
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

// compareFigures are the rows of a step in CompareTable, in this order.
var compareFigures = []figure{
	{"ips", "%.0f", false, opRate("insert")},
	{"dps", "%.0f", false, opRate("delete")},
	{"qps", "%.0f", true, opRate("query")},
	{"xps", "%.0f", false, opRate("index")},
	{"i_p99", "%.0f", false, opLatency("insert", func(_, p99, _ float64) float64 { return p99 })},
	{"q_p50", "%.0f", true, opLatency("query", func(p50, _, _ float64) float64 { return p50 })},
	{"q_p99", "%.0f", true, opLatency("query", func(_, p99, _ float64) float64 { return p99 })},
	{"q_p99.9", "%.0f", true, opLatency("query", func(_, _, p999 float64) float64 { return p999 })},
	{"cpupq", "%.1f", false, hostFigure(func(h *archive.HostSummary) *float64 { return h.CPUPQ })},
	{"rkbpq", "%.3f", false, hostFigure(func(h *archive.HostSummary) *float64 { return h.RKBPQ })},
	{"wkbpi", "%.3f", false, hostFigure(func(h *archive.HostSummary) *float64 { return h.WKBPI })},
	{"dbms_cpupq", "%.1f", false, hostFigure(func(h *archive.HostSummary) *float64 { return h.DBMSCPUPQ })},
	{"client_cpupq", "%.1f", false, hostFigure(func(h *archive.HostSummary) *float64 { return &h.ClientCPUPQ })},
	{"rss", "%.3f", false, hostFigure(func(h *archive.HostSummary) *float64 { return h.RSS })},
	{"dbgb1", "%.3f", false, hostFigure(func(h *archive.HostSummary) *float64 { return h.DBGB1 })},
	{"stalls", "%.0f", false, func(s archive.Step) (float64, bool) {
		if s.Stalls == nil {
			return 0, false
		}
		return float64(s.Stalls.Count), true
	}},
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

// missedTarget tells whether a q step did not sustain 95% of its target insert rate.
func missedTarget(s archive.Step) bool {
	met, found := s.Workload["insert_target_met"].(bool)
	return found && !met
}

// isQStep tells whether the base's step or a run's step of that name has an insert target.
func isQStep(base archive.Step, steps []archive.Step, has []bool) bool {
	if _, q := base.Workload["insert_target_met"].(bool); q {
		return true
	}
	for i, s := range steps {
		if _, q := s.Workload["insert_target_met"].(bool); q && has[i] {
			return true
		}
	}
	return false
}

// ratio formats v/base and marks it against LowRatio and HighRatio. A zero base gives "1.00"
// for a zero value and "inf" (high) otherwise.
func ratio(v, base float64) (string, Mark) {
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
	switch {
	case r < LowRatio:
		m = MarkLow
	case r > HighRatio:
		m = MarkHigh
	}
	if math.IsInf(r, 1) {
		return "inf", m
	}
	return fmt.Sprintf("%.2f", r), m
}

// CompareTable compares runs with a base, figure by figure. It has one row per step of the base
// (in the base's order) and figure that the base or a run has: step, figure, the base's value,
// then per run its value and its ratio to the base's value. Ratios below LowRatio are marked
// MarkLow, above HighRatio MarkHigh. A figure or step missing in a run shows "-" as value and
// ratio. A q step (one whose workload has insert_target_met) starts with a row i_target: every
// run's achieved/target insert rate ("!" when below 95%), ratio cells empty; and when the base or a run missed
// its target the ratios of its query figures (qps, q_*) read NotComparable and are marked
// MarkNotComparable; a base that missed it has its own query values marked too.
func CompareTable(base Run, runs []Run) Table {
	t := Table{Header: []string{"step", "figure", runName(base)}}
	for _, r := range runs {
		t.Header = append(t.Header, runName(r), "ratio")
	}
	for _, bs := range base.Steps {
		steps := make([]archive.Step, len(runs))
		has := make([]bool, len(runs))
		for i, r := range runs {
			steps[i], has[i] = findStep(r, bs.Step)
		}
		if isQStep(bs, steps, has) {
			row := []string{bs.Step, "i_target", insertTarget(bs)}
			for i := range runs {
				target := "-"
				if has[i] {
					target = insertTarget(steps[i])
				}
				row = append(row, target, "")
			}
			t.Rows = append(t.Rows, row)
			t.Marks = append(t.Marks, make([]Mark, len(row)))
		}
		for _, fig := range compareFigures {
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
			baseNC := fig.query && missedTarget(bs)
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
				case baseNC || (fig.query && missedTarget(steps[i])):
					row = append(row, NotComparable)
					marks = append(marks, MarkNotComparable)
				case !bok:
					row = append(row, "-")
					marks = append(marks, MarkNone)
				default:
					s, m := ratio(v, bv)
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

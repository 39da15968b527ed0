package report

import (
	"fmt"
	"io"
	"math"
	"strings"

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

// figureOps are the op types the runs' per-op figures read, by figure name.
func figureOps(runs []Run) map[string]string {
	ops := map[string]string{}
	for _, c := range workloadColumns(runs, func(c archive.Column) bool { return c.Compare && c.Key == "" }) {
		ops[c.Name] = c.Op
	}
	return ops
}

// recorded: op is "" (the figure reads none) or s recorded at least one op of that type. A
// step may list every op type of its workload, so a rate of 0 can be an op it never does.
func recorded(s archive.Step, op string) bool {
	return op == "" || s.Ops[op].Count > 0 || s.Ops[op].Statements > 0
}

func hostFigure(get func(h *archive.HostSummary) *float64) func(archive.Step) (float64, bool) {
	return func(s archive.Step) (float64, bool) {
		h, _ := stepHost(s) // a merged step's from its shards' (hosts.go)
		if h == nil {
			return 0, false
		}
		p := get(h)
		if p == nil {
			return 0, false
		}
		return *p, true
	}
}

// hostFigures are the monitor's rows of CompareTable, after the workload's: costs per operation,
// memory, size and stalls, for all of which less is better.
var hostFigures = []figure{
	{"cpupq", "%.1f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.CPUUsPerOp })},
	{"rkbpq", "%.3f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.ReadKBPerOp })},
	{"wkbpi", "%.3f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.WriteKBPerWrite })},
	{"dbms_cpupq", "%.1f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return h.DBMSCPUUsPerOp })},
	{"client_cpupq", "%.1f", archive.LowerIsBetter, false, hostFigure(func(h *archive.HostSummary) *float64 { return &h.ClientCPUUsPerOp })},
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
		format := c.Format
		if format == "" {
			format = "%.0f"
		}
		figs = append(figs, figure{name: c.Name, format: format, better: c.Better, gated: c.Gated, value: c.Value})
	}
	figs = append(figs, slaFigures(runs)...)
	if hasOpenLoop(runs) {
		figs = append(figs, openLoopFigures...)
	}
	return append(figs, hostFigures...)
}

// openLoopFigures are a step's open-loop arrivals that never ran: dropped (the backlog was
// full) and not started (still waiting at the end), for both of which less is better.
var openLoopFigures = []figure{
	{"dropped", "%.0f", archive.LowerIsBetter, false, func(s archive.Step) (float64, bool) {
		if s.OpenLoop == nil {
			return 0, false
		}
		return float64(s.OpenLoop.Dropped), true
	}},
	{"not_started", "%.0f", archive.LowerIsBetter, false, func(s archive.Step) (float64, bool) {
		if s.OpenLoop == nil {
			return 0, false
		}
		return float64(s.OpenLoop.NotStarted), true
	}},
}

// slaFigures are the goodput of every SLA the runs were judged against (--sla), one row each:
// operations a second within the bound, for which more is better.
func slaFigures(runs []Run) []figure {
	var figs []figure
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Steps {
			for _, res := range s.SLAs {
				if seen[res.SLA] {
					continue
				}
				seen[res.SLA] = true
				sla := res.SLA
				figs = append(figs, figure{name: "goodput " + sla, format: "%.0f", better: archive.HigherIsBetter,
					value: func(s archive.Step) (float64, bool) {
						for _, r := range s.SLAs {
							if r.SLA == sla {
								return r.GoodputPerSec, true
							}
						}
						return 0, false
					}})
			}
		}
	}
	return figs
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

// CompareRow is one row of a comparison: a figure of a step, or the step's gate.
type CompareRow struct {
	Step   string            `json:"step"`
	Figure string            `json:"figure"`
	Better archive.Direction `json:"better,omitempty"` // empty on a gate row
	// Gate is set on a gate row: its cells carry achieved/target instead of values and ratios.
	Gate bool          `json:"gate,omitempty"`
	Base CompareCell   `json:"base"`
	Runs []CompareCell `json:"runs"`
}

// CompareCell is a run's figure in a CompareRow.
type CompareCell struct {
	Run   string   `json:"run"`
	Value *float64 `json:"value"` // null: the run lacks the figure or the step
	// Ratio is value/base; null when there is none to show (a missing figure, a base of 0
	// while the value is not: RatioText "inf", or not comparable: "n/c"). The base has none.
	Ratio     *float64 `json:"ratio,omitempty"`
	RatioText string   `json:"ratio_text,omitempty"` // the ratio as the tables print it
	// Mark is "better" or "worse" for a ratio outside [LowRatio, HighRatio] by the figure's
	// direction, "not_comparable" for a figure of a step whose gate failed.
	Mark string `json:"mark,omitempty"`
	// Achieved, Target and Met are a gate row's: the step's gate figures.
	Achieved *float64 `json:"achieved,omitempty"`
	Target   *float64 `json:"target,omitempty"`
	Met      *bool    `json:"met,omitempty"`

	text      string // the value as the tables print it
	valueMark Mark
	ratioMark Mark
}

// markNames are the JSON names of marks.
var markNames = map[Mark]string{MarkBetter: "better", MarkWorse: "worse", MarkNotComparable: "not_comparable"}

// gateCompareCell is a run's cell of a gate row.
func gateCompareCell(run string, g *archive.Gate, s archive.Step, has bool) CompareCell {
	c := CompareCell{Run: run, text: "-"}
	if !has || g == nil {
		return c
	}
	c.text = gateCell(g, s)
	if g.Applies(s) {
		a, _ := s.Workload[g.Achieved].(float64)
		t, _ := s.Workload[g.Target].(float64)
		met := !g.Failed(s)
		c.Achieved, c.Target, c.Met = &a, &t, &met
	}
	return c
}

// CompareRows compares runs with a base, figure by figure: one row per step of the base (in
// the base's order) and figure that the base or a run has. A step with a gate (the Insert
// Benchmark's q steps: 95% of the insert target) starts with the gate's row (i_target). When
// the base or a run missed the gate, the ratios of the gated figures are not comparable; a
// base that missed it has its own gated values marked too.
func CompareRows(base Run, runs []Run) []CompareRow {
	var rows []CompareRow
	figs := compareFigures(append([]Run{base}, runs...))
	ops := figureOps(append([]Run{base}, runs...))
	missed := func(r Run, s archive.Step) bool { return r.Meta.Figures.Gate.Failed(s) }
	for _, bs := range base.Steps {
		steps := make([]archive.Step, len(runs))
		has := make([]bool, len(runs))
		for i, r := range runs {
			steps[i], has[i] = findStep(r, bs.Step)
		}
		if gate := gateOf(base, bs, runs, steps, has); gate != nil {
			row := CompareRow{Step: bs.Step, Figure: gate.Column, Gate: true,
				Base: gateCompareCell(runName(base), base.Meta.Figures.Gate, bs, true)}
			for i, r := range runs {
				row.Runs = append(row.Runs, gateCompareCell(runName(r), r.Meta.Figures.Gate, steps[i], has[i]))
			}
			rows = append(rows, row)
		}
		for _, fig := range figs {
			bv, bok := fig.value(bs)
			present := bok && recorded(bs, ops[fig.name]) // a row for a figure some run has, of an op some run did
			for i := range runs {
				if has[i] {
					if _, ok := fig.value(steps[i]); ok && recorded(steps[i], ops[fig.name]) {
						present = true
					}
				}
			}
			if !present {
				continue
			}
			baseNC := fig.gated && missed(base, bs)
			row := CompareRow{Step: bs.Step, Figure: fig.name, Better: fig.better, Base: CompareCell{Run: runName(base), text: "-"}}
			if bok {
				row.Base.Value, row.Base.text = &bv, fmt.Sprintf(fig.format, bv)
				if baseNC {
					row.Base.valueMark, row.Base.Mark = MarkNotComparable, markNames[MarkNotComparable]
				}
			}
			for i, r := range runs {
				c := CompareCell{Run: runName(r), text: "-", RatioText: "-"}
				v, ok := 0.0, false
				if has[i] {
					v, ok = fig.value(steps[i])
				}
				if ok {
					c.Value, c.text = &v, fmt.Sprintf(fig.format, v)
					switch {
					case baseNC || (fig.gated && missed(r, steps[i])):
						c.RatioText, c.ratioMark = NotComparable, MarkNotComparable
					case bok:
						c.RatioText, c.ratioMark = ratio(v, bv, fig.better)
						if c.RatioText != "inf" {
							q := 1.0
							if bv != 0 {
								q = v / bv
							}
							c.Ratio = &q
						}
					}
					c.Mark = markNames[c.ratioMark]
				}
				row.Runs = append(row.Runs, c)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// CompareTable is CompareRows as a table: step, figure, the base's value, then per run its
// value and its ratio to the base's value. Ratios outside [LowRatio, HighRatio] are marked
// MarkBetter or MarkWorse by the figure's direction. A figure or step missing in a run shows
// "-" as value and ratio. A gate row has every run's achieved/target ("!" when missed) and
// empty ratio cells; ratios of gated figures that are not comparable read NotComparable and
// are marked MarkNotComparable, as are a base's own gated values when it missed the gate.
func CompareTable(base Run, runs []Run) Table {
	t := Table{Header: []string{"step", "figure", runName(base)}}
	for _, r := range runs {
		t.Header = append(t.Header, runName(r), "ratio")
	}
	for _, cr := range CompareRows(base, runs) {
		row := []string{cr.Step, cr.Figure, cr.Base.text}
		marks := []Mark{MarkNone, MarkNone, cr.Base.valueMark}
		for _, c := range cr.Runs {
			row = append(row, c.text, c.RatioText)
			marks = append(marks, MarkNone, c.ratioMark)
		}
		t.Rows = append(t.Rows, row)
		t.Marks = append(t.Marks, marks)
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

// WriteCompare writes the comparison of runs with a base in a format. Runs not made like the
// base (NotLikeForLike) are named first, one line each: before the table in text and markdown,
// to warn (stderr) for tsv, whose output is data only, and inside the JSON.
func WriteCompare(w, warn io.Writer, base Run, runs []Run, format Format) error {
	if format == FormatJSON {
		return WriteCompareJSON(w, base, runs)
	}
	var lines []string
	for _, r := range runs {
		if l := NotLikeForLike(base, r); l != "" {
			lines = append(lines, l)
		}
	}
	to := w
	if format == FormatTSV {
		to = warn
	}
	for _, l := range lines {
		if format == FormatMarkdown {
			l = "**" + strings.Replace(l, ":", ":**", 1) + "  "
		} else if format == FormatText {
			l = wrap(l, TextWidth, "  ")
		}
		if _, err := fmt.Fprintln(to, l); err != nil {
			return err
		}
	}
	if len(lines) > 0 && format != FormatTSV {
		fmt.Fprintln(w)
	}
	return WriteTable(w, CompareTable(base, runs), format)
}

// Package report turns run directories into tables. It only reads archives; it never runs
// anything, and it knows no workload: the op types and figures of each run come from what its
// workload declared in run.json (archive.Figures).
package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dbperf/dbperf/internal/archive"
)

// Run is a loaded run directory.
type Run struct {
	Path  string
	Meta  archive.Run
	Steps []archive.Step
}

// Load reads run directories.
func Load(paths []string) ([]Run, error) {
	var runs []Run
	for _, p := range paths {
		meta, steps, err := archive.Read(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, Run{Path: p, Meta: meta, Steps: steps})
	}
	return runs, nil
}

// workloadColumns are the workload figures of the runs, in the first run's declared order, then
// any other run's (runs of different workloads side by side), by name; keep selects summary or
// compare columns.
func workloadColumns(runs []Run, keep func(archive.Column) bool) []archive.Column {
	var cols []archive.Column
	seen := map[string]bool{}
	for _, r := range runs {
		for _, c := range r.Meta.Figures.Columns {
			if keep(c) && !seen[c.Name] {
				seen[c.Name] = true
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// headlineColumns are the summary columns the runs' workloads mark as headline. Runs archived
// before columns carried the mark have none: their rates and 99th percentiles stand in.
func headlineColumns(runs []Run) []archive.Column {
	cols := workloadColumns(runs, func(c archive.Column) bool { return c.Summary && c.Headline })
	if len(cols) > 0 {
		return cols
	}
	return workloadColumns(runs, func(c archive.Column) bool {
		return c.Summary && (c.Stat == archive.StatPerSec || c.Stat == archive.StatP99)
	})
}

// gates are the gates of the runs (the Insert Benchmark's i_target), one per column name.
func gates(runs []Run) []*archive.Gate {
	var gs []*archive.Gate
	seen := map[string]bool{}
	for _, r := range runs {
		if g := r.Meta.Figures.Gate; g != nil && !seen[g.Column] {
			seen[g.Column] = true
			gs = append(gs, g)
		}
	}
	return gs
}

// SummaryColumn is a column of a summary table: its name, what it means, and how a step's cell
// is printed.
type SummaryColumn struct {
	Name string
	Help string
	// Better is the direction in which the figure is better; empty for a column that has none.
	Better archive.Direction
	// Compact is set for the columns of the default summary; the others show with --wide.
	Compact bool
	cell    func(r Run, s archive.Step) string
	title   func(r Run, s archive.Step) string // the report's tooltip of a cell, if any
}

// SummaryColumns are the columns of the wide summary, in order: run, step, ok, secs, the
// workloads' summary figures (rates per second, latency percentiles in µs), errors, client CPU
// per op, the gate columns (achieved/target, "!" when missed), the number of stalls, host
// figures per op, then provenance (target kind, DBMS version, start date, dbperf commit).
// Compact marks the default summary's: the headline figures, errors, gates, stalls, and the
// host figures of compactHost.
func SummaryColumns(runs []Run) []SummaryColumn {
	headline := map[string]bool{}
	for _, c := range headlineColumns(runs) {
		headline[c.Name] = true
	}
	cols := append([]SummaryColumn(nil), stepColumns...)
	for _, c := range workloadColumns(runs, func(c archive.Column) bool { return c.Summary }) {
		cols = append(cols, SummaryColumn{Name: c.Name, Help: columnHelp(c), Better: c.Better, Compact: headline[c.Name],
			cell: func(_ Run, s archive.Step) string {
				if v, found := c.Value(s); found && lowerBound(c, s) {
					return ">=" + c.Print(v)
				} else if found {
					return c.Print(v)
				}
				return "-"
			}})
	}
	cols = append(cols, errorColumns...)
	for _, g := range gates(runs) {
		cols = append(cols, SummaryColumn{Name: g.Column, Help: gateHelp(g, runs), Compact: true,
			cell: func(r Run, s archive.Step) string {
				if gate := r.Meta.Figures.Gate; gate != nil && gate.Column == g.Column {
					return gateCell(gate, s)
				}
				return "-"
			}})
	}
	if hasSLAs(runs) {
		cols = append(cols, slaColumns...)
	}
	if hasOpenLoop(runs) {
		cols = append(cols, openLoopColumns...)
	}
	cols = append(cols, stallColumn)
	cols = append(cols, hostSummaryColumns...)
	return append(cols, provenanceColumns...)
}

// hasSLAs tells whether any step of the runs was judged against an SLA (--sla).
func hasSLAs(runs []Run) bool {
	for _, r := range runs {
		for _, s := range r.Steps {
			if len(s.SLAs) > 0 {
				return true
			}
		}
	}
	return false
}

// slaColumns show a step's SLA verdicts and the goodput of its first SLA, when the runs had any.
var slaColumns = []SummaryColumn{
	{Name: "sla", Help: `each --sla of the step's op types: "met" or "MISSED" over the whole step; "-": none applied`, Compact: true,
		cell: func(_ Run, s archive.Step) string {
			if len(s.SLAs) == 0 {
				return "-"
			}
			var v []string
			for _, r := range s.SLAs {
				if r.Met {
					v = append(v, "met")
				} else {
					v = append(v, "MISSED")
				}
			}
			return strings.Join(v, ",")
		}},
	{Name: "goodput", Help: "operations a second that completed within the step's first SLA's bound", Better: archive.HigherIsBetter, Compact: true,
		cell: func(_ Run, s archive.Step) string {
			if len(s.SLAs) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f", s.SLAs[0].GoodputPerSec)
		}},
}

// SummaryTable has one row per step per run, in the runs' order, and every column of
// SummaryColumns (`dbperf summary --wide`). It has no marks.
func SummaryTable(runs []Run) Table { return summaryTable(runs, false) }

// CompactSummaryTable is SummaryTable with only the Compact columns: the default of
// `dbperf summary`, narrow enough for a terminal.
func CompactSummaryTable(runs []Run) Table { return summaryTable(runs, true) }

func summaryTable(runs []Run, compact bool) Table {
	var cols []SummaryColumn
	for _, c := range SummaryColumns(runs) {
		if c.Compact || !compact {
			cols = append(cols, c)
		}
	}
	return tableOf(runs, cols)
}

// tableOf is the summary table of the runs' steps in the given columns.
func tableOf(runs []Run, cols []SummaryColumn) Table {
	t := Table{}
	for _, c := range cols {
		t.Header = append(t.Header, c.Name)
	}
	for _, r := range runs {
		for _, s := range r.Steps {
			row := make([]string, len(cols))
			for i, c := range cols {
				row[i] = c.cell(r, s)
				if c.title == nil {
					continue
				}
				if title := c.title(r, s); title != "" {
					t.setTitle(len(t.Rows), i, title)
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// FittedSummaryTable is CompactSummaryTable cut to fit width characters as text (`dbperf
// summary`'s default): while it is wider, it leaves out columns, least telling first (the open-loop
// columns when no step was overloaded, the host figures from the right, the open-loop columns,
// goodput, the workload's figures from the right but its first, then the gates), and its Note
// names them; a single run's name moves above the table first.
func FittedSummaryTable(runs []Run, width int) Table {
	var cols []SummaryColumn
	for _, c := range SummaryColumns(runs) {
		if c.Compact {
			cols = append(cols, c)
		}
	}
	t := tableOf(runs, cols)
	var left []string
	order := dropOrder(runs, cols)
	if len(runs) == 1 { // its name goes above the table instead
		order = append([]string{"run"}, order...)
	}
	for _, name := range order {
		if textWidth(t) <= width {
			break
		}
		i := slices.Index(t.Header, name)
		t.Header = slices.Delete(t.Header, i, i+1)
		for r := range t.Rows {
			t.Rows[r] = slices.Delete(t.Rows[r], i, i+1)
		}
		left = append(left, name)
	}
	if len(left) > 0 && left[0] == "run" {
		t.Title, left = "run "+runs[0].Meta.Name, left[1:]
	}
	if len(left) > 0 {
		t.Note = wrap("(left out to fit "+fmt.Sprint(width)+" columns, --wide shows them: "+strings.Join(left, ", ")+")", width, "")
	}
	return t
}

// TextWidth is the widest line of the default text outputs (summary, compare).
const TextWidth = 100

// wrap breaks a sentence into lines of at most width characters, at spaces; the lines after
// the first start with indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString("\n" + indent)
			n = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// dropOrder are the compact columns FittedSummaryTable may leave out, in the order it does.
func dropOrder(runs []Run, cols []SummaryColumn) []string {
	var host, open, work []string
	headline := map[string]bool{}
	for _, c := range headlineColumns(runs) {
		headline[c.Name] = true
	}
	for _, c := range cols {
		switch {
		case compactHost[c.Name]:
			host = append([]string{c.Name}, host...)
		case c.Name == "overload" || c.Name == "not_started":
			open = append([]string{c.Name}, open...)
		case headline[c.Name]:
			work = append([]string{c.Name}, work...)
		}
	}
	if len(work) > 0 {
		work = work[:len(work)-1] // the first figure stays
	}
	order := append(host, open...)
	if !openLoopNotable(runs) {
		order = append(open, host...)
	}
	if slices.ContainsFunc(cols, func(c SummaryColumn) bool { return c.Name == "goodput" }) {
		order = append(order, "goodput")
	}
	order = append(order, work...)
	for _, g := range gates(runs) { // last: runs of several workloads, each with its gate
		order = append(order, g.Column)
	}
	return order
}

// openLoopNotable tells whether a step was overloaded or left arrivals not started.
func openLoopNotable(runs []Run) bool {
	for _, r := range runs {
		for _, s := range r.Steps {
			if o := s.OpenLoop; o != nil && (o.Overloaded || o.NotStarted > 0) {
				return true
			}
		}
	}
	return false
}

// textWidth is the widest line WriteTable's text format prints of t.
func textWidth(t Table) int {
	w := make([]int, len(t.Header))
	for i, h := range t.Header {
		w[i] = utf8.RuneCountInString(h)
	}
	for r, row := range t.Rows {
		for i, c := range row {
			w[i] = max(w[i], utf8.RuneCountInString(decorate(c, t.Mark(r, i))))
		}
	}
	n := 2 * max(0, len(w)-1)
	for _, x := range w {
		n += x
	}
	return n
}

// stepOK is a step's ok cell: yes (complete and verified), unchecked, no, or n/a (the target
// cannot run the step, which was not run).
func stepOK(s archive.Step) string {
	if why, _ := s.Workload[archive.NotApplicable].(string); why != "" {
		return "n/a"
	}
	switch {
	case !s.Complete:
		return "no"
	case !s.Verified:
		return "unchecked"
	}
	return "yes"
}

// gateCell is a step's achieved/target of its gate, "!" after it when missed; "-" for a step
// without the gate.
func gateCell(g *archive.Gate, s archive.Step) string {
	if !g.Applies(s) {
		return "-"
	}
	cell := fmt.Sprintf("%.0f/%.0f", s.Workload[g.Achieved], s.Workload[g.Target])
	if g.Failed(s) {
		cell += "!"
	}
	return cell
}

// Package report turns run directories into tables. It only reads archives; it never runs
// anything, and it knows no workload: the op types and figures of each run come from what its
// workload declared in run.json (archive.Figures).
package report

import (
	"fmt"

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

// gateColumns are the gate columns of the runs (the Insert Benchmark's i_target), by name.
func gateColumns(runs []Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		if g := r.Meta.Figures.Gate; g != nil && !seen[g.Column] {
			seen[g.Column] = true
			names = append(names, g.Column)
		}
	}
	return names
}

// hostColumns are the monitor's figures per op, the same for every workload.
var hostColumns = []string{"rpq", "rkbpq", "wpi", "wkbpi", "cspq", "cpupq", "dbms_cpupq", "cpups", "dbgb1", "dbgb2", "rss", "client"}

// provenanceColumns end every summary row.
var provenanceColumns = []string{"target", "version", "date", "commit"}

// SummaryTable has one row per step per run, in the runs' order: run, step, ok, secs, the
// workloads' summary figures (rates per second, latency percentiles in µs), errors, client CPU
// per op, the gate columns (achieved/target, "!" when missed), the number of stalls, host
// figures per op, then provenance (target kind, DBMS version, start date, dbperf commit). It has
// no marks.
func SummaryTable(runs []Run) Table {
	cols := workloadColumns(runs, func(c archive.Column) bool { return c.Summary })
	gates := gateColumns(runs)
	t := Table{Header: []string{"run", "step", "ok", "secs"}}
	for _, c := range cols {
		t.Header = append(t.Header, c.Name)
	}
	t.Header = append(t.Header, "errors", "cpu_us_op")
	t.Header = append(t.Header, gates...)
	t.Header = append(t.Header, "stalls")
	t.Header = append(t.Header, hostColumns...)
	t.Header = append(t.Header, provenanceColumns...)
	for _, r := range runs {
		for _, s := range r.Steps {
			t.Rows = append(t.Rows, summaryRow(r, s, cols, gates))
		}
	}
	return t
}

func summaryRow(r Run, s archive.Step, cols []archive.Column, gates []string) []string {
	ok := "yes"
	switch {
	case !s.Complete:
		ok = "no"
	case !s.Verified:
		ok = "unchecked"
	}
	row := []string{r.Meta.Name, s.Step, ok, fmt.Sprintf("%.1f", s.Seconds)}
	for _, c := range cols {
		cell := "-"
		if v, found := c.Value(s); found {
			cell = fmt.Sprintf("%.0f", v)
		}
		row = append(row, cell)
	}
	row = append(row, fmt.Sprint(s.Errors), fmt.Sprintf("%.2f", s.ClientCPUUsPerOp))
	for _, g := range gates {
		cell := "-"
		if gate := r.Meta.Figures.Gate; gate != nil && gate.Column == g {
			cell = gateCell(gate, s)
		}
		row = append(row, cell)
	}
	stalls := "-"
	if s.Stalls != nil {
		stalls = fmt.Sprint(s.Stalls.Count)
	}
	row = append(row, stalls)
	host := []string{"-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}
	if h := s.Host; h != nil {
		num := func(p *float64, format string) string {
			if p == nil {
				return "-"
			}
			return fmt.Sprintf(format, *p)
		}
		client := fmt.Sprintf("%.2f", h.ClientCPUCores)
		if h.ClientBound {
			client += "!"
		}
		host = []string{num(h.RPQ, "%.3f"), num(h.RKBPQ, "%.3f"), num(h.WPI, "%.3f"), num(h.WKBPI, "%.3f"),
			num(h.CSPQ, "%.2f"), num(h.CPUPQ, "%.1f"), num(h.DBMSCPUPQ, "%.1f"), fmt.Sprintf("%.0f", h.CPUPS),
			num(h.DBGB1, "%.3f"), num(h.DBGB2, "%.3f"), num(h.RSS, "%.3f"), client}
	}
	commit := r.Meta.Dbperf.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	row = append(row, host...)
	return append(row, r.Meta.Target.Kind, r.Meta.Target.Version, r.Meta.Start.UTC().Format("2006-01-02T15:04"), commit)
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

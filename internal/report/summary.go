// Package report turns run directories into tables. It only reads archives; it never runs
// anything.
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

// summaryColumns are the headline figures of a step: rates per op type (rows/s for inserts and
// deletes, queries/s), latency percentiles (µs), errors, client CPU per op, whether a q step
// held its insert rate, the number of stalls, host figures per op, then provenance.
var summaryColumns = []string{
	"run", "step", "ok", "secs", "ips", "dps", "qps", "xps",
	"i_p50", "i_p99", "i_max", "d_p99", "q_p50", "q_p99", "q_p99.9", "q_max",
	"errors", "cpu_us_op", "i_target", "stalls",
	"rpq", "rkbpq", "wpi", "wkbpi", "cspq", "cpupq", "dbms_cpupq", "cpups", "dbgb1", "dbgb2", "rss", "client",
	"target", "version", "date", "commit",
}

// SummaryTable has one row per step per run, in the runs' order: the columns of summaryColumns,
// the last five being provenance (run name first; target kind, DBMS version, start date,
// dbperf commit last). It has no marks.
func SummaryTable(runs []Run) Table {
	t := Table{Header: append([]string(nil), summaryColumns...)}
	for _, r := range runs {
		for _, s := range r.Steps {
			t.Rows = append(t.Rows, summaryRow(r, s))
		}
	}
	return t
}

func summaryRow(r Run, s archive.Step) []string {
	ok := "yes"
	switch {
	case !s.Complete:
		ok = "no"
	case !s.Verified:
		ok = "unchecked"
	}
	rate := func(op string) string {
		if o, found := s.Ops[op]; found {
			return fmt.Sprintf("%.0f", o.PerSec)
		}
		return "-"
	}
	lat := func(op string, pick func(p50, p99, p999, max float64) float64) string {
		o, found := s.Ops[op]
		if !found || o.Statements == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f", pick(o.P50Us, o.P99Us, o.P999Us, o.MaxUs))
	}
	p50 := func(a, _, _, _ float64) float64 { return a }
	p99 := func(_, b, _, _ float64) float64 { return b }
	p999 := func(_, _, c, _ float64) float64 { return c }
	pmax := func(_, _, _, d float64) float64 { return d }
	target := insertTarget(s)
	stalls := "-"
	if s.Stalls != nil {
		stalls = fmt.Sprint(s.Stalls.Count)
	}
	commit := r.Meta.Dbperf.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
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
	return append([]string{
		r.Meta.Name, s.Step, ok, fmt.Sprintf("%.1f", s.Seconds),
		rate("insert"), rate("delete"), rate("query"), rate("index"),
		lat("insert", p50), lat("insert", p99), lat("insert", pmax), lat("delete", p99),
		lat("query", p50), lat("query", p99), lat("query", p999), lat("query", pmax),
		fmt.Sprint(s.Errors), fmt.Sprintf("%.2f", s.ClientCPUUsPerOp), target, stalls}, append(host,
		r.Meta.Target.Kind, r.Meta.Target.Version, r.Meta.Start.UTC().Format("2006-01-02T15:04"), commit)...)
}

// insertTarget is a q step's achieved/target insert rate, "!" after it when below 95% of the
// target; "-" for other steps.
func insertTarget(s archive.Step) string {
	met, found := s.Workload["insert_target_met"].(bool)
	if !found {
		return "-"
	}
	target := fmt.Sprintf("%.0f/%.0f", s.Workload["insert_achieved_per_sec"], s.Workload["insert_target_per_sec"])
	if !met {
		target += "!"
	}
	return target
}

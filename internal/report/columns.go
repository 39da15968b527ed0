package report

import (
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// This file defines the columns that every workload shares (run and step, errors, stalls, the
// monitor's host figures, provenance) with the sentence `dbperf summary --explain` and the
// report print for each: every abbreviation dbperf prints is defined here or in a workload's
// declaration (archive.Column.Help).

// hostHelp says what each host figure of the monitor is (archive.HostSummary). "Per op" divides
// by the units of the step's main op type, "per write" by those of its write op type.
var hostHelp = map[string]string{
	"rpq":          "storage reads per op, on the database's device",
	"rkbpq":        "KB read from storage per op",
	"wpi":          "storage writes per unit written (the step's write op type)",
	"wkbpi":        "KB written to storage per unit written (the step's write op type)",
	"cspq":         "context switches (whole host) per op",
	"cpupq":        "host CPU µs per op: DBMS, dbperf and kernel together",
	"dbms_cpupq":   "CPU µs per op of the DBMS's processes (servers on this host)",
	"client_cpupq": "dbperf's own CPU µs per op",
	"cpups":        "host CPU busy, % of all cores",
	"dbgb1":        "database size as the DBMS reports it, GB",
	"dbgb2":        "size of the database's data directory on disk, GB",
	"rss":          "resident memory of the DBMS's largest process by VSZ (PostgreSQL's postmaster, as the reference's rss), GB, the step's maximum; host.csv's dbms_rss_mb is all its processes'",
	"client":       `dbperf's CPU use in cores; "!": client-bound, the figures measure dbperf rather than the DBMS`,
	"stalls":       "seconds whose rate dropped far below the step's median or whose latency exploded (rule in summary.json)",
}

// compactHost are the host figures the default summary shows.
var compactHost = map[string]bool{"cpupq": true, "wkbpi": true, "client": true}

var stepColumns = []SummaryColumn{
	{Name: "run", Help: "the run's name (run.json; by default its directory's)", Compact: true,
		cell: func(r Run, _ archive.Step) string { return r.Meta.Name }},
	{Name: "step", Help: "the step, as named on the command line (--steps)", Compact: true,
		cell: func(_ Run, s archive.Step) string { return s.Step }},
	{Name: "ok", Help: "yes: complete and verified; unchecked: complete, not verified; no: failed or interrupted", Compact: true,
		cell: func(_ Run, s archive.Step) string { return stepOK(s) }},
	{Name: "secs", Help: "the step's duration, seconds", Compact: true,
		cell: func(_ Run, s archive.Step) string { return fmt.Sprintf("%.1f", s.Seconds) }},
}

var errorColumns = []SummaryColumn{
	{Name: "errors", Help: "operations that failed after their retries", Better: archive.LowerIsBetter, Compact: true,
		cell: func(_ Run, s archive.Step) string { return fmt.Sprint(s.Errors) }},
	{Name: "cpu_us_op", Help: "dbperf's CPU µs per unit of the step's main op type (with the engine's, on an embedded target)", Better: archive.LowerIsBetter,
		cell: func(_ Run, s archive.Step) string { return fmt.Sprintf("%.2f", s.ClientCPUUsPerOp) }},
}

var stallColumn = SummaryColumn{Name: "stalls", Help: hostHelp["stalls"] + `; "-": not judged`, Better: archive.LowerIsBetter, Compact: true,
	cell: func(_ Run, s archive.Step) string {
		if s.Stalls == nil {
			return "-"
		}
		return fmt.Sprint(s.Stalls.Count)
	}}

// hostWide are the host figures of the whole host, which a merged step has only when every
// shard ran on one host (hosts.go); the others are nil pointers when unknown.
var hostWide = map[string]bool{"cpups": true}

// hostSummaryColumn is a summary column of the monitor's figures, a merged step's from its
// shards' (hosts.go); "-" for a step without them.
func hostSummaryColumn(name string, better archive.Direction, get func(h *archive.HostSummary) string) SummaryColumn {
	return SummaryColumn{Name: name, Help: hostHelp[name], Better: better, Compact: compactHost[name],
		cell: func(_ Run, s archive.Step) string {
			h, oneHost := stepHost(s)
			if h == nil || hostWide[name] && !oneHost {
				return "-"
			}
			return get(h)
		}}
}

func num(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
}

const lower = archive.LowerIsBetter

// hostSummaryColumns are the monitor's figures; cpups and client are shares of the host, neither
// better nor worse.
var hostSummaryColumns = []SummaryColumn{
	hostSummaryColumn("rpq", lower, func(h *archive.HostSummary) string { return num(h.ReadsPerOp, "%.3f") }),
	hostSummaryColumn("rkbpq", lower, func(h *archive.HostSummary) string { return num(h.ReadKBPerOp, "%.3f") }),
	hostSummaryColumn("wpi", lower, func(h *archive.HostSummary) string { return num(h.WritesPerWrite, "%.3f") }),
	hostSummaryColumn("wkbpi", lower, func(h *archive.HostSummary) string { return num(h.WriteKBPerWrite, "%.3f") }),
	hostSummaryColumn("cspq", lower, func(h *archive.HostSummary) string { return num(h.CtxPerOp, "%.2f") }),
	hostSummaryColumn("cpupq", lower, func(h *archive.HostSummary) string { return num(h.CPUUsPerOp, "%.1f") }),
	hostSummaryColumn("dbms_cpupq", lower, func(h *archive.HostSummary) string { return num(h.DBMSCPUUsPerOp, "%.1f") }),
	hostSummaryColumn("cpups", "", func(h *archive.HostSummary) string { return fmt.Sprintf("%.0f", h.CPUPS) }),
	hostSummaryColumn("dbgb1", lower, func(h *archive.HostSummary) string { return num(h.DBGB1, "%.3f") }),
	hostSummaryColumn("dbgb2", lower, func(h *archive.HostSummary) string { return num(h.DBGB2, "%.3f") }),
	hostSummaryColumn("rss", lower, func(h *archive.HostSummary) string { return num(h.RSS, "%.3f") }),
	clientColumn,
}

// clientColumn is dbperf's cores, "!" when client-bound; a merged step's tooltip in the report
// says which shards were and why.
var clientColumn = func() SummaryColumn {
	c := hostSummaryColumn("client", "", func(h *archive.HostSummary) string {
		c := fmt.Sprintf("%.2f", h.ClientCPUCores)
		if h.ClientBound {
			c += "!"
		}
		return c
	})
	c.title = clientTitle
	return c
}()

var provenanceColumns = []SummaryColumn{
	{Name: "target", Help: "the target's kind (postgres, mysql, sqlite, pebble, ...)",
		cell: func(r Run, _ archive.Step) string { return r.Meta.Target.Kind }},
	{Name: "version", Help: "the DBMS's or engine's version",
		cell: func(r Run, _ archive.Step) string { return r.Meta.Target.Version }},
	{Name: "date", Help: "when the run started, UTC",
		cell: func(r Run, _ archive.Step) string { return r.Meta.Start.UTC().Format("2006-01-02T15:04") }},
	{Name: "commit", Help: "the dbperf commit that made the run (12 digits)",
		cell: func(r Run, _ archive.Step) string {
			commit := r.Meta.Dbperf.Commit
			if len(commit) > 12 {
				commit = commit[:12]
			}
			return commit
		}},
}

// statHelp describes the statistics a workload column may show.
var statHelp = map[string]string{
	archive.StatP50:  "median latency",
	archive.StatP99:  "99th percentile latency",
	archive.StatP999: "99.9th percentile latency",
	archive.StatMax:  "worst latency",
}

// columnHelp is a workload column's sentence: its declared Help, else one made from its op type
// and statistic (runs archived before columns carried Help).
func columnHelp(c archive.Column) string {
	if c.Help != "" {
		return c.Help
	}
	if c.Stat == archive.StatPerSec {
		return "units of op type " + c.Op + " per second"
	}
	if h, ok := statHelp[c.Stat]; ok {
		return h + " of op type " + c.Op + ", µs"
	}
	return c.Stat + " of op type " + c.Op
}

// gateHelp says what a gate column shows and which figures it gates in the runs' declarations.
func gateHelp(g *archive.Gate, runs []Run) string {
	var gated []string
	for _, c := range workloadColumns(runs, func(c archive.Column) bool { return c.Gated }) {
		gated = append(gated, c.Name)
	}
	h := fmt.Sprintf("the step's condition, achieved/target (%s/%s); \"!\" when missed (%s false)", g.Achieved, g.Target, g.Met)
	if len(gated) > 0 {
		h += ": then " + strings.Join(gated, ", ") + " do not compare with other runs"
	}
	return h
}

// ExplainTable lists every column of the runs' summary: its name, whether the default summary
// shows it or only --wide, the direction in which it is better, and what it means.
func ExplainTable(runs []Run) Table {
	t := Table{Header: []string{"column", "shown", "better", "meaning"}}
	for _, c := range SummaryColumns(runs) {
		shown := "wide"
		if c.Compact {
			shown = "default"
		}
		better := "-"
		if c.Better != "" {
			better = string(c.Better)
		}
		t.Rows = append(t.Rows, []string{c.Name, shown, better, c.Help})
	}
	return t
}

// ExplainNote precedes the column legend: the conventions every column follows.
const ExplainNote = `Rates are per second over the whole step, all clients; latencies are in µs, per statement,
from the step's HDR histograms, counted from each operation's intended start. "Per op" divides
by the units of the step's main op type (the Insert Benchmark's: rows inserted on load steps,
queries on q steps), "per unit written" by those of its write op type. "-" is a figure the step does not have.
"better" is the direction compare and the report colour as better: higher or lower.
`

// hasOpenLoop tells whether any step of the runs had an open-loop stream.
func hasOpenLoop(runs []Run) bool {
	for _, r := range runs {
		for _, s := range r.Steps {
			if s.OpenLoop != nil {
				return true
			}
		}
	}
	return false
}

// openLoopCell is a step's open-loop figure, "-" for a step without open-loop streams.
func openLoopCell(get func(o *measure.OpenLoop) string) func(Run, archive.Step) string {
	return func(_ Run, s archive.Step) string {
		if s.OpenLoop == nil {
			return "-"
		}
		return get(s.OpenLoop)
	}
}

// openLoopColumns account for a step's open-loop arrivals (docs/open-loop.md), when the runs
// had any: what was offered and achieved, what was dropped or never started, and whether the
// load outgrew the system.
var openLoopColumns = []SummaryColumn{
	{Name: "overload", Help: `"YES": an open-loop stream dropped arrivals or ended with more than 1% of them still waiting; "no"; "-": no open-loop stream`,
		Compact: true, cell: openLoopCell(func(o *measure.OpenLoop) string {
			if o.Overloaded {
				return "YES"
			}
			return "no"
		})},
	{Name: "offered_ps", Help: "open-loop arrivals due per second, all streams",
		cell: openLoopCell(func(o *measure.OpenLoop) string { return fmt.Sprintf("%.0f", o.OfferedPerSec) })},
	{Name: "achieved_ps", Help: "open-loop arrivals started and finished per second, all streams", Better: archive.HigherIsBetter,
		cell: openLoopCell(func(o *measure.OpenLoop) string { return fmt.Sprintf("%.0f", o.AchievedPerSec) })},
	{Name: "dropped", Help: "open-loop arrivals that found the backlog full (--max-backlog) and never ran", Better: archive.LowerIsBetter,
		cell: openLoopCell(func(o *measure.OpenLoop) string { return fmt.Sprint(o.Dropped) })},
	{Name: "not_started", Help: `open-loop arrivals still waiting when the step ended; their waits are in the latencies, then lower bounds (marked ">=")`,
		Better: archive.LowerIsBetter, Compact: true,
		cell: openLoopCell(func(o *measure.OpenLoop) string { return fmt.Sprint(o.NotStarted) })},
}

// lowerBound tells whether a workload column's figure is a latency that counts not-started
// arrivals' waits: a lower bound of what the response times were.
func lowerBound(c archive.Column, s archive.Step) bool {
	return c.Key == "" && c.Stat != archive.StatPerSec && s.Ops[c.Op].LatencyLowerBound
}

package main

import (
	"fmt"
	"io"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

// formatHelp describes the --format flag of summary and compare.
const formatHelp = "output format: text (aligned columns), tsv (tab-separated, header line), markdown (a pipe table) or json (docs/reports.md)"

// declarations are the workloads whose columns `summary --explain` describes when given no run.
// A new workload adds its declaration here.
func declarations() []archive.Figures { return archive.Declarations() }

const summaryLong = `summary reads run directories (it never runs anything) and prints one line per step.
By default it shows the workload's main figures (the Insert Benchmark's ips and qps, rows
inserted and queries per second; i_p99 and q_p99, the 99th percentile latency of an insert
and a query in µs), errors, the step's gate (achieved/target insert rate of q steps, "!"
below 95%), the number of stalls, and three host figures (wkbpi, cpupq, client).

--wide prints every column: all rates and latency percentiles, the client's CPU per
operation, every host figure per operation, and provenance (target kind, DBMS version,
start date, dbperf commit). --explain prints what each column means (with RUNs, the columns
of those runs) and how each write step inserts into each index (with RUNs, theirs, once per
run group; without, each workload's default configuration's). docs/reports.md lists every
abbreviation; --format json is described there.

Given run groups (--repeat N), it prints per group, step and figure the number of runs, the
median, a 95% confidence interval and the coefficient of variation (docs/repeats.md).`

const summaryExample = `  dbperf summary runs/pg-shared runs/pebble-1
  dbperf summary --wide --format tsv runs/* > summary.tsv
  dbperf summary --explain
  dbperf summary runs/group-a runs/group-b      # run groups made with --repeat`

func summaryCmd() *cobra.Command {
	var o summaryOptions
	c := &cobra.Command{
		Use:     "summary RUN...",
		Short:   "One line per step per run, side by side, from run directories",
		Long:    summaryLong,
		Example: summaryExample,
		RunE:    func(c *cobra.Command, args []string) error { return o.run(c.OutOrStdout(), args) },
	}
	c.Flags().StringVar(&o.format, "format", "text", formatHelp)
	c.Flags().BoolVar(&o.wide, "wide", false, "every column, not only the main figures")
	c.Flags().BoolVar(&o.explain, "explain", false, "print what each column means and exit")
	return c
}

// summaryOptions are summary's flags.
type summaryOptions struct {
	format        string
	wide, explain bool
}

// run prints dbperf crash's runs among args first, then the run groups or runs, or what
// their columns mean (--explain).
func (o summaryOptions) run(out io.Writer, args []string) error {
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return err
	}
	args, done, err := summarizeCrashRuns(out, args, f)
	if err != nil || done {
		return err
	}
	groups, isGroup, err := loadGroups(args)
	if err != nil {
		return err
	}
	if isGroup && !o.explain {
		return writeGroupSummary(out, groups, f)
	}
	runs, err := summaryRuns(args, groups, isGroup)
	if err != nil {
		return err
	}
	switch {
	case o.explain && isGroup:
		return explainGroups(out, groups, runs, f)
	case o.explain:
		return explainRuns(out, runs, f)
	}
	return o.writeRuns(out, runs, f)
}

// summarizeCrashRuns prints the runs of dbperf crash among args (crash.go) and returns the
// others; done says nothing is left to print.
func summarizeCrashRuns(out io.Writer, args []string, f report.Format) (rest []string, done bool, err error) {
	crashes, rest := splitCrashRuns(args)
	if len(crashes) == 0 {
		return args, false, nil
	}
	if f != report.FormatText && f != report.FormatMarkdown {
		return nil, true, fmt.Errorf("crash runs print as text or markdown, not %s (dbperf crash summary reads them too)", f)
	}
	if err := writeCrashSummary(out, crashes, string(f)); err != nil || len(rest) == 0 {
		return nil, true, err
	}
	fmt.Fprintln(out)
	return rest, false, nil
}

// writeGroupSummary prints each group's medians, intervals and spreads (docs/repeats.md).
func writeGroupSummary(out io.Writer, groups []report.Group, f report.Format) error {
	if f == report.FormatJSON {
		return report.WriteGroupSummaryJSON(out, groups)
	}
	return report.WriteTable(out, report.GroupSummaryTable(groups), f)
}

// summaryRuns are the runs the summary reads: the groups' runs (--explain of groups: the
// figures of their runs), or the run directories in args.
func summaryRuns(args []string, groups []report.Group, isGroup bool) ([]report.Run, error) {
	var runs []report.Run
	for _, g := range groups {
		runs = append(runs, g.Runs...)
	}
	if len(args) > 0 && !isGroup {
		return loadRuns(args)
	}
	return runs, nil
}

// explainGroups prints what the columns of the groups' runs mean, the groups' own columns
// and their insert patterns (patterns.go).
func explainGroups(out io.Writer, groups []report.Group, runs []report.Run, f report.Format) error {
	t := report.ExplainTable(runs)
	t.Rows = append(t.Rows, report.GroupExplainRows...)
	if f == report.FormatText {
		fmt.Fprint(out, report.ExplainNote+"\n"+report.GroupExplainNote+"\n")
	}
	if err := report.WriteTable(out, t, f); err != nil || f != report.FormatText {
		return err
	}
	return writeInsertPatterns(out, groupPatterns(groups), true)
}

// explainRuns prints what the runs' columns mean and their insert patterns; without runs,
// every workload's columns and its default configuration's patterns.
func explainRuns(out io.Writer, runs []report.Run, f report.Format) error {
	given := runs
	if len(runs) == 0 {
		for _, d := range declarations() {
			runs = append(runs, report.Run{Meta: archive.Run{Figures: d}})
		}
	}
	if f == report.FormatText {
		fmt.Fprint(out, report.ExplainNote+"\n")
	}
	if err := report.WriteTable(out, report.ExplainTable(runs), f); err != nil || f != report.FormatText {
		return err
	}
	return writeInsertPatterns(out, runPatterns(given), false)
}

// writeRuns prints a line per step of each run: the main figures fitted to a terminal's
// width (report.TextWidth, saying what it left out), or every column with --wide; then the
// steps' faults (faults.go).
func (o summaryOptions) writeRuns(out io.Writer, runs []report.Run, f report.Format) error {
	if len(runs) == 0 {
		return fmt.Errorf("summary needs at least one RUN directory (or --explain)")
	}
	if f == report.FormatJSON {
		return report.WriteSummaryJSON(out, runs)
	}
	t := report.CompactSummaryTable(runs)
	if f == report.FormatText {
		t = report.FittedSummaryTable(runs, report.TextWidth)
	}
	if o.wide {
		t = report.SummaryTable(runs)
	}
	if err := report.WriteTable(out, t, f); err != nil || f != report.FormatText {
		return err
	}
	writeFaultLines(out, runs)
	return nil
}

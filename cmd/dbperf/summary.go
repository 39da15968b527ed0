package main

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

// formatHelp describes the --format flag of summary and compare.
const formatHelp = "output format: text (aligned columns), tsv (tab-separated, header line), markdown (a pipe table) or json (docs/reports.md)"

// declarations are the workloads whose columns `summary --explain` describes when given no run.
// A new workload adds its declaration here.
func declarations() []archive.Figures { return archive.Declarations() }

func summaryCmd() *cobra.Command {
	var format string
	var wide, explain bool
	c := &cobra.Command{
		Use:   "summary RUN...",
		Short: "One line per step per run, side by side, from run directories",
		Long: `summary reads run directories (it never runs anything) and prints one line per step.
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
median, a 95% confidence interval and the coefficient of variation (docs/repeats.md).`,
		Example: `  dbperf summary runs/pg-shared runs/pebble-1
  dbperf summary --wide --format tsv runs/* > summary.tsv
  dbperf summary --explain
  dbperf summary runs/group-a runs/group-b      # run groups made with --repeat`,
		RunE: func(c *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			if crashes, rest := splitCrashRuns(args); len(crashes) > 0 { // dbperf crash's runs: crash.go
				if f != report.FormatText && f != report.FormatMarkdown {
					return fmt.Errorf("crash runs print as text or markdown, not %s (dbperf crash summary reads them too)", f)
				}
				if err := writeCrashSummary(c.OutOrStdout(), crashes, string(f)); err != nil || len(rest) == 0 {
					return err
				}
				fmt.Fprintln(c.OutOrStdout())
				args = rest
			}
			groups, isGroup, err := loadGroups(args)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			if isGroup && !explain {
				if f == report.FormatJSON {
					return report.WriteGroupSummaryJSON(out, groups)
				}
				return report.WriteTable(out, report.GroupSummaryTable(groups), f)
			}
			var runs []report.Run
			for _, g := range groups { // --explain of groups: the figures of their runs
				runs = append(runs, g.Runs...)
			}
			if len(args) > 0 && !isGroup {
				if runs, err = loadRuns(args); err != nil {
					return err
				}
			}
			if explain && isGroup {
				t := report.ExplainTable(runs)
				t.Rows = append(t.Rows, report.GroupExplainRows...)
				if f == report.FormatText {
					fmt.Fprint(out, report.ExplainNote+"\n"+report.GroupExplainNote+"\n")
				}
				if err := report.WriteTable(out, t, f); err != nil || f != report.FormatText {
					return err
				}
				return writeInsertPatterns(out, groupPatterns(groups), true) // patterns.go
			}
			if explain {
				given := runs // the insert patterns of these, or the workloads' defaults
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
			if len(runs) == 0 {
				return fmt.Errorf("summary needs at least one RUN directory (or --explain)")
			}
			if f == report.FormatJSON {
				return report.WriteSummaryJSON(out, runs)
			}
			t := report.CompactSummaryTable(runs)
			if f == report.FormatText { // a terminal's: at most report.TextWidth, saying what it left out
				t = report.FittedSummaryTable(runs, report.TextWidth)
			}
			if wide {
				t = report.SummaryTable(runs)
			}
			if err := report.WriteTable(out, t, f); err != nil || f != report.FormatText {
				return err
			}
			writeFaultLines(out, runs) // faults.go
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "text", formatHelp)
	c.Flags().BoolVar(&wide, "wide", false, "every column, not only the main figures")
	c.Flags().BoolVar(&explain, "explain", false, "print what each column means and exit")
	return c
}

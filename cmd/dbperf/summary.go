package main

import (
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

// formatHelp describes the --format flag of summary and compare.
const formatHelp = "output format: text (aligned columns), tsv (tab-separated, header line) or markdown (a pipe table)"

func summaryCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "summary RUN...",
		Short: "One line per step per run, side by side, from run directories",
		Long: `summary reads run directories (it never runs anything) and prints one line per step:
rates (ips/dps/qps: rows inserted, rows deleted, queries per second; xps: rows indexed per
second), latency percentiles in microseconds (i_ insert, d_ delete, q_ query statements),
errors, the client's CPU per operation, the achieved/target insert rate of q steps ("!" when
below 95%), the number of stalls, host figures per operation when the step was monitored, and
provenance (target kind, DBMS version, start date, dbperf commit).`,
		Example: `  dbperf summary runs/pg-shared runs/pebble-1
  dbperf summary --format tsv runs/* > summary.tsv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			if groups, ok, err := report.LoadGroups(args); err != nil {
				return err
			} else if ok {
				return report.WriteTable(c.OutOrStdout(), report.GroupSummaryTable(groups), f)
			}
			runs, err := report.Load(args)
			if err != nil {
				return err
			}
			return report.WriteTable(c.OutOrStdout(), report.SummaryTable(runs), f)
		},
	}
	c.Flags().StringVar(&format, "format", "text", formatHelp)
	return c
}

package main

import (
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

func summaryCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "summary RUN...",
		Short: "One line per step per run, side by side, from run directories",
		Long: `summary reads run directories (it never runs anything) and prints one line per step:
rates (ips/dps/qps: rows inserted, rows deleted, queries per second; xps: rows indexed per
second), latency percentiles in microseconds (i_ insert, d_ delete, q_ query statements),
errors, the client's CPU per operation, the achieved/target insert rate of q steps ("!" when
below 95%), and provenance.`,
		Example: "  dbperf summary runs/pg-shared runs/pebble-1",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			runs, err := report.Load(args)
			if err != nil {
				return err
			}
			return report.Summary(c.OutOrStdout(), runs)
		},
	}
}

package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/spf13/cobra"
)

func targetsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "targets",
		Short: "List the target kinds and how to name them",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tTARGET STRING\tWHAT")
			for _, k := range driver.Kinds() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, k.Usage, k.Summary)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			_, err := fmt.Fprintf(c.OutOrStdout(), "\nA key-value kind prefixed with %s stalls every operation during chosen windows, to see what\n"+
				"closed and open loops do with a stall (docs/open-loop.md): %spebble[:DIR]?at=5s&for=2s[&every=10s]\n", driver.StallPrefix, driver.StallPrefix)
			return err
		},
	}
}

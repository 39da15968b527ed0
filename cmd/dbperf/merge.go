package main

import (
	"fmt"
	"os"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/merge"
	"github.com/spf13/cobra"
)

// mergeCmd is `dbperf merge SHARD_RUN... --out RUN`: the shards of a sharded run made into one
// run directory (internal/merge, docs/scale-out.md).
func mergeCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge SHARD_RUN... --out RUN",
		Short: "Merge the run directories of a sharded run's shards into one run",
		Long: `merge joins the run directories that the shards of one sharded run wrote (dbperf run
... --shard i/N) into one run directory, which summary, compare and report read as usual.
Histograms (latency.hlog, and service.hlog of open-loop steps) are added bucket by bucket and
second by second; each shard's per-second rows are aligned by its step's start instant
(corrected by the clock offset measured at the rendezvous) and summed; counts, errors and
open-loop arrivals add up; each shard's host.csv, dbms.csv and summary.json stay under
STEP/shard-K/, and summary.json's "hosts" lists them, client-bound when any shard was
(named); the DBMS's counters.csv.gz is kept once, shard 0's, in the step's directory
(the other shards' under STEP/shard-K/); run.json keeps every shard's host, commit, command
and clock offset. It refuses shards of different runs, seeds, settings or step lists, a missing
or repeated shard, and overlapping work. Shards run with --repeat wrote run groups: merging
their groups merges them repeat by repeat into a run group (RUN/rep-K, group.json), which
summary and compare read as any group.`,
		Example: `  dbperf merge runs/s0 runs/s1 runs/s2 runs/s3 --out runs/lb-4hosts
  dbperf summary runs/lb-4hosts
  dbperf merge runs/g0 runs/g1 --out runs/ib-2hosts-x3     # shards run with --repeat 3`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, dirs []string) error {
			if out == "" {
				return fmt.Errorf("give the merged run's directory with --out")
			}
			if merge.IsGroup(dirs[0]) { // the shards ran with --repeat: a group of merged runs
				g, err := merge.Groups(out, dirs, redactArgs(os.Args))
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "merged %d shard groups of %s, %d repeats, into the run group %s\n", len(dirs), g.Workload, len(g.Runs), out)
				return nil
			}
			meta, err := merge.Runs(out, dirs, redactArgs(os.Args))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "merged %d shards of %s (seed %d), %d steps, into %s\n", len(dirs), meta.Workload, meta.Seed, len(meta.Steps), out)
			for _, s := range meta.Shards {
				fmt.Fprintf(c.OutOrStdout(), "  shard %d/%d: %s on %s, clock offset %.1f ms\n", s.Index, s.Count, s.Dir, s.Host.Hostname, s.ClockOffsetMs)
			}
			_, steps, err := archive.Read(out)
			if err != nil {
				return err
			}
			for _, s := range steps {
				if s.Hosts != nil && s.Hosts.ClientBound {
					fmt.Fprintf(c.OutOrStdout(), "  step %s CLIENT-BOUND: %s\n", s.Step, s.Hosts.ClientBoundWhy)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "the merged run directory (new)")
	return c
}

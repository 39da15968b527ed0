package main

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/spf13/cobra"
)

func init() { searchWorkloads = append(searchWorkloads, searchYCSBCmd) }

// searchYCSBCmd searches YCSB's run step: the highest operation rate, every operation type
// together, at which every SLA holds. Workloads without inserts keep usertable as it is, so the
// trials follow one load; D and E insert, and load again before every trial after the first.
func searchYCSBCmd() *cobra.Command {
	cfg := ycsb.DefaultConfig()
	sf := defaultSearchFlags(ycsb.StepRun, []string{ycsb.StepLoad})
	sf.target = "pebble"
	name := "a"
	c := &cobra.Command{
		Use:   "ycsb",
		Short: "Highest operation rate of a YCSB core workload that meets the SLAs",
		Long: `search loads usertable (--setup, default load), then runs the run step again and again with
operations arriving open loop at a constant total rate in the workload's proportions, each trial
a warm-up that is archived but not judged and a measured part. A trial passes when every --sla
holds over the measured part, at least 95% of the offered operations a second completed (every
operation type together), and none was dropped. The rate doubles after a pass and halves after
a fail until one of each brackets the answer, then bisects (on a log scale) to --resolution.
Workloads D and E insert records, so usertable is loaded again before every trial after the
first. --vary clients searches a closed loop's --threads instead. See docs/ycsb.md.`,
		Example: `  dbperf search ycsb --workload b --sla 'read:p99<1ms' --target rocksdb:/data/y
  dbperf search ycsb --workload a --records 100000 --target postgres://postgres@127.0.0.1:15432/y --sla 'update:p99<5ms'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := applyYCSBWorkload(c, &cfg, name); err != nil {
				return err
			}
			if !c.Flags().Changed("seed") {
				sf.seed = randomSeed()
			}
			cfg.Seed = sf.seed
			cfg.Steps = append(append([]string(nil), sf.setup...), sf.step)
			switch {
			case sf.step != ycsb.StepRun:
				return fmt.Errorf("--step %s: the step a search runs is %s", sf.step, ycsb.StepRun)
			case len(sf.setup) == 0 || sf.setup[0] != ycsb.StepLoad:
				return fmt.Errorf("--setup must start with %s: the run step reads the records it loads", ycsb.StepLoad)
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			return runSearch(c, ycsb.Name, sf, bindYCSB(cfg))
		},
	}
	f := c.Flags()
	addYCSBFlags(f, &cfg, &name)
	f.StringVar(&sf.target, "target", sf.target, "what to search on: pebble[:DIR], rocksdb:DIR, badger[:DIR], bbolt[:FILE], sqlite[:FILE], postgres://..., mysql://... (see 'dbperf targets')")
	f.StringVar(&sf.step, "step", sf.step, "the step whose operation rate is searched: run")
	f.StringSliceVar(&sf.setup, "setup", sf.setup, "steps that load usertable, first (and again before each trial of D and E)")
	addSearchFlags(f, &sf)
	return c
}

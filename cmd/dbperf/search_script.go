package main

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/spf13/cobra"
)

func init() { searchWorkloads = append(searchWorkloads, searchScriptCmd) }

// searchScriptCmd searches the run step of pgbench scripts: the highest transaction rate, every
// script together, at which every SLA holds. A run keeps the tables' sizes that scripts read
// by key, so the trials follow one another after one init (the built-ins') or none (your own
// tables).
func searchScriptCmd() *cobra.Command {
	cfg := script.DefaultConfig()
	sf := defaultSearchFlags(script.StepRun, nil)
	var scf scriptFlags
	c := &cobra.Command{
		Use:   "script",
		Short: "Highest transaction rate of pgbench scripts that meets the SLAs",
		Long: `search runs --setup first (default: init with --builtin, which creates and loads pgbench's tables
at --scale; nothing for your own scripts, whose tables are there), then the run step again and
again with transactions arriving open loop at a constant total rate, the scripts drawn by their
weights, each trial a warm-up that is archived but not judged and a measured part. A trial
passes when every --sla holds over the measured part, at least 95% of the offered transactions
a second completed (every script together), and none was dropped. The rate doubles after a pass
and halves after a fail until one of each brackets the answer, then bisects (on a log scale) to
--resolution. --vary clients searches a closed loop's --clients instead. See docs/script.md.`,
		Example: `  dbperf search script --builtin tpcb-like --scale 10 --target postgres://postgres@127.0.0.1:15432/pgb --sla 'tpcb-like:p99<10ms'
  dbperf search script --file my.sql --target mysql://dbperf@127.0.0.1:13306/db --clients 16 --sla 'my:p99<5ms'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("setup") {
				sf.setup = nil
				if len(scf.builtins) > 0 {
					sf.setup = []string{script.StepInit}
				}
			}
			if err := scf.apply(c, &cfg, append(append([]string(nil), sf.setup...), sf.step)); err != nil {
				return err
			}
			if !c.Flags().Changed("seed") {
				sf.seed = randomSeed()
			}
			cfg.Seed = sf.seed
			switch {
			case sf.step != script.StepRun:
				return fmt.Errorf("--step %s: the step a search runs is %s", sf.step, script.StepRun)
			case cfg.PerStatement && sf.vary != "clients":
				return fmt.Errorf("--per-statement runs a closed loop only: give --vary clients, or leave it out to search the rate")
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			return runSearch(c, script.Name, sf, bindScript(cfg))
		},
	}
	f := c.Flags()
	scf.add(f, &cfg)
	f.StringVar(&sf.target, "target", sf.target, "what to search on: sqlite[:FILE], postgres://..., mysql://... (see 'dbperf targets')")
	f.StringVar(&sf.step, "step", sf.step, "the step whose transaction rate is searched: run")
	f.StringSliceVar(&sf.setup, "setup", nil, "steps run once before the trials (default: init with --builtin, else none)")
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "clients, each with its own connection (pgbench -c)")
	addSearchFlags(f, &sf)
	return c
}

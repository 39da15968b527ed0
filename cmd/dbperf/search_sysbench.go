package main

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/workload/sysbench"
	"github.com/spf13/cobra"
)

// searchSysbenchCmd searches a sysbench OLTP test's run step: the highest event (transaction)
// rate at which every SLA holds. Tests that keep the tables' rows run their trials one after
// another after one prepare; insert and delete get the prepare again before each trial.
func searchSysbenchCmd() *cobra.Command {
	cfg := sysbench.DefaultConfig()
	sf := defaultSearchFlags(sysbench.StepRun, []string{sysbench.StepPrepare})
	var psMode string
	ignore := "1213,1020,1205"
	c := &cobra.Command{
		Use:   "sysbench TEST",
		Short: "Highest transaction rate of a sysbench OLTP test that meets the SLAs",
		Long: `search prepares the sbtest tables (--setup, default prepare), then runs the test's run step again
and again with its events (sysbench's transactions) arriving open loop at a constant total rate
on --threads connections, each trial a warm-up that is archived but not judged and a measured
part. A trial passes when every --sla holds over the measured part, at least 95% of the offered
events a second completed, and none was dropped. The rate doubles after a pass and halves after
a fail until one of each brackets the answer, then bisects (on a log scale) to --resolution.
insert and delete change the tables' rows, so they are prepared again before every trial after
the first. --vary clients searches the threads of a closed loop instead. See docs/sysbench.md.`,
		Example: `  dbperf search sysbench read_write --target postgres://postgres@127.0.0.1:15432/sb --threads 8 --sla 'trx:p99<20ms'
  dbperf search sysbench point_select --target mysql://dbperf@127.0.0.1:13306/sb --table-size 1000000 --sla 'trx:p99.9<2ms'`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := cfg.SetTest(args[0]); err != nil {
				return err
			}
			if err := sysbenchModes(c, &cfg, psMode, ignore); err != nil {
				return err
			}
			if !c.Flags().Changed("seed") {
				sf.seed = randomSeed()
			}
			cfg.Seed = sf.seed
			cfg.Steps = append(append([]string(nil), sf.setup...), sf.step)
			if err := cfg.Validate(); err != nil {
				return err
			}
			if sf.step != sysbench.StepRun {
				return fmt.Errorf("--step %s: the step a search runs is %s", sf.step, sysbench.StepRun)
			}
			if len(sf.setup) == 0 || sf.setup[0] != sysbench.StepPrepare {
				return fmt.Errorf("--setup must be %s: the run step needs the sbtest tables", sysbench.StepPrepare)
			}
			return runSearch(c, sysbench.Name, sf, bindSysbench(cfg))
		},
	}
	f := c.Flags()
	f.SetNormalizeFunc(sysbenchNames)
	f.StringVar(&sf.target, "target", sf.target, "what to search on: sqlite[:FILE], postgres://..., mysql://... (see 'dbperf targets')")
	f.StringVar(&sf.step, "step", sf.step, "the step whose event rate is searched: run")
	f.StringSliceVar(&sf.setup, "setup", sf.setup, "the step that creates the tables, first (and again before each trial of insert and delete)")
	addSysbenchFlags(f, &cfg)
	f.IntVar(&cfg.Threads, "threads", cfg.Threads, "threads, each with its own connection (also --clients)")
	f.StringVar(&cfg.QueryMode, "query-mode", cfg.QueryMode, "prepared (sysbench's --db-ps-mode auto) or simple (--db-ps-mode disable)")
	f.StringVar(&psMode, "db-ps-mode", "", "sysbench's spelling of --query-mode: auto (prepared) or disable (simple)")
	f.StringVar(&ignore, "mysql-ignore-errors", ignore, "MySQL error numbers that restart the event instead of failing the trial, comma-separated, or all")
	addSearchFlags(f, &sf)
	return c
}

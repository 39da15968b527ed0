package main

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/spf13/cobra"
)

// searchLinkBenchCmd searches LinkBench's request step: the highest request rate, all ten
// request types together, at which every SLA holds. The request step adds and deletes links, so
// each trial starts from a graph loaded again.
func searchLinkBenchCmd() *cobra.Command {
	cfg := linkbench.DefaultConfig()
	sf := defaultSearchFlags(linkbench.StepRequest, []string{linkbench.StepLoad})
	c := &cobra.Command{
		Use:   "linkbench",
		Short: "Highest LinkBench request rate that meets the SLAs",
		Long: `search loads the graph (--setup, default load), then runs the request step again and again with
requests arriving open loop at a constant total rate (the ten request types in the mix's
proportions), each trial a warm-up that is archived but not judged and a measured part. The
request step adds and deletes links and nodes, so the graph is loaded again before every trial
after the first. A trial passes when every --sla holds over the measured part, at least 95% of
the offered requests a second completed (all request types together), and none was dropped.
The rate doubles after a pass and halves after a fail until one of each brackets the answer,
then bisects (on a log scale) to --resolution.`,
		Example: `  dbperf search linkbench --sla 'get_link_list:p99<5ms'
  dbperf search linkbench --target postgres://postgres@127.0.0.1:15432/lb --maxid 100001 --requesters 20 --sla 'add_link:p99<20ms' --sla 'get_link_list:p99<5ms'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("seed") {
				sf.seed = randomSeed()
			}
			cfg.Seed = sf.seed
			cfg.Steps = append(append([]string(nil), sf.setup...), sf.step)
			if err := cfg.Validate(); err != nil {
				return err
			}
			if len(sf.setup) == 0 || sf.setup[0] != linkbench.StepLoad {
				return fmt.Errorf("--setup must start with %s: the request step needs a loaded graph, loaded again before each trial", linkbench.StepLoad)
			}
			return runSearch(c, linkbench.Name, sf, bindLinkBench(cfg))
		},
	}
	f := c.Flags()
	f.StringVar(&sf.target, "target", sf.target, "what to search on (see 'dbperf targets')")
	f.StringVar(&sf.step, "step", sf.step, "the step whose request rate is searched: request")
	f.StringSliceVar(&sf.setup, "setup", sf.setup, "steps that load the graph, first and again before each trial")
	f.Int64Var(&cfg.MaxID, "maxid", cfg.MaxID, "ids are [startid, maxid)")
	f.IntVar(&cfg.Requesters, "requesters", cfg.Requesters, "clients of the request step")
	f.StringVar(&cfg.Mix, "mix", cfg.Mix, "request mix: 2013 or 2017")
	addLinkBenchQueryMode(f, &cfg)
	addSearchFlags(f, &sf)
	return c
}

package main

import (
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/kv"
	"github.com/spf13/cobra"
)

// searchKVCmd searches a key-value read step: the highest rate of its readers at which every
// SLA holds. The read steps keep the data as it is, so the trials run one after another after
// one load; --setup stays the engine's setup, as in 'run kv', and the load is --load-steps.
func searchKVCmd() *cobra.Command {
	cfg := kv.DefaultConfig()
	sf := defaultSearchFlags(kv.ReadRandom, []string{kv.FillSeq})
	sf.target, sf.cfg.Start = "pebble", 10000
	var cacheMB int64
	c := &cobra.Command{
		Use:   "kv",
		Short: "Highest read rate of a key-value step (readrandom, readwhilewriting, ...) that meets the SLAs",
		Long: `search loads the keys with --load-steps (default fillseq), then runs --step again and again
with its readers' operations arriving open loop at a constant total rate, each trial a warm-up
that is archived but not judged and a measured part. A trial passes when every --sla holds over
the measured part, at least 95% of the offered operations a second completed, and none was
dropped. The rate doubles after a pass and halves after a fail until one of each brackets the
answer, then bisects (on a log scale) to --resolution.

The steps a search can run read: ` + strings.Join(kv.SearchableSteps(), ", ") + `. Their keys and
data stay as they are (the whilewriting steps' writer overwrites keys at --writer-mbps, its own
pace, and is not searched), so the trials follow each other on one open engine, whose caches the
warm-up fills. The write steps are refused: each trial would leave compaction debt to the next.
--vary clients searches the readers' count (--threads) of a closed loop instead. See docs/kv.md.`,
		Example: `  dbperf search kv --sla 'get:p99<1ms'
  dbperf search kv --target rocksdb:/data/r --keys 10000000 --step readwhilewriting --sla 'get:p99<500us' --sla 'put:p99<5ms'
  dbperf search kv --step fwdrange --vary clients --sla 'fwdrange:p99.9<2ms'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("seed") {
				sf.seed = randomSeed()
			}
			cfg.Seed = sf.seed
			cfg.CacheBytes = cacheMB << 20
			cfg.Steps = append(append([]string(nil), sf.setup...), sf.step)
			if err := cfg.Validate(); err != nil {
				return err
			}
			if len(sf.setup) == 0 || sf.setup[0] != kv.FillSeq {
				return fmt.Errorf("--load-steps must start with %s: the step reads the keys it loads", kv.FillSeq)
			}
			bind := func(t driver.Target) (workload.Workload, error) {
				b, err := kv.New(cfg, t)
				if err != nil {
					return nil, err
				}
				if err := b.CheckSearch(sf.step); err != nil {
					return nil, err
				}
				return b, nil
			}
			return runSearch(c, kv.Name, sf, bind)
		},
	}
	f := c.Flags()
	f.StringVar(&sf.target, "target", sf.target, "engine: pebble[:DIR], rocksdb[:DIR], badger[:DIR], bbolt[:FILE], sqlite[:FILE]")
	f.StringVar(&sf.step, "step", sf.step, "the step whose readers' rate is searched: "+strings.Join(kv.SearchableSteps(), ", "))
	f.StringSliceVar(&sf.setup, "load-steps", sf.setup, "steps that load the database once before the trials, starting with fillseq")
	addKVFlags(f, &cfg, &cacheMB)
	addSearchFlags(f, &sf)
	return c
}

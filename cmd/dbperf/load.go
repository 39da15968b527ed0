package main

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/workload"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// loadFlags are the arrival flags every workload command has: how its request streams (the
// Insert Benchmark's queries, LinkBench's requests, key-value reads) arrive.
type loadFlags struct {
	arrival, rate string
	maxBacklog    int
}

func (l *loadFlags) add(f *pflag.FlagSet) {
	f.StringVar(&l.arrival, "arrival", "closed", "how requests arrive: closed (each client as fast as it can), or open loop at --rate: constant or poisson")
	f.StringVar(&l.rate, "rate", "", "open-loop arrivals per second in all (e.g. 20000) or per client (e.g. 500/client)")
	f.IntVar(&l.maxBacklog, "max-backlog", 100000, "open loop: arrivals that may wait for a free client; more are dropped and counted")
}

// seeded settles a run's seed, the --seed given or else a new one, and parses the arrival
// flags with it: every workload's run command starts so.
func (l *loadFlags) seeded(c *cobra.Command, seed *uint64) (workload.Arrival, error) {
	if !c.Flags().Changed("seed") {
		*seed = randomSeed()
	}
	return l.parse(*seed)
}

// parse checks the flags; seed is the run's, for the Poisson process's random stream.
func (l *loadFlags) parse(seed uint64) (workload.Arrival, error) {
	a, err := workload.ParseArrival(l.arrival, l.rate)
	if err != nil {
		return a, err
	}
	if l.maxBacklog < 1 {
		return a, fmt.Errorf("--max-backlog must be at least 1 (got %d)", l.maxBacklog)
	}
	a.MaxBacklog, a.Seed = l.maxBacklog, seed
	return a, nil
}

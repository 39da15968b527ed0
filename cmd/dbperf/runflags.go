package main

import (
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are the flags every `dbperf run WORKLOAD` command has beside its workload's own:
// what to run on (--target; --plan where the workload runs on servers), --seed, --out,
// --no-verify, the arrivals (--arrival, --rate, --max-backlog), --client-bound, and --shard
// with its friends for a workload that shards (shard.go). The output flags, --sla, --repeat
// and --warmup are `dbperf run`'s own persistent flags (output.go). A workload's command
// declares these with add, settles the seed and the arrivals with arrival, and runs with
// launch: three calls.
type runFlags struct {
	name, prefix string // the workload's name, and its run directories' (runs/PREFIX-NAME-DATE-TIME)
	targets      []string
	planFile     string
	out          string
	seed         uint64
	noVerify     bool
	load         loadFlags
}

// runSpec is what differs between the workloads' shared flags.
type runSpec struct {
	Target      string // the default --target
	TargetHelp  string // the target kinds the workload takes, for --target's help
	SeedHelp    string // --seed's help, when the workload says more than the common one
	Plan        bool   // --plan: the workload runs on servers a plan file starts
	ClientBound bool   // --client-bound: the workload runs on servers, whose client may bind
	Shard       bool   // --shard, --rendezvous, --start-at, --rendezvous-timeout, --run-id
}

// add defines the shared flags on f.
func (r *runFlags) add(f *pflag.FlagSet, s runSpec) {
	r.targets = []string{s.Target}
	f.StringArrayVar(&r.targets, "target", r.targets, "what to benchmark (repeat for several): "+s.TargetHelp+" (see 'dbperf targets')")
	if s.Plan {
		f.StringVar(&r.planFile, "plan", "", "a plan file of targets and servers x configs to run one after the other (see 'dbperf run insert --help')")
	}
	seedHelp := "seed of all random streams (default: a new one, printed and stored)"
	if s.SeedHelp != "" {
		seedHelp = s.SeedHelp
	}
	f.Uint64Var(&r.seed, "seed", 0, seedHelp)
	f.StringVar(&r.out, "out", "", "run directory (default runs/"+r.prefix+"-NAME-DATE-TIME); with several runs, the directory of their run directories")
	f.BoolVar(&r.noVerify, "no-verify", false, "skip the database checks after each step")
	r.load.add(f)
	if s.ClientBound {
		f.Float64Var(&clientBound, "client-bound", clientBound, "flag a step client-bound when dbperf uses at least this many cores of CPU (server targets)")
	}
	if s.Shard {
		sharding.add(f)
	}
}

// arrival settles the run's seed (--seed, or a new one) and parses the arrival flags with it.
func (r *runFlags) arrival(c *cobra.Command) (workload.Arrival, error) {
	return r.load.seeded(c, &r.seed)
}

// settle puts the run's arrivals and seed into a workload's config, then validates it.
func (r *runFlags) settle(c *cobra.Command, arrival *workload.Arrival, seed *uint64, validate func() error) error {
	a, err := r.arrival(c)
	if err != nil {
		return err
	}
	*arrival, *seed = a, r.seed
	return validate()
}

// launch is the runs of --target or --plan, with the workload bound to each opened target;
// needsData says why the first step needs an earlier run's data, if it does.
func (r *runFlags) launch(needsData string, bind func(driver.Target) (workload.Workload, error)) launch {
	return launch{workload: r.name, prefix: r.prefix, planFile: r.planFile, targets: r.targets, out: r.out, seed: r.seed,
		verify: !r.noVerify, needsData: needsData, bind: bind}
}

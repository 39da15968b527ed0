package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/dbperf/dbperf/internal/workload/linkbench/stores"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func runLinkBenchCmd() *cobra.Command {
	cfg := linkbench.DefaultConfig()
	var (
		rf      = runFlags{name: linkbench.Name, prefix: "lb"}
		steps   = cfg.Steps
		seconds time.Duration
	)
	c := &cobra.Command{
		Use:   "linkbench",
		Short: "LinkBench: a social graph loaded with Facebook's out-degrees, then its request mix",
		Long: `LinkBench (Facebook, SIGMOD 2013): the load step writes nodes and typed links with the
out-degrees of the shipped distribution, 10 link loaders on 2048-id chunks beside a node loader;
the request step runs the production mix of link and node reads and writes (--mix 2013, the
original's, or 2017, the mdcallag fork's refresh), each of the ten request types timed on its
own. After each step the counts are checked against the visible links.

Every size defaults small so the run takes seconds; the reference uses --maxid 10000001
--requesters 100 --requests 500000 (or --requests-seconds). Below 1M ids every id's out-degree
is capped at 1000 (--max-degree -1, auto): the top id gets 961,963 links whatever the number
of ids. See docs/linkbench.md.`,
		Example: `  dbperf run linkbench
  dbperf run linkbench --target pebble:/tmp/lb --maxid 1000001 --requesters 20 --requests-seconds 60
  dbperf run linkbench --target 'mysql://dbperf@127.0.0.1:13306/lb?engine=rocksdb' --maxid 10000001 --requesters 100 --requests-seconds 3600
  dbperf run linkbench --target postgres://postgres@127.0.0.1:5432/lb --steps request --arrival poisson --rate 15000 --requests 0 --requests-seconds 600
  dbperf run linkbench --mix 2017`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg.Steps = steps
			cfg.RequestTime = seconds
			var err error
			if cfg.Arrival, err = rf.arrival(c); err != nil {
				return err
			}
			cfg.Seed = rf.seed
			if err := sharding.forLinkBench(c, &cfg); err != nil { // --shard: shard.go
				return err
			}
			if err := errors.Join(checkDurations(map[string]time.Duration{"requests-seconds": seconds}), cfg.Validate()); err != nil {
				return err
			}
			if err := output.checkStepOps(cfg.Steps, linkbench.StepOps); err != nil {
				return err
			}
			needsData := ""
			if cfg.Steps[0] == linkbench.StepRequest {
				needsData = "the request step needs a loaded graph: run load first (e.g. --steps load,request)"
			}
			_, err = rf.launch(needsData, sharding.wrap(bindLinkBench(cfg))).run(c)
			return err
		},
	}
	f := c.Flags()
	rf.add(f, runSpec{Target: "sqlite", TargetHelp: "sqlite[:FILE], pebble[:DIR], bbolt[:FILE], postgres://..., mysql://...", Plan: true, ClientBound: true, Shard: true})
	f.Int64Var(&cfg.StartID, "startid", cfg.StartID, "first id (startid1)")
	f.Int64Var(&cfg.MaxID, "maxid", cfg.MaxID, "ids are [startid, maxid) (maxid1; the reference: 10000001, about 10 GB)")
	f.Int64Var(&cfg.MaxDegree, "max-degree", cfg.MaxDegree, "cap on an id's out-degree: 0 none (the original), -1 auto (none from 1M ids, 1000 below)")
	f.IntVar(&cfg.Loaders, "loaders", cfg.Loaders, "link loaders of the load step (a node loader runs beside them)")
	f.IntVar(&cfg.Requesters, "requesters", cfg.Requesters, "clients of the request step, each with its own connection (the reference: 100)")
	f.Int64Var(&cfg.Requests, "requests", cfg.Requests, "requests per requester (the reference: 500000); 0 for no limit, with --requests-seconds")
	f.DurationVar(&seconds, "requests-seconds", 0, "end the request step after this long (e.g. 1h), like the reference's maxtime")
	f.StringVar(&cfg.Mix, "mix", cfg.Mix, "request mix and distribution file: 2013 (the original) or 2017 (mdcallag/linkbench)")
	f.IntVar(&cfg.Partitions, "partitions", 0, "MySQL: PARTITION BY KEY(id1) PARTITIONS n on linktable, as the reference's DDL (16); 0 for none")
	addLinkBenchQueryMode(f, &cfg)
	f.IntVar(&cfg.Retries, "retries", cfg.Retries, "retries of a failed operation (deadlock, lock wait timeout) before the step fails; each counts as an error of its op type")
	f.StringSliceVar(&steps, "steps", steps, "steps to run, in order: load, request")
	return c
}

// bindLinkBench makes LinkBench for an opened target.
func bindLinkBench(cfg linkbench.Config) func(driver.Target) (workload.Workload, error) {
	return func(t driver.Target) (workload.Workload, error) {
		store, err := stores.For(t, stores.Options{Partitions: cfg.Partitions, QueryMode: cfg.QueryMode})
		if err != nil {
			return nil, err
		}
		b, err := linkbench.New(cfg, store)
		if err != nil {
			return nil, err
		}
		// A run that starts with the request step needs a loaded graph: fail before the run
		// directory exists.
		return b, b.CheckStart(context.Background())
	}
}

// addLinkBenchQueryMode defines LinkBench's --query-mode, which run and search share.
func addLinkBenchQueryMode(f *pflag.FlagSet, cfg *linkbench.Config) {
	f.StringVar(&cfg.QueryMode, "query-mode", "", "how SQL statements with arguments are sent (pgbench's names): simple (text with the values written in; MySQL's default, the original's) or prepared (prepared on the server once per connection, as the mdcallag fork's Connector/J with useServerPrepStmts; PostgreSQL's and SQLite's only mode)")
}

// addQueryModeFlags defines the Insert Benchmark's --query-mode (simple or prepared, pgbench's
// names, as on run linkbench) and --prepared, its older spelling: --prepared is --query-mode
// prepared and --prepared=false --query-mode simple; both may be given when they agree.
// prepared is the mode's one setting.
func addQueryModeFlags(f *pflag.FlagSet, prepared *bool) {
	s := &queryModeState{prepared: prepared}
	f.Var(queryModeValue{s}, "query-mode", "simple or prepared (pgbench's names): prepared prepares range and point queries and deletes (MySQL/MariaDB, and PostgreSQL's deletes); simple, the default, sends them as the reference sends them (SQL text on MySQL; PostgreSQL's queries prepared, as np.sh's --use_prepared_query)")
	f.Var(preparedValue{s}, "prepared", "the same as --query-mode prepared")
	f.Lookup("prepared").NoOptDefVal = "true"
}

// queryModeState is what --query-mode or --prepared chose, and which flag chose it.
type queryModeState struct {
	prepared *bool
	mode     string // "" until a flag is given
	by       string
}

func (s *queryModeState) choose(mode, by string) error {
	if s.mode != "" && s.mode != mode {
		return fmt.Errorf("%s conflicts with %s", by, s.by)
	}
	s.mode, s.by = mode, by
	*s.prepared = mode == "prepared"
	return nil
}

type queryModeValue struct{ s *queryModeState }

func (v queryModeValue) Set(x string) error {
	if x != "simple" && x != "prepared" {
		return fmt.Errorf("give simple or prepared")
	}
	return v.s.choose(x, "--query-mode "+x)
}

func (v queryModeValue) String() string {
	if v.s != nil && *v.s.prepared {
		return "prepared"
	}
	return "simple"
}

func (v queryModeValue) Type() string { return "string" }

type preparedValue struct{ s *queryModeState }

func (v preparedValue) Set(x string) error {
	b, err := strconv.ParseBool(x)
	if err != nil {
		return err
	}
	mode := "simple"
	if b {
		mode = "prepared"
	}
	return v.s.choose(mode, "--prepared="+x)
}

func (v preparedValue) String() string { return strconv.FormatBool(v.s != nil && *v.s.prepared) }
func (v preparedValue) Type() string   { return "bool" }

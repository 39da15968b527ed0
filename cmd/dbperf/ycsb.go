package main

import (
	"context"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/dbperf/dbperf/internal/workload/ycsb/ycsbdb"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func runYCSBCmd() *cobra.Command {
	cfg := ycsb.DefaultConfig()
	var (
		rf      = runFlags{name: ycsb.Name, prefix: "ycsb"}
		name    = "a"
		seconds float64
	)
	c := &cobra.Command{
		Use:   "ycsb",
		Short: "YCSB's core workloads A-F: a load phase, then reads, updates, inserts, scans, read-modify-writes",
		Long: `YCSB's CoreWorkload (0.17.0): the load step inserts --records records of --field-count fields of
--field-length bytes under YCSB's keys (user + the FNV hash of the key number, insertorder
hashed); the run step does --operations operations in the workload file's proportions, picking
keys with its request distribution (zipfian is YCSB's scrambled zipfian; latest favours the
newest inserts). Key-value engines hold each record under its key; SQL targets hold usertable
as YCSB's JDBC binding lays it out. After each step the records are counted. See docs/ycsb.md.`,
		Example: `  dbperf run ycsb --workload a --records 1000000 --operations 10000000 --target pebble --target postgres://...
  dbperf run ycsb --workload e --threads 8 --target mysql://dbperf@127.0.0.1:13306/y
  dbperf run ycsb --workload b --steps run --step-seconds 60 --arrival poisson --rate 20000 --target rocksdb:/data/y`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := applyYCSBWorkload(c, &cfg, name); err != nil {
				return err
			}
			if seconds > 0 {
				cfg.Duration = time.Duration(seconds * float64(time.Second))
				if !c.Flags().Changed("operations") {
					cfg.OperationCount = 0
				}
			}
			if err := rf.settle(c, &cfg.Arrival, &cfg.Seed, cfg.Validate); err != nil {
				return err
			}
			if err := sharding.forYCSB(c, &cfg); err != nil { // --shard: shard.go
				return err
			}
			needsData := ""
			if cfg.Steps[0] == ycsb.StepRun {
				needsData = "the run step needs a loaded usertable: run load first (--steps load,run)"
			}
			_, err := rf.launch(needsData, sharding.wrap(bindYCSB(cfg))).run(c)
			return err
		},
	}
	f := c.Flags()
	rf.add(f, runSpec{Target: "pebble", TargetHelp: "pebble[:DIR], rocksdb:DIR, badger[:DIR], bbolt[:FILE], sqlite[:FILE], postgres://..., mysql://...",
		Plan: true, ClientBound: true, Shard: true})
	f.Int64Var(&cfg.OperationCount, "operations", cfg.OperationCount, "operationcount: operations of the run step, all threads together")
	addYCSBFlags(f, &cfg, &name)
	f.Float64Var(&seconds, "step-seconds", 0, "end the run step after this many seconds (maxexecutiontime): with --operations, at whichever comes first; with none, run that long")
	f.StringSliceVar(&cfg.Steps, "steps", cfg.Steps, "steps to run, in order: load, run")
	return c
}

// addYCSBFlags defines YCSB's properties as flags, which run ycsb and search ycsb share.
func addYCSBFlags(f *pflag.FlagSet, cfg *ycsb.Config, name *string) {
	f.StringVar(name, "workload", *name, "the core workload: a (50/50 reads and updates), b (95/5), c (reads), d (reads of the latest inserts), e (short scans), f (read-modify-write)")
	f.Int64Var(&cfg.RecordCount, "records", cfg.RecordCount, "recordcount: records the load step inserts")
	f.IntVar(&cfg.FieldCount, "field-count", cfg.FieldCount, "fieldcount")
	f.IntVar(&cfg.FieldLength, "field-length", cfg.FieldLength, "fieldlength (constant)")
	f.BoolVar(&cfg.WriteAllFields, "write-all-fields", cfg.WriteAllFields, "writeallfields: updates write every field, not one")
	f.BoolVar(&cfg.ReadAllFields, "read-all-fields", cfg.ReadAllFields, "readallfields")
	f.String("request-distribution", "", "requestdistribution: uniform, zipfian, latest, hotspot, sequential or exponential (default: the workload's)")
	f.StringVar(&cfg.InsertOrder, "insert-order", cfg.InsertOrder, "insertorder: hashed or ordered")
	f.IntVar(&cfg.ZeroPadding, "zero-padding", cfg.ZeroPadding, "zeropadding of the key number")
	f.Int64Var(&cfg.InsertStart, "insert-start", 0, "insertstart: the first key number this load inserts; a load of part of --records keeps usertable's records, so several loaders share one table (docs/ycsb.md)")
	f.Int64Var(&cfg.InsertCount, "insert-count", 0, "insertcount: records this load inserts (default records - insert-start); only a load of every record drops and recreates usertable")
	f.Float64Var(&cfg.HotData, "hotspot-data-fraction", cfg.HotData, "hotspotdatafraction")
	f.Float64Var(&cfg.HotOpn, "hotspot-opn-fraction", cfg.HotOpn, "hotspotopnfraction")
	f.IntVar(&cfg.Clients, "threads", cfg.Clients, "threadcount: clients, each with its own connection")
	f.StringVar(&cfg.QueryMode, "query-mode", "", "SQL targets: how statements are sent (pgbench's -M names): simple (values written into the text), extended (parsed at every execution) or prepared (once per connection, as the JDBC binding's PreparedStatements; the default)")
}

// applyYCSBWorkload sets the workload file's properties, then a --request-distribution given.
func applyYCSBWorkload(c *cobra.Command, cfg *ycsb.Config, name string) error {
	if err := cfg.ApplyWorkload(name); err != nil {
		return err
	}
	if c.Flags().Changed("request-distribution") {
		cfg.Distribution, _ = c.Flags().GetString("request-distribution")
	}
	return nil
}

// bindYCSB makes YCSB for an opened target.
func bindYCSB(cfg ycsb.Config) func(driver.Target) (workload.Workload, error) {
	return func(t driver.Target) (workload.Workload, error) {
		store, err := ycsbdb.ForMode(t, cfg.QueryMode)
		if err != nil {
			return nil, err
		}
		b, err := ycsb.New(cfg, store)
		if err != nil {
			return nil, err
		}
		return b, b.CheckStart(context.Background())
	}
}

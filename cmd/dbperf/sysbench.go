package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/sysbench"
	"github.com/dbperf/dbperf/internal/workload/sysbench/sbsql"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sysbenchAliases are sysbench's and the other run commands' spellings of run sysbench's flags.
var sysbenchAliases = map[string]string{"clients": "threads", "step-seconds": "time", "rand-seed": "seed"}

func runSysbenchCmd() *cobra.Command {
	cfg := sysbench.DefaultConfig()
	var (
		rf      = runFlags{name: sysbench.Name, prefix: "sysbench"}
		seconds = cfg.Duration.Seconds()
		psMode  string
		ignore  = "1213,1020,1205"
	)
	c := &cobra.Command{
		Use:   "sysbench TEST",
		Short: "sysbench 1.0.20's OLTP tests: read_write, read_only, write_only, point_select, update_index, update_non_index, insert, delete",
		Long: `sysbench 1.0.20's oltp_*.lua on PostgreSQL, MySQL/MariaDB (InnoDB or MyRocks: the target's
engine=) and SQLite: the prepare step creates --tables sbtest tables of --table-size rows as
'sysbench TEST prepare' does (k drawn with --rand-type, c and pad random digits, the k index
after the load); the run step runs the test's event (one "transaction": BEGIN, point selects,
ranges, updates, a delete and insert, COMMIT; or one statement) on --threads connections for
--time seconds or --events events. Ids follow --rand-type (special by default, as sysbench's).
Statements are prepared on the server (sysbench's --db-ps-mode auto) unless --query-mode simple.
The figures are sysbench's: transactions/s (tps), queries/s (qps: reads, writes, other) and the
95th percentile latency; deadlocks and the errors --mysql-ignore-errors names restart the event
and are counted. sysbench's underscore spellings (--table_size) are accepted. See docs/sysbench.md.`,
		Example: `  dbperf run sysbench read_write --target postgres://postgres@127.0.0.1:5432/sb --tables 4 --table-size 100000 --threads 8 --time 60
  dbperf run sysbench oltp_point_select --target "mysql://dbperf@127.0.0.1:13306/sb?engine=rocksdb" --rand-type uniform
  dbperf run sysbench read_only --steps run --target mysql://... --arrival poisson --rate 2000 --sla 'trx:p99<20ms'`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := cfg.SetTest(args[0]); err != nil {
				return err
			}
			cfg.Duration = time.Duration(seconds * float64(time.Second))
			if f := c.Flags(); f.Changed("rate") && !f.Changed("arrival") {
				rate := f.Lookup("rate").Value.String()
				return fmt.Errorf("--rate %s needs an arrival process: sysbench's --rate %s is --arrival poisson --rate %s: add --arrival poisson (or --arrival constant for even gaps; docs/sysbench.md)", rate, rate, rate)
			}
			if err := sysbenchModes(c, &cfg, psMode, ignore); err != nil {
				return err
			}
			if err := rf.settle(c, &cfg.Arrival, &cfg.Seed, cfg.Validate); err != nil {
				return err
			}
			if err := sharding.forSysbench(c, &cfg); err != nil { // --shard: shard.go
				return err
			}
			needsData := ""
			if cfg.Steps[0] == sysbench.StepRun {
				needsData = "the run step needs the sbtest tables: run prepare first (--steps prepare,run)"
			}
			_, err := rf.launch(needsData, sharding.wrap(bindSysbench(cfg))).run(c)
			return err
		},
	}
	f := c.Flags()
	f.SetNormalizeFunc(sysbenchNames)
	rf.add(f, runSpec{Target: "sqlite", TargetHelp: "sqlite[:FILE], postgres://..., mysql://...[?engine=rocksdb]", Plan: true, ClientBound: true, Shard: true,
		SeedHelp: "seed of all random streams (also --rand-seed; default: a new one, printed and stored)"})
	addSysbenchFlags(f, &cfg)
	f.IntVar(&cfg.Threads, "threads", cfg.Threads, "threads, each with its own connection (also --clients)")
	f.Float64Var(&seconds, "time", seconds, "seconds of the run step (also --step-seconds); 0: until --events")
	f.Int64Var(&cfg.Events, "events", 0, "events (transactions) of the run step in all; 0: no limit")
	f.StringVar(&cfg.QueryMode, "query-mode", cfg.QueryMode, "prepared (sysbench's --db-ps-mode auto: server-side prepared statements) or simple (--db-ps-mode disable: values written into the text)")
	f.StringVar(&psMode, "db-ps-mode", "", "sysbench's spelling of --query-mode: auto (prepared) or disable (simple)")
	f.StringVar(&ignore, "mysql-ignore-errors", ignore, "MySQL error numbers that restart the event instead of failing the run, comma-separated, or all")
	f.StringSliceVar(&cfg.Steps, "steps", cfg.Steps, "steps to run, in order: prepare, run")
	return c
}

// forSysbench checks the shard flags and gives the test this shard's threads (and so the
// prepare threads and tables among them), its share of --events and of an open-loop rate. The
// threads of every shard share the tables, so shard 0 checks them once every shard is done.
func (s *shardFlags) forSysbench(c *cobra.Command, cfg *sysbench.Config) error {
	if err := s.check(c, sysbench.Name, cfg.Seed); err != nil || !s.parsed.Sharded() {
		return err
	}
	if err := s.parsed.CheckClients("threads", cfg.Threads); err != nil {
		return err
	}
	lo, hi := s.parsed.Range(int64(cfg.Threads))
	cfg.ThreadFrom, cfg.ThreadTo, cfg.Sharded = int(lo), int(hi), true
	s.prov.Work = map[string][2]int64{"threads": {lo, hi}}
	s.settings = map[string]any{"arrival": cfg.Arrival.String(), "events": cfg.Events}
	if cfg.Events > 0 {
		cfg.Events = s.parsed.Shares(cfg.Events)
	}
	cfg.Arrival = s.arrivalShare(cfg.Arrival)
	s.conns = cfg.Threads + 3*s.parsed.Count // threads; admin, monitor, rendezvous
	s.checksFirst = true
	return nil
}

// sysbenchNames accepts sysbench's underscore spellings and the aliases.
func sysbenchNames(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	name = strings.ReplaceAll(name, "_", "-")
	if a, ok := sysbenchAliases[name]; ok {
		name = a
	}
	return pflag.NormalizedName(name)
}

// addSysbenchFlags defines oltp_common.lua's options and the --rand-* options, for run and search.
func addSysbenchFlags(f *pflag.FlagSet, cfg *sysbench.Config) {
	f.IntVar(&cfg.Tables, "tables", cfg.Tables, "number of tables")
	f.Int64Var(&cfg.TableSize, "table-size", cfg.TableSize, "rows per table")
	f.Int64Var(&cfg.RangeSize, "range-size", cfg.RangeSize, "rows of each range SELECT")
	f.IntVar(&cfg.PointSelects, "point-selects", cfg.PointSelects, "point SELECTs per transaction (point_select always runs 1)")
	f.IntVar(&cfg.SimpleRanges, "simple-ranges", cfg.SimpleRanges, "simple range SELECTs per transaction")
	f.IntVar(&cfg.SumRanges, "sum-ranges", cfg.SumRanges, "SELECT SUM() ranges per transaction")
	f.IntVar(&cfg.OrderRanges, "order-ranges", cfg.OrderRanges, "SELECT ... ORDER BY ranges per transaction")
	f.IntVar(&cfg.DistinctRanges, "distinct-ranges", cfg.DistinctRanges, "SELECT DISTINCT ranges per transaction")
	f.IntVar(&cfg.IndexUpdates, "index-updates", cfg.IndexUpdates, "UPDATEs of the indexed k per transaction (update_index: per event)")
	f.IntVar(&cfg.NonIndexUpdates, "non-index-updates", cfg.NonIndexUpdates, "UPDATEs of c per transaction (update_non_index: per event)")
	f.IntVar(&cfg.DeleteInserts, "delete-inserts", cfg.DeleteInserts, "DELETE/INSERT pairs per transaction")
	f.BoolVar(&cfg.RangeSelects, "range-selects", cfg.RangeSelects, "run the range SELECTs (--range-selects=off: none)")
	f.BoolVar(&cfg.AutoInc, "auto-inc", cfg.AutoInc, "ids from SERIAL/AUTO_INCREMENT on load and insert; off: written by the client")
	f.BoolVar(&cfg.SkipTrx, "skip-trx", cfg.SkipTrx, "no BEGIN/COMMIT: every statement in autocommit")
	f.BoolVar(&cfg.CreateSecondary, "create-secondary", cfg.CreateSecondary, "create the index k_N on k after the load")
	f.StringVar(&cfg.Rand.Type, "rand-type", cfg.Rand.Type, "distribution of ids and k: uniform, gaussian, special or pareto")
	f.IntVar(&cfg.Rand.SpecIter, "rand-spec-iter", cfg.Rand.SpecIter, "uniforms averaged by gaussian and special")
	f.IntVar(&cfg.Rand.SpecPct, "rand-spec-pct", cfg.Rand.SpecPct, "special: width of the hot band, % of the range")
	f.IntVar(&cfg.Rand.SpecRes, "rand-spec-res", cfg.Rand.SpecRes, "special: % of values drawn in the hot band")
	f.Float64Var(&cfg.Rand.ParetoH, "rand-pareto-h", cfg.Rand.ParetoH, "pareto: shape h")
}

// sysbenchModes reads --db-ps-mode into --query-mode and --mysql-ignore-errors into cfg.
func sysbenchModes(c *cobra.Command, cfg *sysbench.Config, psMode, ignore string) error {
	if psMode != "" {
		mode := map[string]string{"auto": sysbench.QueryPrepared, "disable": sysbench.QuerySimple}[psMode]
		if mode == "" {
			return fmt.Errorf("--db-ps-mode %q: give auto or disable", psMode)
		}
		if c.Flags().Changed("query-mode") && cfg.QueryMode != mode {
			return fmt.Errorf("--db-ps-mode %s and --query-mode %s disagree: give one", psMode, cfg.QueryMode)
		}
		cfg.QueryMode = mode
	}
	cfg.IgnoreErrors, cfg.IgnoreAll = nil, false
	for _, s := range strings.Split(ignore, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if s == "all" {
			cfg.IgnoreAll = true
			continue
		}
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil {
			return fmt.Errorf("--mysql-ignore-errors %q: give error numbers separated by commas, or all", ignore)
		}
		cfg.IgnoreErrors = append(cfg.IgnoreErrors, uint16(n))
	}
	return nil
}

// bindSysbench makes the test for an opened target.
func bindSysbench(cfg sysbench.Config) func(driver.Target) (workload.Workload, error) {
	return func(t driver.Target) (workload.Workload, error) {
		store, err := sbsql.For(t, sbsql.Options{QueryMode: cfg.QueryMode, IgnoreErrors: cfg.IgnoreErrors,
			IgnoreAll: cfg.IgnoreAll, Used: cfg.Event().Used(), Tables: cfg.Tables})
		if err != nil {
			return nil, err
		}
		b, err := sysbench.New(cfg, store)
		if err != nil {
			return nil, err
		}
		return b, b.CheckStart(context.Background())
	}
}

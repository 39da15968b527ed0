package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scriptFlags are run script's own flags, beside the config they fill.
type scriptFlags struct {
	files, builtins, defines, checks []string
	name, mode                       string
	seconds                          float64
}

func runScriptCmd() *cobra.Command {
	cfg := script.DefaultConfig()
	var (
		sf    scriptFlags
		rf    = runFlags{name: script.Name, prefix: "script"}
		steps []string
	)
	c := &cobra.Command{
		Use:   "script",
		Short: "pgbench scripts (yours, or tpcb-like, simple-update, select-only) on any SQL target",
		Long: `Runs scripts in pgbench's language: SQL with :variables, \set with pgbench's expressions and
random functions, \sleep, \if/\elif/\else/\endif, \gset and \aset; several scripts with FILE@WEIGHT.
Each script is an op type named after its file (or --name); one run of it is a transaction.
--builtin runs pgbench's own (tpcb-like, simple-update, select-only) after an init step that
creates and loads pgbench's tables at --scale, and checks afterwards that the balances add up.
--query-mode is pgbench's -M, --per-statement its -r, --max-tries its retries of serialization
failures and deadlocks; --sla is its --latency-limit and --arrival poisson --rate its -R.
See docs/script.md.`,
		Example: `  dbperf run script --file my.sql --target postgres://postgres@127.0.0.1:5432/db --clients 16 --step-seconds 60
  dbperf run script --builtin tpcb-like --scale 10 --target postgres://... --query-mode prepared --step-seconds 60
  dbperf run script --file a.sql@9 --file b.sql@1 --target mysql://... --arrival poisson --rate 5000 --sla 'a:p99<5ms'
  dbperf run script --file my.sql --define nrows=1000 --check 'SELECT count(*) FROM t = 1000'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := sf.apply(c, &cfg, steps); err != nil {
				return err
			}
			if err := rf.settle(c, &cfg.Arrival, &cfg.Seed, cfg.Validate); err != nil {
				return err
			}
			if err := sharding.forScript(c, &cfg); err != nil { // --shard: shard.go
				return err
			}
			if err := sf.checkSLAs(cfg); err != nil {
				return err
			}
			needsData := ""
			if cfg.Builtin() && cfg.Steps[0] != script.StepInit {
				needsData = "the built-in scripts need pgbench's tables: run the init step first (--steps init,run)"
			}
			_, err := rf.launch(needsData, sharding.wrap(bindScript(cfg))).run(c)
			return err
		},
	}
	f := c.Flags()
	sf.add(f, &cfg)
	rf.add(f, runSpec{Target: "sqlite", TargetHelp: "sqlite[:FILE], postgres://..., mysql://...", Plan: true, ClientBound: true, Shard: true,
		SeedHelp: "the random seed (pgbench --random-seed): the first run step draws what pgbench draws with it (default: a new one, printed and stored)"})
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "clients, each with its own connection (pgbench -c)")
	f.Int64Var(&cfg.Transactions, "transactions", cfg.Transactions, "transactions per client (pgbench -t); 0 with --step-seconds")
	f.Float64Var(&sf.seconds, "step-seconds", 0, "run for this many seconds (pgbench -T), with no limit on transactions unless --transactions is given")
	f.StringSliceVar(&steps, "steps", nil, "steps to run, in order: init (the built-in scripts' tables), run (default: init,run with --builtin, else run)")
	return c
}

// add defines the flags of the scripts and how they run, which run script and search script
// share.
func (sf *scriptFlags) add(f *pflag.FlagSet, cfg *script.Config) {
	f.StringArrayVar(&sf.files, "file", nil, "a pgbench script, FILE[@WEIGHT] (repeat for several); its op type is the file's name without extension")
	f.StringArrayVar(&sf.builtins, "builtin", nil, "a built-in script, NAME[@WEIGHT]: tpcb-like, simple-update, select-only (any unambiguous prefix)")
	f.StringVar(&sf.name, "name", "", "the op type of the only --file (default: the file's name without extension)")
	f.StringVar(&sf.mode, "query-mode", "simple", "how SQL is sent (pgbench -M): simple, extended or prepared")
	f.BoolVar(&cfg.PerStatement, "per-statement", false, "time each SQL command as its own op type SCRIPT.N (pgbench -r); closed loop only")
	f.IntVar(&cfg.MaxTries, "max-tries", cfg.MaxTries, "tries of a transaction that fails with a serialization failure or deadlock (pgbench --max-tries); 0 unlimited, with --step-seconds")
	f.IntVar(&cfg.Scale, "scale", cfg.Scale, "scale of the init step (pgbench -s: 100,000 accounts each); :scale of your scripts")
	f.StringArrayVar(&sf.defines, "define", nil, "set a variable, NAME=VALUE (pgbench -D; repeat for several)")
	f.BoolVar(&cfg.NoVacuum, "no-vacuum", false, "built-in scripts: do not vacuum and empty pgbench_history before a run (pgbench -n)")
	f.BoolVarP(&cfg.ConnectEach, "connect-per-transaction", "C", false, "a new connection for each transaction (pgbench -C); in a closed loop timed as its own op type, connect")
	f.StringVar(&cfg.Init.Steps, "init-steps", cfg.Init.Steps, "the init step's steps, pgbench -I: d drop, t create tables, g/G generate client/server side, v vacuum, p primary keys, f foreign keys")
	f.IntVar(&cfg.Init.Fillfactor, "fillfactor", cfg.Init.Fillfactor, "init: fillfactor of pgbench_accounts, _tellers, _branches, 10 to 100 (pgbench -F; PostgreSQL)")
	f.IntVar(&cfg.Init.Partitions, "partitions", 0, "init: split pgbench_accounts into this many partitions (pgbench --partitions; PostgreSQL)")
	f.StringVar(&cfg.Init.PartitionMethod, "partition-method", "", "init: range or hash, with --partitions (default range)")
	f.StringArrayVar(&sf.checks, "check", nil, "after each run step, 'SQL = VALUE': the query's first value must equal VALUE (repeat for several)")
}

// apply fills cfg from the flags: scripts, query mode, checks, definitions, length, steps.
func (sf *scriptFlags) apply(c *cobra.Command, cfg *script.Config, steps []string) error {
	var err error
	if cfg.Sources, err = sf.sources(); err != nil {
		return err
	}
	if cfg.Mode, err = script.ParseMode(sf.mode); err != nil {
		return err
	}
	for _, s := range sf.checks {
		ck, err := script.ParseCheck(s)
		if err != nil {
			return err
		}
		cfg.Checks = append(cfg.Checks, ck)
	}
	cfg.Defines = sf.defines
	if c.Flags().Changed("init-steps") && strings.TrimSpace(cfg.Init.Steps) == "" {
		return errors.New("--init-steps has no step: give pgbench's letters, e.g. dtgvp (pgbench.c:5226-5227)")
	}
	if sf.seconds > 0 {
		cfg.Duration = time.Duration(sf.seconds * float64(time.Second))
		if !c.Flags().Changed("transactions") {
			cfg.Transactions = 0
		}
	}
	cfg.Steps = steps
	if len(steps) == 0 {
		cfg.Steps = []string{script.StepRun}
		if cfg.Builtin() {
			cfg.Steps = []string{script.StepInit, script.StepRun}
		}
	}
	return nil
}

// sources reads --file and --builtin: the last @ separates a weight (pgbench.c:6178-6211).
func (sf *scriptFlags) sources() ([]script.Source, error) {
	var out []script.Source
	for _, arg := range sf.files {
		path, w, err := splitWeight(arg)
		if err != nil {
			return nil, err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", path, err)
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if sf.name != "" {
			if len(sf.files) != 1 {
				return nil, fmt.Errorf("--name names the only --file; with %d files, name them by their file names", len(sf.files))
			}
			name = sf.name
		}
		out = append(out, script.Source{Name: name, Text: string(text), Weight: w})
	}
	for _, arg := range sf.builtins {
		name, w, err := splitWeight(arg)
		if err != nil {
			return nil, err
		}
		out = append(out, script.Source{Builtin: name, Weight: w})
	}
	return out, nil // their names are checked with the rest of the config (script.Config.Validate)
}

func splitWeight(arg string) (string, int, error) {
	i := strings.LastIndex(arg, "@")
	if i < 0 {
		return arg, 1, nil
	}
	w, err := strconv.Atoi(arg[i+1:])
	if err != nil || w < 0 {
		return "", 0, fmt.Errorf("%q: the weight after @ must be an integer of 0 or more", arg)
	}
	return arg[:i], w, nil
}

// checkSLAs parses the scripts and fails, before any server starts, on a script error or an
// SLA that names none of their op types (with --per-statement, SCRIPT.N).
func (sf *scriptFlags) checkSLAs(cfg script.Config) error {
	syms := script.NewSymbols()
	var scripts []*script.Script
	for _, src := range cfg.Sources {
		name, text := src.Name, src.Text
		if src.Builtin != "" {
			full, t, err := script.BuiltinText(src.Builtin, "postgres")
			if err != nil {
				return err
			}
			name, text = full, t
		}
		sc, err := script.Parse(name, text, syms) // a script's errors, before any server starts
		if err != nil {
			return err
		}
		scripts = append(scripts, sc)
	}
	ops, _, _ := script.Ops(scripts, cfg.PerStatement, cfg.ConnectEach)
	return output.checkOps(script.Name, ops)
}

// bindScript makes the script workload for an opened target.
func bindScript(cfg script.Config) func(driver.Target) (workload.Workload, error) {
	return func(t driver.Target) (workload.Workload, error) {
		store, err := scriptsql.For(t)
		if err != nil {
			return nil, err
		}
		return script.New(cfg, store)
	}
}

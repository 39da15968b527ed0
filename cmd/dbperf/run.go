package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/target"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/spf13/cobra"
)

func runCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "run WORKLOAD",
		Short: "Run a workload against a target into a new run directory",
	}
	c.AddCommand(runInsertCmd())
	return c
}

func runInsertCmd() *cobra.Command {
	cfg := insertbench.DefaultConfig()
	var (
		targetStr  = "sqlite"
		tables     = "per-client"
		steps      = strings.Join(cfg.Steps, ",")
		out        string
		seed       uint64
		noVerify   bool
		settleWait time.Duration
	)
	c := &cobra.Command{
		Use:   "insert",
		Short: "The Insert Benchmark: l.i0, l.x, l.i1, l.i2, settle, qr100 ... qp1000",
		Long: `The Insert Benchmark (iibench): load rows in primary key order (l.i0), create three
secondary indexes (l.x), insert rows random with respect to them while deleting as many of the
oldest (l.i1 with 50 rows per statement, l.i2 with 5), settle the DBMS, then run range (qr) or
point (qp) queries as fast as possible while each client inserts (and deletes) at a fixed rate:
100, 500 and 1000 rows per second.

Every size defaults small so the run takes seconds; the published runs use e.g.
--rows 20000000 --l1-rows 40000000 --q-seconds 1800 --clients 8.`,
		Example: `  dbperf run insert
  dbperf run insert --target pebble:/tmp/ib --clients 4 --rows 2000000 --steps l.i0,l.x,l.i1,l.i2,qr100,qp100
  dbperf run insert --target postgres://postgres@127.0.0.1:5432/ib --tables shared --out runs/pg-shared`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			switch tables {
			case "per-client":
				cfg.SharedTable = false
			case "shared":
				cfg.SharedTable = true
			default:
				return fmt.Errorf("--tables must be per-client or shared (got %q)", tables)
			}
			cfg.Steps = splitList(steps)
			cfg.SettleWait = settleWait
			if !c.Flags().Changed("seed") {
				seed = randomSeed()
			}
			cfg.Seed = seed
			if err := cfg.Validate(); err != nil {
				return err
			}
			spec, err := target.Parse(targetStr)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("runs", fmt.Sprintf("insert-%s-%s", spec.Kind, time.Now().Format("20060102-150405")))
			}
			return runWorkload(c, "insert", spec, out, seed, !noVerify, func(t target.Target) (workload.Workload, error) {
				store, ok := t.(insertbench.Store)
				if !ok {
					return nil, fmt.Errorf("target %s cannot run the Insert Benchmark", spec)
				}
				return insertbench.New(cfg, store)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&targetStr, "target", targetStr, "what to benchmark: sqlite[:FILE], pebble[:DIR], bbolt[:FILE], postgres://USER[:PASSWORD]@HOST:PORT/DB (see 'dbperf targets')")
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "clients; each has an inserter, a deleter and a querier with their own connections")
	f.StringVar(&tables, "tables", tables, "per-client (a table per client) or shared (one table for all)")
	f.Int64Var(&cfg.Rows, "rows", cfg.Rows, "rows each client loads in l.i0")
	f.Int64Var(&cfg.L1Rows, "l1-rows", cfg.L1Rows, "rows each client inserts and deletes in l.i1 (l.i2 does a quarter)")
	f.Float64Var(&cfg.QSeconds, "q-seconds", cfg.QSeconds, "length of each q step at its insert rate: each client inserts rate x q-seconds rows")
	f.StringVar(&steps, "steps", steps, "steps to run, in order")
	f.IntVar(&cfg.Data.Min, "data-min", cfg.Data.Min, "shortest data column")
	f.IntVar(&cfg.Data.Max, "data-max", cfg.Data.Max, "longest data column")
	f.IntVar(&cfg.Data.RandomPct, "data-random-pct", cfg.Data.RandomPct, "the reference's data_random_pct: 0.75 x this % of data is random, the rest constant")
	f.DurationVar(&settleWait, "settle-wait", 0, "how long the settle step waits after flushing (e.g. 5m)")
	f.IntVar(&cfg.Retries, "retries", cfg.Retries, "retries of a failed statement before the step fails")
	f.Uint64Var(&seed, "seed", 0, "seed of all random streams (default: a new one, printed and stored)")
	f.StringVar(&out, "out", "", "run directory (default runs/insert-KIND-DATE-TIME); must not exist or be empty")
	f.BoolVar(&noVerify, "no-verify", false, "skip the database check after each step")
	return c
}

// runWorkload opens the target, creates the run directory and runs the workload's steps. Every
// check that can fail fast (flags, target string, connection) happens before the run directory
// exists, so a bad invocation leaves nothing behind.
func runWorkload(c *cobra.Command, name string, spec target.Spec, out string, seed uint64, verify bool, bind func(target.Target) (workload.Workload, error)) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t, err := target.Open(ctx, spec)
	if err != nil {
		return err
	}
	defer t.Close()
	wl, err := bind(t)
	if err != nil {
		return err
	}
	info := t.Info(ctx)
	dataPath := ""
	if spec.Path != "" {
		dataPath, _ = filepath.Abs(spec.Path)
	} else if p, ok := info.Settings["path"].(string); ok {
		dataPath = p
	}
	meta := archive.Run{
		Name: filepath.Base(out), Workload: name, Command: redactArgs(os.Args),
		Dbperf: archive.ThisBuild(), Host: archive.ThisHost(dataPath), Target: info,
		Seed: seed, Settings: wl.Settings(), Start: time.Now(),
	}
	dir, err := archive.Create(out, meta)
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "dbperf %s on %s (%s %s), seed %d, into %s\n", name, info.Target, info.Engine, info.Version, seed, out)
	s := &session.Session{Workload: wl, Dir: dir, Out: w, Verify: verify}
	err = s.Run(ctx)
	fmt.Fprintf(w, "run directory: %s\n", out)
	return err
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1 // fits in an int64 for JSON readers
}

// redactArgs removes passwords from target URLs on the command line before it is archived.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = target.RedactDSN(a)
	}
	return out
}

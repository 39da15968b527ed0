package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/clientprocs"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/dbperf/dbperf/internal/plan"
	"github.com/dbperf/dbperf/internal/server"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/insertbench/stores"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func runCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "run WORKLOAD",
		Short: "Run a workload against a target into a new run directory",
	}
	output.add(c.PersistentFlags())
	c.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		catchSIGPIPE(cmd.Root()) // `dbperf run ... | head`: an interrupt, not a kill
		if err := output.check(); err != nil {
			return err
		}
		if err := output.checkReferenceLines(cmd.Name()); err != nil {
			return err
		}
		// Before any server starts: an SLA must name one of the workload's op types.
		if f, ok := archive.Declared(cmd.Name()); ok {
			return output.checkOps(cmd.Name(), f.Ops)
		}
		return nil
	}
	c.AddCommand(runInsertCmd())
	c.AddCommand(runLinkBenchCmd())
	c.AddCommand(runKVCmd())
	c.AddCommand(runScriptCmd())
	c.AddCommand(runYCSBCmd())
	return c
}

const insertLong = `The Insert Benchmark (iibench): load rows in primary key order (l.i0), create three
secondary indexes (l.x), insert rows random with respect to them while deleting as many of the
oldest (l.i1 with 50 rows per statement, l.i2 with 5), settle the DBMS, then run range (qr) or
point (qp) queries as fast as possible while each client inserts (and deletes) at a fixed rate:
100, 500 and 1000 rows per second.

Every size defaults small so the run takes seconds; the published runs use e.g.
--rows 20000000 --l1-rows 40000000 --q-seconds 1800 --clients 8.`

const insertExample = `  dbperf run insert
  dbperf run insert --target pebble:/tmp/ib --clients 4 --rows 2000000 --steps l.i0,l.x,l.i1,l.i2,qr100,qp100
  dbperf run insert --target postgres://postgres@127.0.0.1:15432/ib --tables shared --out runs/pg-shared
  dbperf run insert --target sqlite --target pebble --target bbolt --out runs/embedded
  dbperf run insert --plan cached.json --rows 1000000 --out runs/cached

A plan file (JSON) lists targets, and servers that dbperf starts once per config (and stops):
  {"runs": [
    {"server": "postgres", "configs": ["cached-by-dbms", "cached-by-os"]},
    {"server": "mariadb", "engine": "innodb", "configs": ["cached-by-dbms", "cached-by-os"]},
    {"server": "mariadb", "engine": "rocksdb", "configs": ["cached-by-dbms", "cached-by-os"]},
    {"target": "pebble", "name": "pebble"}
  ]}
With several runs, --out is a directory holding one run directory per run, named after it
(postgres-cached-by-os, mariadb-rocksdb-cached-by-dbms, ...). Every run uses the same seed, so
every target gets the same rows. A failed run does not stop the others.`

func runInsertCmd() *cobra.Command {
	cfg := insertbench.DefaultConfig()
	i := insertFlags{rf: runFlags{name: "insert", prefix: "insert"}, tables: "per-client", steps: cfg.Steps}
	c := &cobra.Command{
		Use:     "insert",
		Short:   "The Insert Benchmark: l.i0, l.x, l.i1, l.i2, settle, qr100 ... qp1000",
		Long:    insertLong,
		Example: insertExample,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := i.complete(c, &cfg); err != nil {
				return err
			}
			l := i.rf.launch(cfg.NeedsData(), sharding.wrap(bindInsert(cfg)))
			if cfg.Prepared {
				l.serverOnly = "--prepared"
			}
			_, err := l.run(c)
			return err
		},
	}
	i.add(c.Flags(), &cfg)
	return c
}

// insertFlags are run insert's flags that are not fields of the Insert Benchmark's config.
type insertFlags struct {
	rf         runFlags
	tables     string
	steps      []string
	settleWait time.Duration
}

// add declares run insert's flags, cfg's among them.
func (i *insertFlags) add(f *pflag.FlagSet, cfg *insertbench.Config) {
	i.rf.add(f, runSpec{Target: "sqlite", TargetHelp: "sqlite[:FILE], pebble[:DIR], bbolt[:FILE], postgres://..., mysql://...", Plan: true, ClientBound: true, Shard: true})
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "clients; each has an inserter, a deleter and a querier with their own connections")
	f.StringVar(&i.tables, "tables", i.tables, "per-client (a table per client) or shared (one table for all)")
	f.Int64Var(&cfg.Rows, "rows", cfg.Rows, "rows each client loads in l.i0")
	f.Int64Var(&cfg.L1Rows, "l1-rows", cfg.L1Rows, "rows each client inserts and deletes in l.i1 (l.i2 does a quarter)")
	f.Float64Var(&cfg.QSeconds, "q-seconds", cfg.QSeconds, "length of each q step at its insert rate: each client inserts rate x q-seconds rows")
	f.StringSliceVar(&i.steps, "steps", i.steps, "steps to run, in order, comma-separated (and cleanup: drop the tables dbperf created)")
	f.Float64Var(&cfg.StepSeconds, "step-seconds", 0, "end each load step (l.i0, l.i1, l.i2) after this many seconds, even with rows left")
	f.IntVar(&cfg.Data.Min, "data-min", cfg.Data.Min, "shortest data column")
	f.IntVar(&cfg.Data.Max, "data-max", cfg.Data.Max, "longest data column")
	f.IntVar(&cfg.Data.RandomPct, "data-random-pct", cfg.Data.RandomPct, "the reference's data_random_pct: 0.75 x this % of data is random, the rest constant")
	f.DurationVar(&i.settleWait, "settle-wait", 0, "how long the settle step lasts from its start, instead of the reference's rule (60 s + 1 s per million rows loaded, at most 1200 s)")
	f.Float64Var(&cfg.SettleScale, "settle-scale", cfg.SettleScale, "scale of the reference's settle wait and pauses, 0..1 (default 0.01 when --rows and --l1-rows are at or below their defaults, a small run; else 1)")
	f.IntVar(&cfg.Retries, "retries", cfg.Retries, "retries of a failed statement before the step fails")
	f.BoolVar(&cfg.Drop, "drop", false, "let l.i0 drop tables of the benchmark's names that dbperf did not create (its own are replaced)")
	addQueryModeFlags(f, &cfg.Prepared) // --query-mode simple|prepared, and --prepared (linkbench.go)
	f.BoolVar(&cfg.FullChecks, "full-checks", false, "the full check (counts, index scans) after every step; by default steps are followed by a bounded sample that leaves the caches alone, and only the last by the full check")
}

// complete sets what the flags say in cfg and checks it all before anything runs.
func (i *insertFlags) complete(c *cobra.Command, cfg *insertbench.Config) error {
	switch i.tables {
	case "per-client":
		cfg.SharedTable = false
	case "shared":
		cfg.SharedTable = true
	default:
		return fmt.Errorf("--tables must be per-client or shared (got %q)", i.tables)
	}
	cfg.Steps = i.steps
	cfg.SettleWait = i.settleWait
	if !c.Flags().Changed("settle-scale") {
		cfg.SettleScale = settleScaleFor(*cfg)
	}
	var err error
	if cfg.Arrival, err = i.rf.arrival(c); err != nil {
		return err
	}
	cfg.Seed = i.rf.seed
	if err := sharding.forInsert(c, cfg); err != nil { // --shard: shard.go
		return err
	}
	if output.repeat > 1 && cfg.NeedsData() != "" {
		return fmt.Errorf("--repeat runs each repeat from an empty database, so --steps must start with l.i0 (it starts with %s)", cfg.Steps[0])
	}
	if err := errors.Join(checkDurations(map[string]time.Duration{"settle-wait": i.settleWait}), cfg.Validate()); err != nil {
		return err
	}
	if err := output.checkStepOps(cfg.Steps, insertbench.StepOps); err != nil {
		return err
	}
	if i.rf.noVerify && cfg.FullChecks {
		return fmt.Errorf("--full-checks chooses the checks that --no-verify skips: give one of them")
	}
	return nil
}

// bindInsert makes the Insert Benchmark for an opened target.
func bindInsert(cfg insertbench.Config) func(driver.Target) (workload.Workload, error) {
	return func(t driver.Target) (workload.Workload, error) {
		store, err := stores.For(t)
		if err != nil {
			return nil, err
		}
		b, err := insertbench.New(cfg, store)
		if err != nil {
			return nil, err
		}
		// A first step other than l.i0 needs the tables: fail before the run directory exists.
		return b, b.CheckStart(context.Background(), t.Info(context.Background()).Target)
	}
}

// runAll runs every run into out/<name>, one after the other. A failed run is reported and
// the next one starts; an interrupt stops them all.
func runAll(c *cobra.Command, name string, runs []plan.Run, out string, seed uint64, verify bool, bind func(driver.Target) (workload.Workload, error)) error {
	w := c.OutOrStdout()
	fmt.Fprintf(w, "%d runs into %s, seed %d\n", len(runs), out, seed)
	var failed []string
	for i, r := range runs {
		fmt.Fprintf(w, "\n=== run %d of %d: %s\n", i+1, len(runs), r.Name)
		err := runOne(c, name, r, filepath.Join(out, r.Name), seed, verify, bind)
		if errors.Is(err, session.ErrInterrupted) {
			return err
		}
		if err != nil {
			fmt.Fprintf(c.ErrOrStderr(), "dbperf: run %s failed: %v\n", r.Name, err)
			failed = append(failed, r.Name)
		}
	}
	fmt.Fprintf(w, "\n%d of %d runs complete in %s\n", len(runs)-len(failed), len(runs), out)
	if len(failed) > 0 {
		return fmt.Errorf("%d runs failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// runOne starts the run's server if it has one (restarting it with the run's config), runs the
// workload on the target, and stops the server it started: also when the run fails, is
// interrupted (Ctrl-C, SIGTERM as from timeout(1), SIGHUP, a closed standard output) or the
// start itself fails half-way.
func runOne(c *cobra.Command, name string, r plan.Run, out string, seed uint64, verify bool, bind func(driver.Target) (workload.Workload, error)) (err error) {
	ctx, stop := interruptContext(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP) // a second exits at once
	defer stop()
	ctx, release := cancelOnClosedStdout(ctx)
	defer release()
	defer func() {
		if err != nil && ctx.Err() != nil && !errors.Is(err, session.ErrInterrupted) {
			err = fmt.Errorf("%w (%v)", session.ErrInterrupted, err) // so that a plan stops here
		}
	}()
	targetStr := r.Target
	if r.Server != nil {
		o := *r.Server
		o.Password = os.Getenv("DBPERF_SERVER_PASSWORD")
		srv, err := server.New(o)
		if err != nil {
			return err
		}
		if st, _ := srv.Status(); st.Running {
			if err := srv.Stop(ctx); err != nil {
				return err
			}
		}
		defer stopServer(c, o.Kind, srv)
		base, err := srv.Start(ctx)
		if err != nil {
			return err
		}
		st, _ := srv.Status()
		fmt.Fprintf(c.OutOrStdout(), "started %s with config %s on port %d\n", o.Kind, st.Config, st.Port)
		targetStr = serverTarget(base, o.Password, r.Engine)
	}
	spec, err := driver.Parse(targetStr)
	if err != nil {
		return err
	}
	if output.repeat > 1 {
		return runRepeats(ctx, c, name, spec, out, seed, verify, bind)
	}
	return runWorkload(ctx, c, name, spec, out, seed, verify, bind)
}

// serverTarget completes a managed server's target: the password (kept in memory only), the
// benchmark's own database, and the engine.
func serverTarget(base, password, engine string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	if password != "" {
		u.User = url.UserPassword(u.User.Username(), password)
	}
	u.Path = "/ib"
	if engine != "" {
		q := u.Query()
		q.Set("engine", engine)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// runWorkload opens the target, creates the run directory and runs the workload's steps. Every
// check that can fail fast (flags, target string, connection) happens before the run directory
// exists, so a bad invocation leaves nothing behind.
func runWorkload(ctx context.Context, c *cobra.Command, name string, spec driver.Spec, out string, seed uint64, verify bool, bind func(driver.Target) (workload.Workload, error)) error {
	spec.Client = clientPath
	t, err := driver.Open(ctx, spec)
	if err != nil {
		return err
	}
	defer t.Close()
	wl, err := bind(t)
	if err != nil {
		return err
	}
	if err := workload.CheckWarmup(wl, output.warmup); err != nil {
		sharding.finish(err) // a shard tells the others
		return err           // a step of fixed work: before the run directory exists
	}
	info := t.Info(ctx)
	settings := wl.Settings()
	recordRunOptions(t, settings)
	if output.warmup > 0 {
		settings["warmup_sec"] = output.warmup.Seconds()
	}
	mon := newMonitor(ctx, t)
	s := &session.Session{Monitor: mon, FaultTimeout: faultTimeout}
	defer sizeClientProcs(mon, info.Kind, s)()
	lockThreads(mon, info.Kind, s, settings)
	dataPath := ""
	if spec.Path != "" {
		dataPath, _ = filepath.Abs(spec.Path)
	} else if p, ok := info.Settings["path"].(string); ok {
		dataPath = p
	} else {
		dataPath = mon.DataDir() // a server on this host: its data directory's disk
	}
	meta := archive.Run{
		Name: filepath.Base(out), Workload: name, Command: redactArgs(os.Args),
		Dbperf: archive.ThisBuild(), Host: archive.ThisHost(dataPath), Target: archive.Target(info),
		Seed: seed, Settings: settings, Figures: wl.Figures(), Start: time.Now(),
	}
	meta.Shard = sharding.provenance() // a shard of a sharded run: shard.go
	dir, err := archive.Create(out, meta)
	if err != nil {
		sharding.finish(err)
		return err
	}
	w := c.OutOrStdout()
	io.WriteString(w, wrapText(fmt.Sprintf("dbperf %s on %s (%s %s), seed %d, into %s", name, info.Target, info.Engine, info.Version, seed, out), "", textWidth))
	if fb, ok := settings["client_path_fallback"]; ok {
		fmt.Fprintf(w, "client path: driver, not %s: %s\n", clientPath, fb)
	}
	s.Workload, s.Dir, s.Out, s.Verify = wl, dir, w, verify
	output.apply(s)
	err = s.Run(ctx)
	sharding.finish(err)
	fmt.Fprintf(w, "run directory: %s\n", out)
	return err
}

// smallSettleScale scales the settle of a small run (see --settle-scale).
const smallSettleScale = 0.01

// settleScaleFor is the settle scale when --settle-scale is not given, from the sizes alone:
// smallSettleScale when --rows and --l1-rows are at or below their defaults (a small run:
// seconds, not minutes), else the reference's 1. Whether a size was typed does not matter.
func settleScaleFor(cfg insertbench.Config) float64 {
	if d := insertbench.DefaultConfig(); cfg.Rows <= d.Rows && cfg.L1Rows <= d.L1Rows {
		return smallSettleScale
	}
	return 1
}

// clientBound is the --client-bound threshold, in cores.
var clientBound = 0.9

// dbmsCounters is --dbms-counters: whether the monitor samples the DBMS's counters.
var dbmsCounters = true

// clientProcs is --client-procs: auto, all or a number of processors.
var clientProcs = "auto"

// fixedClientProcs is --client-procs as a number, or 0 for auto and all.
func fixedClientProcs() int {
	n, err := strconv.Atoi(clientProcs)
	if err != nil {
		return 0
	}
	return n
}

// checkClientProcs says in one sentence what is wrong with --client-procs.
func checkClientProcs() error {
	if clientProcs == "auto" || clientProcs == "all" || fixedClientProcs() > 0 {
		return nil
	}
	return fmt.Errorf("--client-procs must be auto, all or a number of processors above 0 (got %q)", clientProcs)
}

// clientPathFlag is --client-path as given; clientPath, parsed, goes into every target's spec.
var (
	clientPathFlag = "kernel"
	clientPath     = driver.ClientKernel
)

// newMonitor is the run's monitor of t, with the global options that shape it.
func newMonitor(ctx context.Context, t driver.Target) *monitor.Monitor {
	mon := monitor.New(ctx, t)
	mon.ClientBound = clientBound
	mon.NoCounters = !dbmsCounters
	return mon
}

// recordRunOptions puts the global options that change what is measured into run.json's
// settings: --dbms-counters when off, --client-procs when not auto, and the client path a server target's connections take,
// with the reason when it is not the one asked for.
func recordRunOptions(t driver.Target, settings map[string]any) {
	if !dbmsCounters {
		settings["dbms_counters"] = false
	}
	if clientProcs != "auto" {
		settings["client_procs"] = clientProcs
	}
	pt, ok := t.(driver.PathTarget)
	if !ok { // an embedded engine: no client path
		return
	}
	used, fallback := pt.ClientPath()
	settings["client_path"] = string(used)
	if fallback != "" {
		settings["client_path_fallback"] = fallback
	}
}

// cgoEngines are the embedded engines dbperf calls through cgo: each step's workers keep their
// own OS threads (session.Session.LockOSThreads) and GOMAXPROCS grows with the callers.
var cgoEngines = map[string]bool{"rocksdb": true}

// threadPerCaller says why each caller of a step needs an OS thread, and a Go processor while
// it waits, of its own, or "" when it does not: an embedded engine called through cgo, or a
// server's clients that wait for replies in the kernel (--client-path kernel).
func threadPerCaller(mon *monitor.Monitor, kind string) string {
	switch {
	case mon.Embedded() && cgoEngines[kind]:
		return "the engine is called through cgo"
	case !mon.Embedded() && clientPath == driver.ClientKernel:
		return "each waits for its replies in the kernel"
	}
	return ""
}

// lockThreads keeps each step's workers on their own OS threads where threadPerCaller says
// why, the cgo engine's yielding now and then (Session.LockOSThreads, CgoYield), and says so
// in run.json's settings.
func lockThreads(mon *monitor.Monitor, kind string, s *session.Session, settings map[string]any) {
	why := threadPerCaller(mon, kind)
	if why == "" {
		return
	}
	settings["worker_os_threads"] = "one per worker (runtime.LockOSThread): " + why
	s.LockOSThreads, s.CgoYield = true, mon.Embedded()
}

// sizeClientProcs starts sizing GOMAXPROCS to the client's need (internal/clientprocs) when
// --client-procs is auto: for an engine called through cgo or a server whose clients wait in
// the kernel (--client-path kernel), the processors Go chose plus one per caller of each step
// (s.StepProcs), since each caller may hold one while it waits; against a server otherwise,
// from one processor up as the client's CPU use demands; other embedded engines keep Go's
// choice. A number (--client-procs N) holds GOMAXPROCS at N, callers or not. stop gives
// GOMAXPROCS back.
func sizeClientProcs(mon *monitor.Monitor, kind string, s *session.Session) (stop func()) {
	switch n := fixedClientProcs(); {
	case n > 0:
		old := runtime.GOMAXPROCS(n)
		mon.Procs = func() int { return n }
		return func() { runtime.GOMAXPROCS(old) }
	case clientProcs != "auto":
		return func() {}
	case threadPerCaller(mon, kind) != "":
		s.StepProcs = clientprocs.ForCallers
		mon.Procs = func() int { return runtime.GOMAXPROCS(0) }
		return func() {}
	case mon.Embedded():
		return func() {}
	}
	g := clientprocs.Start()
	mon.Procs = g.Most
	return g.Stop
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
		out[i] = driver.RedactTarget(a)
	}
	return out
}

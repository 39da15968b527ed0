package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/search"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/spf13/cobra"
)

func searchCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "search WORKLOAD",
		Short: "Find the highest arrival rate at which a step meets every SLA",
	}
	c.AddCommand(searchInsertCmd(), searchLinkBenchCmd(), searchKVCmd())
	for _, cmd := range searchWorkloads {
		c.AddCommand(cmd())
	}
	return c
}

// searchWorkloads are the later workloads' search commands: each file search_WORKLOAD.go
// registers its own in an init function, so a new one needs no line here.
var searchWorkloads []func() *cobra.Command

// searchFlags are a search's own settings, the same for every workload.
type searchFlags struct {
	vary          string
	step          string
	setup         []string
	sla           []string
	cfg           search.Config
	warmup, probe time.Duration
	target, out   string
	seed          uint64
	maxBacklog    int
}

// defaultSearchFlags are a search's defaults, the same for every workload but its step and
// setup.
func defaultSearchFlags(step string, setup []string) searchFlags {
	return searchFlags{vary: "rate", step: step, setup: setup, target: "sqlite",
		cfg:    search.Config{Start: 1000, Min: 10, Max: 10_000_000, Resolution: 0.05, MaxTrials: 12},
		warmup: 2 * time.Second, probe: 5 * time.Second, maxBacklog: 100_000}
}

func searchInsertCmd() *cobra.Command {
	cfg := insertbench.DefaultConfig()
	sf := defaultSearchFlags("qr100", []string{"l.i0", "l.x"})
	tables := "per-client"
	c := &cobra.Command{
		Use:   "insert",
		Short: "Highest query arrival rate of an Insert Benchmark q step that meets the SLAs",
		Long: `search loads the database with --setup (default l.i0,l.x), then runs --step (a q step) again
and again with queries arriving open loop at a constant total rate, each trial a warm-up that is
archived but not judged and a measured part. A trial passes when every --sla holds over the
measured part, at least 95% of the offered queries a second completed, none was dropped, and the
step's inserts held 95% of their target. The rate doubles after a pass and halves after a fail
until one of each brackets the answer, then bisects (on a log scale) to --resolution. A q step
inserts and deletes as many rows, so every trial starts from the same database size (a step that
changes the database, such as LinkBench's requests, gets its --setup steps again before each trial).

The run directory holds every trial as a step (qr100-r2000-warmup, qr100-r2000, ...) and
search.json with the trials and the answer; 'dbperf report' charts them.`,
		Example: `  dbperf search insert --step qr100 --sla 'query:p99<2ms'
  dbperf search insert --target postgres://postgres@127.0.0.1:15432/ib --step qp1000 --sla 'query:p99.9<5ms' --rows 1000000`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			switch tables {
			case "per-client", "shared":
				cfg.SharedTable = tables == "shared"
			default:
				return fmt.Errorf("--tables must be per-client or shared (got %q)", tables)
			}
			if !c.Flags().Changed("seed") {
				sf.seed = randomSeed()
			}
			cfg.Seed = sf.seed
			cfg.Steps = append(append([]string(nil), sf.setup...), sf.step)
			if err := cfg.Validate(); err != nil {
				return err
			}
			return runSearch(c, "insert", sf, bindInsert(cfg))
		},
	}
	f := c.Flags()
	f.StringVar(&sf.target, "target", sf.target, "what to search on (see 'dbperf targets')")
	f.StringVar(&sf.step, "step", sf.step, "the step whose query rate is searched: a q step (qr100, qp500, ...)")
	f.StringSliceVar(&sf.setup, "setup", sf.setup, "steps that load the database first")
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "clients; each has an inserter, a deleter and a querier with their own connections")
	f.StringVar(&tables, "tables", tables, "per-client (a table per client) or shared (one table for all)")
	f.Int64Var(&cfg.Rows, "rows", cfg.Rows, "rows each client loads in l.i0")
	addSearchFlags(f, &sf)
	return c
}

func addSearchFlags(f interface {
	BoolVar(*bool, string, bool, string)
	StringArrayVar(*[]string, string, []string, string)
	Float64Var(*float64, string, float64, string)
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
	StringVar(*string, string, string, string)
	Uint64Var(*uint64, string, uint64, string)
}, sf *searchFlags) {
	f.StringArrayVar(&sf.sla, "sla", nil, "a goal every passing trial meets, OP:pXX<DURATION (repeatable; at least one)")
	f.StringVar(&sf.vary, "vary", sf.vary, "what the trials vary: rate (open-loop arrivals a second) or clients (a closed loop's client count; the rate flags are then counts)")
	f.Float64Var(&sf.cfg.Start, "start-rate", sf.cfg.Start, "the first rate tried, arrivals a second in all")
	f.Float64Var(&sf.cfg.Min, "min-rate", sf.cfg.Min, "no rate below this is tried")
	f.Float64Var(&sf.cfg.Max, "max-rate", sf.cfg.Max, "no rate above this is tried")
	f.Float64Var(&sf.cfg.Resolution, "resolution", sf.cfg.Resolution, "stop when the failing rate is within this fraction above the passing one")
	f.IntVar(&sf.cfg.MaxTrials, "max-trials", sf.cfg.MaxTrials, "the most trials the search runs")
	f.DurationVar(&sf.warmup, "warmup", sf.warmup, "each trial's warm-up, archived but not judged")
	f.DurationVar(&sf.probe, "trial", sf.probe, "each trial's measured part, e.g. 30s")
	f.IntVar(&sf.maxBacklog, "max-backlog", sf.maxBacklog, "arrivals that may wait for a free client; more are dropped, and a trial that drops fails")
	f.StringVar(&sf.out, "out", "", "run directory (default runs/search-WORKLOAD-DATE-TIME)")
	f.Uint64Var(&sf.seed, "seed", 0, "seed of all random streams (default: a new one, printed and stored)")
	// A search prints one line a trial and no line while a trial runs; --quiet is taken, as
	// run takes it, so that a run's command line works as a search's.
	var quiet bool
	f.BoolVar(&quiet, "quiet", false, "accepted as run takes it: a search prints no line while a trial runs anyway")
}

// runSearch runs the search sf describes on its target, into a run directory of its own.
func runSearch(c *cobra.Command, name string, sf searchFlags, bind func(driver.Target) (workload.Workload, error)) error {
	if err := sf.varyDefaults(c); err != nil {
		return err
	}
	p := search.Plan{Workload: name, Step: sf.step, Setup: sf.setup, Vary: sf.vary, SLAs: sf.sla, Config: sf.cfg,
		Warmup: sf.warmup, Trial: sf.probe, MaxBacklog: sf.maxBacklog, Seed: sf.seed}
	slas, err := p.Goals()
	if err != nil {
		return err
	}
	spec, err := driver.Parse(sf.target)
	if err != nil {
		return err
	}
	if sf.out == "" {
		sf.out = defaultOut("search-"+name, time.Now())
	}
	if err := checkOut(sf.out); err != nil {
		return err
	}
	ctx, stop := interruptContext(os.Interrupt, syscall.SIGTERM) // a second exits at once
	defer stop()
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
	if cl, ok := wl.(io.Closer); ok { // what the workload kept open between trials
		defer cl.Close()
	}
	if err := p.Check(wl); err != nil {
		return err
	}
	return runTrials(ctx, c.OutOrStdout(), sf, p, slas, t, wl)
}

// varyDefaults checks --vary; searching for a client count, the rate flags not given count
// clients: from 1 to 512, starting at 1.
func (sf *searchFlags) varyDefaults(c *cobra.Command) error {
	switch sf.vary {
	case "rate":
	case "clients":
		sf.cfg.Whole = true
		if !c.Flags().Changed("start-rate") {
			sf.cfg.Start = 1
		}
		if !c.Flags().Changed("min-rate") {
			sf.cfg.Min = 1
		}
		if !c.Flags().Changed("max-rate") {
			sf.cfg.Max = 512
		}
	default:
		return fmt.Errorf("--vary must be rate or clients (got %q)", sf.vary)
	}
	return sf.cfg.Validate()
}

// runTrials monitors the opened target, archives the run and runs p's trials, printing a
// line each and the search's record at the end.
func runTrials(ctx context.Context, w io.Writer, sf searchFlags, p search.Plan, slas []measure.SLA, t driver.Target, wl workload.Workload) error {
	info := t.Info(ctx)
	mon := newMonitor(ctx, t)
	s := &session.Session{Monitor: mon, SLAs: slas, Live: session.LiveQuiet, FaultTimeout: faultTimeout}
	defer sizeClientProcs(mon, info.Kind, s)()
	settings := wl.Settings()
	recordRunOptions(t, settings)
	lockThreads(mon, info.Kind, s, settings)
	settings["search"] = map[string]any{"step": sf.step, "slas": sf.sla, "config": sf.cfg, "warmup_sec": sf.warmup.Seconds(), "trial_sec": sf.probe.Seconds()}
	dir, err := archive.Create(sf.out, archive.Run{Name: filepath.Base(sf.out), Workload: p.Workload, Command: redactArgs(os.Args),
		Dbperf: archive.ThisBuild(), Host: archive.ThisHost(mon.DataDir()), Target: archive.Target(info), Seed: sf.seed,
		Settings: settings, Figures: wl.Figures(), Start: time.Now()})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "dbperf search %s %s on %s (%s %s), seed %d, into %s\n", p.Workload, sf.step, info.Target, info.Engine, info.Version, sf.seed, sf.out)
	s.Workload, s.Dir, s.Out, s.Verify = wl, dir, w, true
	rec, err := p.Run(ctx, s, wl, w)
	if werr := archive.WriteJSON(filepath.Join(sf.out, archive.SearchFile), rec); werr != nil && err == nil {
		err = werr
	}
	err = s.Finish(err)
	search.Print(w, rec)
	fmt.Fprintf(w, "run directory: %s\n", sf.out)
	return err
}

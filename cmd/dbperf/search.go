package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
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
	return c
}

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
}

// searchClientsRule is the pass rule of --vary clients: a closed loop offers no rate to hold.
const searchClientsRule = "every SLA met over the measured part, no operation failed after its retries, the step's gate held"

const searchRule = "every SLA met over the measured part, at least 95% of the offered rate completed, no arrival dropped, the step's gate held"

func runSearch(c *cobra.Command, name string, sf searchFlags, bind func(driver.Target) (workload.Workload, error)) error {
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
	if err := sf.cfg.Validate(); err != nil {
		return err
	}
	if len(sf.sla) == 0 {
		return errors.New("search needs at least one --sla: the goal a passing trial meets (e.g. --sla 'query:p99<2ms')")
	}
	var slas []measure.SLA
	for _, s := range sf.sla {
		sla, err := measure.ParseSLA(s)
		if err != nil {
			return err
		}
		slas = append(slas, sla)
	}
	if sf.warmup < 0 || sf.probe < time.Second {
		return fmt.Errorf("--warmup must not be negative and --trial must be at least 1s (got %s, %s)", sf.warmup, sf.probe)
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
	tw, ok := wl.(workload.Tunable)
	if !ok || len(tw.RateOps(sf.step)) == 0 {
		return fmt.Errorf("step %s cannot be searched: it has no request stream whose rate a search could set", sf.step)
	}
	ct, canVaryClients := wl.(workload.ClientTunable)
	if sf.vary == "clients" && !canVaryClients {
		return fmt.Errorf("--vary clients: the %s workload's clients cannot change between trials (its tables are per client); vary the rate", name)
	}
	// A step that changes the database is preceded in every trial by the setup steps again, so
	// that each trial starts from the same database.
	reload := !tw.KeepsSize(sf.step)
	if reload && len(sf.setup) == 0 {
		return fmt.Errorf("step %s changes the database: give the --setup steps that load it, which run again before each trial", sf.step)
	}
	opNames := map[string]bool{}
	for _, o := range wl.Figures().Ops {
		opNames[o.Name] = true
	}
	for _, s := range slas {
		if !opNames[s.Op] {
			return fmt.Errorf("--sla %s names op type %q, which the %s workload does not have", s, s.Op, name)
		}
	}
	info := t.Info(ctx)
	mon := monitor.New(ctx, t)
	defer sizeClientProcs(mon)()
	settings := wl.Settings()
	recordClientPath(t, settings)
	settings["search"] = map[string]any{"step": sf.step, "slas": sf.sla, "config": sf.cfg, "warmup_sec": sf.warmup.Seconds(), "trial_sec": sf.probe.Seconds()}
	dir, err := archive.Create(sf.out, archive.Run{Name: filepath.Base(sf.out), Workload: name, Command: redactArgs(os.Args),
		Dbperf: archive.ThisBuild(), Host: archive.ThisHost(mon.DataDir()), Target: archive.Target(info), Seed: sf.seed,
		Settings: settings, Figures: wl.Figures(), Start: time.Now()})
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "dbperf search %s %s on %s (%s %s), seed %d, into %s\n", name, sf.step, info.Target, info.Engine, info.Version, sf.seed, sf.out)
	s := &session.Session{Workload: wl, Dir: dir, Out: w, Verify: true, Monitor: mon, SLAs: slas, Live: session.LiveQuiet}
	rec := archive.Search{Step: sf.step, Vary: sf.vary, SLAs: sf.sla, Rule: searchRule, Config: sf.cfg}
	if sf.vary == "clients" {
		rec.Rule = searchClientsRule
	}
	err = func() error {
		for _, step := range sf.setup {
			if _, err := s.Step(ctx, step, step); err != nil {
				return err
			}
		}
		res, err := search.Run(sf.cfg, func(rate float64) (search.Outcome, error) {
			tw.SetArrival(workload.Arrival{Process: workload.Constant, Rate: rate, MaxBacklog: sf.maxBacklog, Seed: sf.seed})
			as := fmt.Sprintf("%s-r%.0f", sf.step, rate)
			if sf.vary == "clients" {
				tw.SetArrival(workload.Arrival{Process: workload.Closed})
				ct.SetClients(int(rate))
				as = fmt.Sprintf("%s-c%.0f", sf.step, rate)
			}
			if reload && len(rec.Trials) > 0 {
				for _, step := range sf.setup {
					if _, err := s.Step(ctx, step, fmt.Sprintf("%s-r%.0f", step, rate)); err != nil {
						return search.Outcome{}, err
					}
				}
			}
			if sf.warmup > 0 {
				tw.SetStepSeconds(sf.warmup.Seconds())
				sum, err := s.Step(ctx, sf.step, as+"-warmup")
				if err == nil {
					err = unjudged(sum, slas, sf.step)
				}
				if err != nil {
					return search.Outcome{}, err
				}
			}
			tw.SetStepSeconds(sf.probe.Seconds())
			sum, err := s.Step(ctx, sf.step, as)
			if err == nil {
				err = unjudged(sum, slas, sf.step)
			}
			if err != nil {
				return search.Outcome{}, err
			}
			tr := judge(sum, rate, slas, tw.RateOps(sf.step), dir.Meta.Figures.Gate, sf.vary == "clients")
			tr.Step = as
			rec.Trials = append(rec.Trials, tr)
			fmt.Fprintf(w, "   trial %d at %.0f/s: %s\n", len(rec.Trials), rate, tr.Why)
			return search.Outcome{Pass: tr.Pass, Why: tr.Why}, nil
		})
		rec.Rate, rec.FailRate, rec.Bounded, rec.Reason = res.Rate, res.Fail, res.Bounded, res.Reason
		return err
	}()
	if werr := archive.WriteJSON(filepath.Join(sf.out, archive.SearchFile), rec); werr != nil && err == nil {
		err = werr
	}
	err = s.Finish(err)
	printSearch(w, rec)
	fmt.Fprintf(w, "run directory: %s\n", sf.out)
	return err
}

// unjudged is an error for an SLA whose op type the step does not have: every trial would pass
// it unjudged.
func unjudged(sum archive.Step, slas []measure.SLA, step string) error {
	for _, sla := range slas {
		if _, ok := sum.Ops[sla.Op]; !ok {
			return fmt.Errorf("--sla %s: step %s has no %s operations, so the SLA cannot be judged", sla, step, sla.Op)
		}
	}
	return nil
}

// judge applies the pass rule to a trial's measured step: its achieved rate is that of the
// stream's op types added up, its latencies those of the first SLA's op type. The rate counts
// operations, as arrivals do, not their units (a multiget is one arrival of 10 keys).
func judge(sum archive.Step, rate float64, slas []measure.SLA, rateOps []string, gate *archive.Gate, closed bool) archive.Trial {
	tr := archive.Trial{Rate: rate, Dropped: sum.Dropped, SLAs: sum.SLAs, Pass: true, Why: "pass"}
	for _, op := range rateOps {
		if sum.Seconds > 0 {
			tr.Achieved += float64(sum.Ops[op].Statements) / sum.Seconds
		}
	}
	tr.Achieved = measure.Round(tr.Achieved, 3)
	if o, ok := sum.Ops[slas[0].Op]; ok {
		tr.P50Us, tr.P99Us, tr.P999Us = o.P50Us, o.P99Us, o.P999Us
		if o.Service != nil {
			tr.ServiceP99Us = o.Service.P99Us
		}
	}
	fail := func(why string) {
		if tr.Pass {
			tr.Pass, tr.Why = false, why
		}
	}
	for _, r := range sum.SLAs {
		if !r.Met {
			fail(fmt.Sprintf("SLA %s missed (%.0f us)", r.SLA, r.ValueUs))
		}
	}
	if !closed && tr.Achieved < 0.95*rate {
		fail(fmt.Sprintf("completed %.0f/s, below 95%% of the offered %.0f/s", tr.Achieved, rate))
	}
	if sum.Dropped > 0 {
		fail(fmt.Sprintf("%d arrivals dropped", sum.Dropped))
	}
	if gate.Failed(sum) {
		fail("the step's gate failed (" + gate.Met + ")")
	}
	return tr
}

func printSearch(out io.Writer, rec archive.Search) {
	fmt.Fprintf(out, "== search of %s for %v\n", rec.Step, rec.SLAs)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	what := "rate"
	if rec.Vary == "clients" {
		what = "clients"
	}
	fmt.Fprintln(tw, "trial\t"+what+"\tachieved\tp50_us\tp99_us\tp99.9_us\tsvc_p99_us\tdropped\tverdict\t")
	for i, t := range rec.Trials {
		svc := "-" // a closed loop's response time is its service time
		if t.ServiceP99Us > 0 {
			svc = fmt.Sprintf("%.0f", t.ServiceP99Us)
		}
		fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%d\t%s\t\n", i+1, t.Rate, t.Achieved, t.P50Us, t.P99Us, t.P999Us, svc, t.Dropped, t.Why)
	}
	tw.Flush()
	unit, what := "/s", "rate"
	if rec.Vary == "clients" {
		unit, what = " clients", "client count"
	}
	switch {
	case rec.Rate == 0:
		fmt.Fprintf(out, "no %s passed (%s)\n", what, rec.Reason)
	case rec.Bounded:
		fmt.Fprintf(out, "highest passing %s: at least %.0f%s (%s)\n", what, rec.Rate, unit, rec.Reason)
	default:
		fmt.Fprintf(out, "highest passing %s: %.0f%s; %.0f%s failed (%s)\n", what, rec.Rate, unit, rec.FailRate, unit, rec.Reason)
	}
}

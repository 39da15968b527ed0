package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/spf13/pflag"
)

// output holds the flags of how every workload command prints while it runs: persistent flags
// of `dbperf run`, so each workload's command has them.
var output outputFlags

// outputFlags are how every workload command prints while it runs.
type outputFlags struct {
	wide, quiet    bool
	reference      bool
	reportInterval time.Duration
	sla            []string
	slas           []measure.SLA
	repeat         int
	warmup         time.Duration
}

func (o *outputFlags) add(f *pflag.FlagSet) {
	f.BoolVar(&o.wide, "wide", false, "print every column: the Insert Benchmark's per-second columns for every op type, p90 and p99.99, latency histograms and all host figures")
	f.BoolVar(&o.quiet, "quiet", false, "print no line while a step runs, only each step's summary and the run's")
	f.BoolVar(&o.reference, "reference-lines", false, "print the Insert Benchmark reference's 17 tab-separated columns a second, which its scripts parse (run insert only: the other workloads' references print no lines of their own)")
	f.DurationVar(&o.reportInterval, "report-interval", time.Second, "how often a running step prints a line (whole seconds; the archive keeps one row a second)")
	f.IntVar(&o.repeat, "repeat", 1, "run the whole step list this many times, each from an empty database with its own seed, into one run group (see docs/repeats.md)")
	f.DurationVar(&o.warmup, "warmup", 0, "run each step's clients this long first (e.g. 30s), archived as the step STEP-warmup and left out of the step's figures; timed steps only (see docs/open-loop.md)")
	f.StringArrayVar(&o.sla, "sla", nil, "a response-time goal, OP:pXX<DURATION (e.g. query:p99<2ms; repeat for several): each step with that op type reports goodput and whether it was met")
}

// check reports a bad combination of the flags; `dbperf run` calls it before anything starts.
func (o *outputFlags) check() error {
	if n := btoi(o.wide) + btoi(o.quiet) + btoi(o.reference); n > 1 {
		return fmt.Errorf("give one of --wide, --quiet and --reference-lines")
	}
	if o.reportInterval < time.Second || o.reportInterval%time.Second != 0 {
		return fmt.Errorf("--report-interval must be a whole number of seconds, at least 1s (got %s)", o.reportInterval)
	}
	if o.warmup < 0 {
		return fmt.Errorf("--warmup must not be negative (got %s)", o.warmup)
	}
	if o.repeat < 1 {
		return fmt.Errorf("--repeat must be at least 1 (got %d)", o.repeat)
	}
	o.slas = nil
	for _, s := range o.sla {
		sla, err := measure.ParseSLA(s)
		if err != nil {
			return err
		}
		o.slas = append(o.slas, sla)
	}
	return nil
}

// checkOps fails when an SLA names an op type the workload does not have.
func (o *outputFlags) checkOps(workload string, ops []measure.OpType) error {
	var names []string
	for _, op := range ops {
		names = append(names, op.Name)
	}
	for _, s := range o.slas {
		if !slices.Contains(names, s.Op) {
			return fmt.Errorf("--sla %s names op type %q: the %s workload's op types are %s", s, s.Op, workload, strings.Join(names, ", "))
		}
	}
	return nil
}

// apply sets the session's output from the checked flags.
func (o *outputFlags) apply(s *session.Session) {
	s.Live, s.ReportEvery, s.SLAs, s.Warmup = session.LiveCompact, o.reportInterval, o.slas, o.warmup
	switch {
	case o.wide:
		s.Live = session.LiveWide
	case o.quiet:
		s.Live = session.LiveQuiet
	case o.reference:
		s.Live = session.LiveReference
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

package main

import (
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/session"
	"github.com/spf13/pflag"
)

// output holds the flags of how every workload command prints while it runs: persistent flags
// of `dbperf run`, so each workload's command has them.
var output outputFlags

// outputFlags are how every workload command prints while it runs.
type outputFlags struct {
	wide, quiet    bool
	reportInterval time.Duration
}

func (o *outputFlags) add(f *pflag.FlagSet) {
	f.BoolVar(&o.wide, "wide", false, "print every column: the Insert Benchmark's per-second columns for every op type, p90 and p99.99, latency histograms and all host figures")
	f.BoolVar(&o.quiet, "quiet", false, "print no line while a step runs, only each step's summary and the run's")
	f.DurationVar(&o.reportInterval, "report-interval", time.Second, "how often a running step prints a line (whole seconds; the archive keeps one row a second)")
}

// check reports a bad combination of the flags; `dbperf run` calls it before anything starts.
func (o *outputFlags) check() error {
	if o.wide && o.quiet {
		return fmt.Errorf("give --wide or --quiet, not both")
	}
	if o.reportInterval < time.Second || o.reportInterval%time.Second != 0 {
		return fmt.Errorf("--report-interval must be a whole number of seconds, at least 1s (got %s)", o.reportInterval)
	}
	return nil
}

// apply sets the session's output from the checked flags.
func (o *outputFlags) apply(s *session.Session) {
	s.Live, s.ReportEvery = session.LiveCompact, o.reportInterval
	switch {
	case o.wide:
		s.Live = session.LiveWide
	case o.quiet:
		s.Live = session.LiveQuiet
	}
}

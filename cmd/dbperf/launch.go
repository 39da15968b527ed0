package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/plan"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/spf13/cobra"
)

// launch is what every `dbperf run WORKLOAD` does once its own flags are checked: the runs of
// --target or --plan (not both), the run directory (default runs/PREFIX-NAME-DATE-TIME, or
// runs/PREFIX-DATE-TIME holding one run directory per run), every check that needs no server
// (preflight; needsData says why the first step needs an earlier run's data), then the runs.
// It returns the runs' directories beside the error, for a workload's own report of them.
type launch struct {
	workload, prefix string
	planFile         string
	targets          []string
	out              string
	seed             uint64
	verify           bool
	needsData        string
	serverOnly       string // a flag given that applies to SQL servers only (--prepared), or ""
	bind             func(driver.Target) (workload.Workload, error)
}

func (l launch) run(c *cobra.Command) (dirs []string, err error) {
	var runs []plan.Run
	if l.planFile != "" {
		if c.Flags().Changed("target") {
			return nil, fmt.Errorf("give --plan or --target, not both")
		}
		runs, err = plan.Load(l.planFile)
	} else {
		runs, err = plan.FromTargets(l.targets)
	}
	if err != nil {
		return nil, err
	}
	if l.serverOnly != "" {
		if err := checkServerOnly(l.serverOnly, runs); err != nil {
			return nil, err
		}
	}
	out := l.out
	if out == "" && len(runs) == 1 {
		out = defaultOut(l.prefix+"-"+runs[0].Name, time.Now())
	} else if out == "" {
		out = defaultOut(l.prefix, time.Now())
	}
	if err := preflight(runs, out, l.needsData); err != nil {
		return nil, err // before any server is started or stopped
	}
	if len(runs) == 1 {
		return []string{out}, runOne(c, l.workload, runs[0], out, l.seed, l.verify, l.bind)
	}
	for _, r := range runs {
		dirs = append(dirs, filepath.Join(out, r.Name))
	}
	return dirs, runAll(c, l.workload, runs, out, l.seed, l.verify, l.bind)
}

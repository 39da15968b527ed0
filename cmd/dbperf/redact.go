package main

import (
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/report"
)

// summary, compare and report read run directories through loadRuns and loadGroups: what an
// older dbperf kept in run.json of the target and the command line may hold a password (today's
// redacts them before writing), and no report prints one.

// loadRuns is report.Load with every password removed from each run's target and command.
func loadRuns(paths []string) ([]report.Run, error) {
	runs, err := report.Load(paths)
	for i := range runs {
		redactRun(&runs[i])
	}
	return runs, err
}

// loadGroups is report.LoadGroups with every password removed from each run's target and
// command.
func loadGroups(paths []string) ([]report.Group, bool, error) {
	groups, ok, err := report.LoadGroups(paths)
	for g := range groups {
		for i := range groups[g].Runs {
			redactRun(&groups[g].Runs[i])
		}
	}
	return groups, ok, err
}

// redactRun removes passwords from the run's target string and command line.
func redactRun(r *report.Run) {
	r.Meta.Target.Target = driver.RedactTarget(r.Meta.Target.Target)
	for i, a := range r.Meta.Command {
		r.Meta.Command[i] = driver.RedactTarget(a)
	}
}

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/plan"
)

// Flags that conflict, or mean nothing where they are given, are refused with one sentence
// before anything runs: a flag that silently does nothing reads, in run.json, as if it had
// mattered.

// referenceLineWorkloads are the workloads whose reference client prints a line a second of its
// own (workload.ReferenceLines), which --reference-lines prints.
var referenceLineWorkloads = []string{"insert"}

// checkReferenceLines refuses --reference-lines on a workload whose reference prints no lines.
func (o *outputFlags) checkReferenceLines(workload string) error {
	if o.reference && !slices.Contains(referenceLineWorkloads, workload) {
		return fmt.Errorf("--reference-lines prints the lines of the Insert Benchmark's reference client; the %s workload's reference prints none: leave it out", workload)
	}
	return nil
}

// checkServerOnly refuses a flag that means something only on a SQL server (PostgreSQL,
// MySQL/MariaDB) when a run's target is not one.
func checkServerOnly(flag string, runs []plan.Run) error {
	var other []string
	for _, r := range runs {
		if r.Server != nil {
			continue
		}
		if spec, err := driver.Parse(r.Target); err == nil && spec.Kind != "postgres" && spec.Kind != "mysql" {
			other = append(other, r.Target)
		}
	}
	if len(other) > 0 {
		return fmt.Errorf("%s applies to PostgreSQL and MySQL/MariaDB targets only, and %s is not one: leave it out", flag, strings.Join(other, ", "))
	}
	return nil
}

// checkStepOps refuses an SLA on an op type that none of the steps records: it would judge
// nothing. stepOps gives a step's op types.
func (o *outputFlags) checkStepOps(steps []string, stepOps func(string) []string) error {
	for _, s := range o.slas {
		found := false
		for _, st := range steps {
			found = found || slices.Contains(stepOps(st), s.Op)
		}
		if !found {
			return fmt.Errorf("--sla %s judges op type %q, which none of the steps %s records: add a step that does or leave the SLA out", s, s.Op, strings.Join(steps, ","))
		}
	}
	return nil
}

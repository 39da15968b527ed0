// Package workload defines what a reference workload gives the rest of dbperf: its steps, each as
// a runner.Step plus what it adds to the step's summary, and a check of the database after each.
// Workloads never time anything and never print.
package workload

import (
	"context"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// StepPlan is one step, ready to run.
type StepPlan struct {
	Step runner.Step
	// Progress is the op type whose units measure progress and how many units the step must do,
	// for the live percentage and time left (Total 0: unknown).
	Progress measure.Op
	Total    int64
	// PerOp is the op type whose units per-operation costs are divided by: rows inserted on load
	// steps, queries on query steps (as the reference's reports do).
	PerOp measure.Op
	// Extra, if set, returns step-specific figures for summary.json once the step has run.
	Extra func(res runner.Result) map[string]any
	// Close releases the step's connections.
	Close func() error
}

// Workload is a reference workload bound to a target.
type Workload interface {
	// Steps are the steps to run, in order.
	Steps() []string
	// Plan prepares a step (DDL it needs, one connection per worker).
	Plan(ctx context.Context, step string) (*StepPlan, error)
	// Verify checks the database after a step and returns every problem found, or nil.
	Verify(ctx context.Context, step string) ([]string, error)
	// Settings describes the workload's configuration for run.json.
	Settings() map[string]any
}

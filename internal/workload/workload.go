// Package workload defines what a reference workload gives the rest of dbperf: its steps, each as
// a runner.Step plus what it adds to the step's summary, a check of the database after each, and
// a declaration of its operation types and figures, from which the live line, the archive and
// the reports are built. Workloads never time anything and never print.
package workload

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// None marks a StepPlan op field that the step does not have.
const None measure.Op = -1

// StepPlan is one step, ready to run. Its op fields index Step.Ops.
type StepPlan struct {
	Step runner.Step
	// Progress is the op type whose units measure progress and how many units the step must do,
	// for the live percentage and time left (Total 0: unknown).
	Progress measure.Op
	Total    int64
	// Wait, if set, makes the step a wait of at most this long (the Insert Benchmark's settle):
	// its progress is the seconds waited of it, not units of work.
	Wait time.Duration
	// Main is the step's main op type: per-operation costs divide by its units (rows inserted on
	// load steps, queries on query steps, as the Insert Benchmark's reports do), and stalls are
	// judged on its rate.
	Main measure.Op
	// PerOp, if set, are the op types whose units per-operation costs divide by instead of
	// Main's: all ten of LinkBench's request types, of which Main is only the most frequent.
	PerOp []measure.Op
	// Write is the op type whose units per-write host figures (writes and KB written per unit)
	// divide by, or None; Read likewise for the read rate, or None.
	Write, Read measure.Op
	// MainEnd, if set, is when the main op's work ended, when the step goes on after it
	// (overwriteandwait's compaction wait after its overwriters): the main op's rate is over
	// the seconds until then, and only they are judged for stalls. Zero: the step's end.
	MainEnd func() time.Time
	// Extra, if set, returns step-specific figures for summary.json once the step has run, and
	// warnings to print with them.
	Extra func(res runner.Result) (figures map[string]any, warnings []string)
	// WarmupEnd, if set, is called when the step's warm-up (--warmup) ends, from the runner's
	// goroutine right after its cut, while the clients run: the counts Extra's figures come from
	// start there (Mark). It must be quick.
	WarmupEnd func()
	// Close releases the step's connections.
	Close func() error
}

// Workload is a reference workload bound to a target.
type Workload interface {
	// Steps are the steps to run, in order.
	Steps() []string
	// Plan prepares a step (DDL it needs, one connection per worker).
	Plan(ctx context.Context, step string) (*StepPlan, error)
	// Verify checks the database after a step and returns every problem found, or nil; or
	// ErrNothingToCheck when the step wrote nothing it can check.
	Verify(ctx context.Context, step string) ([]string, error)
	// Settings describes the workload's configuration for run.json.
	Settings() map[string]any
	// Figures declares the workload's op types and figures for run.json and the reports.
	Figures() archive.Figures
}

// ErrNothingToCheck is Verify's answer for a step with nothing to check (a user's script run
// without --check): the step is reported unchecked rather than checked.
var ErrNothingToCheck = errors.New("nothing to check")

// Tunable is a workload a search can drive: it changes the arrival process and the length of
// the steps it runs next, says which steps leave the database as they found it (a search runs
// the load steps again before each trial of a step that does not), and which op types make up
// a step's searched stream (its achieved rate is theirs added up).
type Tunable interface {
	SetArrival(a Arrival)
	SetStepSeconds(seconds float64)
	KeepsSize(step string) bool
	RateOps(step string) []string
}

// ClientTunable is a workload whose request stream's client count a search can set (a closed
// loop's: dbperf search --vary clients).
type ClientTunable interface {
	SetClients(n int)
}

// Warmable is a workload whose timed steps may start with a warm-up (--warmup): the step's own
// clients run that long first, on the same arrivals, and the step's figures start after it.
// WarmUp prepares a step for a warm-up of d (a workload whose timed step is a schedule of work,
// as the Insert Benchmark's q steps, lengthens it by d); for a step of fixed work (a load, a
// fixed count of operations: its length is its work) it returns one sentence saying why a
// warm-up cannot precede it.
type Warmable interface {
	WarmUp(step string, d time.Duration) error
}

// CheckWarmup tells whether every step of wl can start with a warm-up of d, before anything
// runs: one sentence naming the first that cannot.
func CheckWarmup(wl Workload, d time.Duration) error {
	if d == 0 {
		return nil
	}
	if d < 0 {
		return fmt.Errorf("--warmup %s is negative: give a duration such as 30s", d)
	}
	w, ok := wl.(Warmable)
	if !ok {
		return errors.New("--warmup: this workload has no timed steps to warm up")
	}
	for _, step := range wl.Steps() {
		if err := w.WarmUp(step, d); err != nil {
			return fmt.Errorf("--warmup: %w", err)
		}
	}
	return nil
}

// Mark is the end of a step's warm-up as its clients see it: each keeps what it counted by
// then apart, so that the workload's figures cover the measured part. End is called once, from
// the runner's goroutine (StepPlan.WarmupEnd); each client asks Passed on its own goroutine
// before an operation, and once more before the figures are computed, after the step.
type Mark struct{ ended atomic.Bool }

// End marks the warm-up as over.
func (m *Mark) End() { m.ended.Store(true) }

// Passed reports, once per client (seen is the client's own), that the warm-up is over: the
// client then sets its counts so far aside.
func (m *Mark) Passed(seen *bool) bool {
	if *seen || !m.ended.Load() {
		return false
	}
	*seen = true
	return true
}

// Share is shard i's half-open share of n things (clients, key ranges, operations) in a run of
// count shards, the first n%count shards one larger: internal/shard's rule, which workloads do
// not import. A whole run (count 0 or 1) has all of them.
func Share(n int64, i, count int) (lo, hi int64) {
	if count <= 1 {
		return 0, n
	}
	c, k := int64(count), int64(i)
	q, r := n/c, n%c
	lo = k*q + min(k, r)
	hi = lo + q
	if k < r {
		hi++
	}
	return lo, hi
}

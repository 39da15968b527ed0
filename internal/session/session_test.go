package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// script is a workload whose steps do what a test says: no database, only the session's own
// handling of steps, failures, checks and interrupts is under test.
type script struct {
	steps    []string
	do       map[string]func(ctx context.Context) error // one operation per step; nil: succeed
	problems map[string][]string
	planErr  map[string]error
}

var scriptOps = []measure.OpType{{Name: "op", Unit: "operations", Abbrev: "o"}}

func (s *script) Steps() []string          { return s.steps }
func (s *script) Settings() map[string]any { return nil }
func (s *script) Figures() archive.Figures { return archive.Figures{Ops: scriptOps} }
func (s *script) Verify(_ context.Context, step string) ([]string, error) {
	return s.problems[step], nil
}

func (s *script) Plan(_ context.Context, step string) (*workload.StepPlan, error) {
	if err := s.planErr[step]; err != nil {
		return nil, err
	}
	do := s.do[step]
	return &workload.StepPlan{
		Step: runner.Step{Ops: scriptOps, Workers: []runner.Worker{{Name: "worker", Primary: true,
			Schedule: runner.ClosedLoop{Limit: 3},
			Do: runner.Single(0, func(ctx context.Context, _ int) (int64, error) {
				if do != nil {
					return 1, do(ctx)
				}
				return 1, nil
			})}}},
		Write: workload.None, Read: workload.None, Close: func() error { return nil },
	}, nil
}

// runScript runs a script into a new run directory and returns the run's error, run.json, the
// steps' summaries and the output.
func runScript(t *testing.T, ctx context.Context, w *script) (error, archive.Run, []archive.Step, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run")
	d, err := archive.Create(path, archive.Run{Name: "run", Figures: w.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	runErr := (&Session{Workload: w, Dir: d, Out: &out, Verify: true, Tick: 50 * time.Millisecond}).Run(ctx)
	meta, steps, err := archive.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return runErr, meta, steps, out.String()
}

func TestStepFailureKeepsFinishedSteps(t *testing.T) {
	boom := errors.New("boom")
	w := &script{steps: []string{"a", "b", "c"}, do: map[string]func(context.Context) error{"b": func(context.Context) error { return boom }}}
	err, meta, steps, out := runScript(t, t.Context(), w)
	if err == nil || !strings.Contains(err.Error(), "step b failed") || !errors.Is(err, boom) {
		t.Fatalf("Run: %v, want step b failed with boom", err)
	}
	if meta.Complete || len(meta.Steps) != 2 || !meta.Steps[0].Complete || meta.Steps[1].Complete {
		t.Errorf("run.json: complete %v, steps %+v; want a complete, b not, no c", meta.Complete, meta.Steps)
	}
	if !steps[0].Complete || !steps[0].Verified || steps[1].Complete || !strings.Contains(steps[1].Error, "boom") {
		t.Errorf("summaries: a %+v; b complete %v error %q", steps[0], steps[1].Complete, steps[1].Error)
	}
	if steps[1].Ops["op"].Errors != 1 {
		t.Errorf("b recorded %d errors, want the 1 failed attempt", steps[1].Ops["op"].Errors)
	}
	if !strings.Contains(out, "== summary of run") || !strings.Contains(out, "FAILED") {
		t.Errorf("no closing summary with the failed step:\n%s", out)
	}
}

func TestInterruptMarksTheStep(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	w := &script{steps: []string{"a", "b"}, do: map[string]func(context.Context) error{
		"b": func(ctx context.Context) error { cancel(); <-ctx.Done(); return ctx.Err() },
	}}
	err, meta, steps, _ := runScript(t, ctx, w)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run: %v, want ErrInterrupted", err)
	}
	if meta.Complete || meta.Error != ErrInterrupted.Error() || len(steps) != 2 || !steps[0].Complete {
		t.Errorf("run.json complete %v error %q, %d steps", meta.Complete, meta.Error, len(steps))
	}
	if steps[1].Complete || steps[1].Error != ErrInterrupted.Error() {
		t.Errorf("interrupted step: complete %v, error %q; want false, %q", steps[1].Complete, steps[1].Error, ErrInterrupted)
	}
}

func TestCheckProblemsFailTheRun(t *testing.T) {
	w := &script{steps: []string{"a", "b"}, problems: map[string][]string{"a": {"table t: 3 rows, expected 4"}}}
	err, _, steps, _ := runScript(t, t.Context(), w)
	if err == nil || !strings.Contains(err.Error(), "table t: 3 rows, expected 4") {
		t.Fatalf("Run: %v, want the problem", err)
	}
	if len(steps) != 1 || steps[0].Verified || steps[0].Complete || len(steps[0].Problems) != 1 {
		t.Errorf("step a: %+v", steps)
	}
}

func TestPlanErrorLeavesNoStep(t *testing.T) {
	w := &script{steps: []string{"a", "b"}, planErr: map[string]error{"b": errors.New("no such table")}}
	err, meta, steps, _ := runScript(t, t.Context(), w)
	if err == nil || !strings.Contains(err.Error(), "step b: no such table") {
		t.Fatalf("Run: %v", err)
	}
	if len(steps) != 1 || meta.Error == "" {
		t.Errorf("%d steps, run.json error %q; want 1 and the error", len(steps), meta.Error)
	}
}

// TestLiveGolden feeds made-up intervals to each live format and compares the lines with
// testdata/live-*.txt (go test -update rewrites them after a deliberate change).
func TestLiveGolden(t *testing.T) {
	ops := []measure.OpType{{Name: "insert", Unit: "rows", Abbrev: "i"}, {Name: "delete", Unit: "rows", Abbrev: "d"}, {Name: "query", Unit: "queries", Abbrev: "q"}}
	plan := &workload.StepPlan{Step: runner.Step{Ops: ops}, Main: 2, Progress: 0, Total: 600}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	interval := func(from, to float64, rows, queries int64, lat time.Duration) *measure.Interval {
		iv := measure.NewInterval(len(ops))
		iv.Start, iv.End = start.Add(time.Duration(from*float64(time.Second))), start.Add(time.Duration(to*float64(time.Second)))
		for o, units := range []int64{rows, rows, queries} {
			a := &iv.Ops[o]
			a.Units, a.Statements = units, units/50+1
			a.Hist.RecordValue(int64(lat) * int64(o+1))
		}
		return iv
	}
	ivs := []*measure.Interval{interval(0, 1, 200, 31000, 2*time.Millisecond), interval(1, 2, 200, 29000, 150*time.Microsecond),
		interval(2, 3, 200, 30500, 40*time.Millisecond), interval(3, 3.004, 0, 100, time.Millisecond)}
	ivs[1].Ops[2].Errors = 2
	for _, c := range []struct {
		live  Live
		every time.Duration
		file  string
	}{{LiveCompact, time.Second, "live-compact.txt"}, {LiveWide, time.Second, "live-wide.txt"}, {LiveCompact, 2 * time.Second, "live-every-2s.txt"}, {LiveQuiet, time.Second, "live-quiet.txt"}} {
		var b bytes.Buffer
		l := newLive(&b, c.live, c.every, "qr100", plan, nil)
		for _, iv := range ivs {
			l.print(iv)
		}
		l.finish()
		golden(t, c.file, b.Bytes())
	}
}

var update = os.Getenv("DBPERF_UPDATE_GOLDEN") != ""

// golden compares got with testdata/name, or rewrites it when DBPERF_UPDATE_GOLDEN is set.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (DBPERF_UPDATE_GOLDEN=1 go test creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (DBPERF_UPDATE_GOLDEN=1 go test rewrites it after a deliberate change):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestLiveWithoutProgress: a step with no measure of progress (workload.None) prints "-" for
// it, in every format, rather than failing.
func TestLiveWithoutProgress(t *testing.T) {
	ops := []measure.OpType{{Name: "get"}, {Name: "put"}}
	plan := &workload.StepPlan{Step: runner.Step{Ops: ops}, Main: workload.None, Progress: workload.None}
	iv := measure.NewInterval(len(ops))
	iv.Start, iv.End = time.Unix(0, 0), time.Unix(1, 0)
	for _, live := range []Live{LiveCompact, LiveWide} {
		var b bytes.Buffer
		l := newLive(&b, live, time.Second, "s", plan, nil)
		l.print(iv)
		l.finish()
		if !strings.Contains(b.String(), " -") {
			t.Errorf("%s: %q", live, b.String())
		}
	}
}

// refLines formats each interval as its op types' units, as a workload's reference lines.
type refLines struct{}

func (refLines) ReferenceLines(ops []measure.OpType) workload.LineFormatter { return refLines{} }
func (refLines) Line(iv *measure.Interval) string {
	return fmt.Sprintf("units %d %d\n", iv.Ops[0].Units, iv.Ops[1].Units)
}

// TestLiveReference: --reference-lines prints the workload's own lines every interval, not
// merged by the report interval; a workload without them gets the compact line, and says so.
func TestLiveReference(t *testing.T) {
	ops := []measure.OpType{{Name: "get"}, {Name: "put"}}
	plan := &workload.StepPlan{Step: runner.Step{Ops: ops}, Main: 0, Progress: workload.None}
	iv := measure.NewInterval(len(ops))
	iv.Start, iv.End = time.Unix(0, 0), time.Unix(1, 0)
	iv.Ops[0].Units, iv.Ops[1].Units = 3, 4
	var b bytes.Buffer
	l := newLive(&b, LiveReference, 2*time.Second, "s", plan, refLines{})
	l.print(iv)
	l.print(iv)
	l.finish()
	if b.String() != "== step s\nunits 3 4\nunits 3 4\n" {
		t.Errorf("with the workload's lines: %q", b.String())
	}
	b.Reset()
	l = newLive(&b, LiveReference, time.Second, "s", plan, nil)
	l.print(iv)
	l.finish()
	if !strings.Contains(b.String(), "no lines of its own: the compact line instead") || !strings.Contains(b.String(), "get") {
		t.Errorf("without them: %q", b.String())
	}
}

// TestPerOpDivisor: per-operation costs divide by the units of the plan's PerOp op types when
// it names them (all of LinkBench's request types), else by the main op type's.
func TestPerOpDivisor(t *testing.T) {
	ops := []measure.OpType{{Name: "a"}, {Name: "b"}}
	res := runner.Result{Total: measure.NewInterval(2), CPU: hostproc.CPUTime{User: 300 * time.Millisecond}}
	res.Total.Ops[0].Units, res.Total.Ops[1].Units = 1000, 2000
	plan := &workload.StepPlan{Step: runner.Step{Ops: ops}, Main: 0, Write: workload.None, Read: workload.None}
	if sum, _ := summarize("s", plan, res); sum.ClientCPUUsPerOp != 300 {
		t.Errorf("by the main op: %v us/op, want 300 (0.3 s / 1000)", sum.ClientCPUUsPerOp)
	}
	plan.PerOp = []measure.Op{0, 1}
	if sum, _ := summarize("s", plan, res); sum.ClientCPUUsPerOp != 100 {
		t.Errorf("by both ops: %v us/op, want 100 (0.3 s / 3000)", sum.ClientCPUUsPerOp)
	}
}

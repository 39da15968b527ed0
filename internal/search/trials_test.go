package search

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload"
)

// fake is a workload with one searched step, q, whose queries keep up with any rate up to
// capacity, and a stepper that records the steps it ran.
type fake struct {
	keeps    bool
	capacity float64
	arrival  workload.Arrival
	clients  int
	ran      []string
}

func (f *fake) Steps() []string                                          { return []string{"load", "q"} }
func (f *fake) Plan(context.Context, string) (*workload.StepPlan, error) { return nil, nil }
func (f *fake) Verify(context.Context, string) ([]string, error)         { return nil, nil }
func (f *fake) Settings() map[string]any                                 { return nil }
func (f *fake) Figures() archive.Figures {
	return archive.Figures{Ops: []measure.OpType{{Name: "query"}}}
}
func (f *fake) SetArrival(a workload.Arrival) { f.arrival = a }
func (f *fake) SetStepSeconds(float64)        {}
func (f *fake) KeepsSize(string) bool         { return f.keeps }
func (f *fake) RateOps(step string) []string {
	if step == "q" {
		return []string{"query"}
	}
	return nil
}
func (f *fake) SetClients(n int) { f.clients = n }

func (f *fake) Step(_ context.Context, step, as string) (archive.Step, error) {
	f.ran = append(f.ran, as)
	done := min(f.arrival.Rate, f.capacity)
	return archive.Step{Step: as, Seconds: 1, Ops: map[string]measure.OpSummary{"query": {Statements: int64(done)}}}, nil
}

func TestTrialsRunAsPlanned(t *testing.T) {
	plan := Plan{Workload: "fake", Step: "q", Setup: []string{"load"}, Vary: "rate", SLAs: []string{"query:p99<1s"},
		Config: Config{Start: 100, Min: 10, Max: 400, Resolution: 0.05, MaxTrials: 12}, Warmup: time.Second, Trial: time.Second}
	f := &fake{keeps: true, capacity: 1e9}
	rec, err := plan.Run(t.Context(), f, f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"load", "q-r100-warmup", "q-r100", "q-r200-warmup", "q-r200", "q-r400-warmup", "q-r400"}
	if !slices.Equal(f.ran, want) || rec.Rate != 400 || !rec.Bounded || rec.Rule != RateRule || len(rec.Trials) != 3 {
		t.Errorf("ran %v; record %+v", f.ran, rec)
	}
	// A step that changes the database gets the setup again before every trial but the first.
	f = &fake{capacity: 150}
	plan.Warmup = 0
	rec, err = plan.Run(t.Context(), f, f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.ran[:4], []string{"load", "q-r100", "load-r200", "q-r200"}) || rec.Rate < 150 || rec.FailRate <= rec.Rate {
		t.Errorf("ran %v; record %+v", f.ran, rec)
	}
	if tr := rec.Trials[1]; tr.Pass || !strings.Contains(tr.Why, "below 95% of the offered 200/s") {
		t.Errorf("trial at 200/s with a capacity of 150: %+v", tr)
	}
	// Varying clients: a closed loop, no offered rate to hold.
	f = &fake{keeps: true}
	plan.Vary, plan.Config = "clients", Config{Start: 1, Min: 1, Max: 2, Resolution: 0.05, MaxTrials: 4, Whole: true}
	rec, err = plan.Run(t.Context(), f, f, io.Discard)
	if err != nil || rec.Rule != ClientsRule || f.clients != 2 || f.arrival.Process != workload.Closed || !slices.Contains(f.ran, "q-c2") {
		t.Errorf("clients: %v, ran %v, record %+v", err, f.ran, rec)
	}
}

func TestCheckRefuses(t *testing.T) {
	base := Plan{Workload: "fake", Step: "q", Vary: "rate", SLAs: []string{"query:p99<1s"}, Trial: time.Second}
	for _, c := range []struct {
		edit  func(p *Plan)
		keeps bool
		want  string
	}{
		{func(p *Plan) { p.SLAs = nil }, true, "at least one --sla"},
		{func(p *Plan) { p.Trial = 0 }, true, "--trial must be at least 1s"},
		{func(p *Plan) { p.Step = "load" }, true, "step load cannot be searched"},
		{func(p *Plan) { p.SLAs = []string{"querry:p99<1s"} }, true, `names op type "querry"`},
		{func(p *Plan) {}, false, "give the --setup steps"},
	} {
		p := base
		c.edit(&p)
		if err := p.Check(&fake{keeps: c.keeps}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", p, err, c.want)
		}
	}
}

func TestJudge(t *testing.T) {
	slas := []measure.SLA{{Op: "query", Percentile: 99, Bound: time.Millisecond}}
	sum := archive.Step{Seconds: 2, Ops: map[string]measure.OpSummary{"query": {Statements: 2000, P99Us: 800}},
		SLAs: []measure.SLAResult{{Met: true}}}
	if tr := Judge(sum, 1000, slas, []string{"query"}, nil, false); !tr.Pass || tr.Achieved != 1000 || tr.P99Us != 800 {
		t.Errorf("a trial that kept up: %+v", tr)
	}
	if tr := Judge(sum, 2000, slas, []string{"query"}, nil, false); tr.Pass || !strings.Contains(tr.Why, "below 95%") {
		t.Errorf("half the offered rate: %+v", tr)
	}
	if tr := Judge(sum, 2000, slas, []string{"query"}, nil, true); !tr.Pass {
		t.Errorf("a closed loop has no offered rate: %+v", tr)
	}
	sum.Dropped = 3
	if tr := Judge(sum, 1000, slas, []string{"query"}, nil, false); tr.Pass || tr.Why != "3 arrivals dropped" {
		t.Errorf("dropped arrivals: %+v", tr)
	}
}

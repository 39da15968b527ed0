package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload"
)

// The pass rules, as search.json states them.
const (
	// RateRule is the pass rule of a search of the arrival rate.
	RateRule = "every SLA met over the measured part, at least 95% of the offered rate completed, no arrival dropped, the step's gate held"
	// ClientsRule is the pass rule of a search of a closed loop's client count, which offers no
	// rate to hold.
	ClientsRule = "every SLA met over the measured part, no operation failed after its retries, the step's gate held"
)

// Plan is a search of one step of a workload: what its trials vary, the goals a passing trial
// meets, and how each trial runs.
type Plan struct {
	Workload string   // the workload's name, for messages
	Step     string   // the step searched
	Setup    []string // steps that load the database first (and again before each trial of a step that changes it)
	// Vary is what the trials vary: "rate" (open-loop arrivals a second) or "clients" (a closed
	// loop's client count, with Config.Whole set).
	Vary          string
	SLAs          []string // the goals, OP:pXX<DURATION, as given
	Config        Config
	Warmup, Trial time.Duration // each trial's warm-up (archived, not judged) and measured part
	MaxBacklog    int           // arrivals that may wait for a free client
	Seed          uint64
}

// Stepper runs one of the workload's steps, archived under the name as, and returns its
// summary: a session's Step.
type Stepper interface {
	Step(ctx context.Context, step, as string) (archive.Step, error)
}

// Goals checks the plan's own settings and returns its SLAs, parsed.
func (p Plan) Goals() ([]measure.SLA, error) {
	if len(p.SLAs) == 0 {
		return nil, errors.New("search needs at least one --sla: the goal a passing trial meets (e.g. --sla 'query:p99<2ms')")
	}
	var slas []measure.SLA
	for _, s := range p.SLAs {
		sla, err := measure.ParseSLA(s)
		if err != nil {
			return nil, err
		}
		slas = append(slas, sla)
	}
	if p.Warmup < 0 || p.Trial < time.Second {
		return nil, fmt.Errorf("--warmup must not be negative and --trial must be at least 1s (got %s, %s)", p.Warmup, p.Trial)
	}
	return slas, nil
}

// bound is a plan bound to a workload that can be searched.
type bound struct {
	Plan
	slas   []measure.SLA
	tw     workload.Tunable
	ct     workload.ClientTunable // nil unless the plan varies clients
	reload bool                   // the step changes the database: the setup runs before each trial
	gate   *archive.Gate
}

// Check tells whether the workload can be searched as planned, before anything runs.
func (p Plan) Check(wl workload.Workload) error {
	_, err := p.bind(wl)
	return err
}

func (p Plan) bind(wl workload.Workload) (*bound, error) {
	slas, err := p.Goals()
	if err != nil {
		return nil, err
	}
	b := &bound{Plan: p, slas: slas, gate: wl.Figures().Gate}
	tw, ok := wl.(workload.Tunable)
	if !ok || len(tw.RateOps(p.Step)) == 0 {
		return nil, fmt.Errorf("step %s cannot be searched: it has no request stream whose rate a search could set", p.Step)
	}
	b.tw = tw
	if p.Vary == "clients" {
		if b.ct, ok = wl.(workload.ClientTunable); !ok {
			return nil, fmt.Errorf("--vary clients: the %s workload's clients cannot change between trials (its tables are per client); vary the rate", p.Workload)
		}
	}
	// A step that changes the database is preceded in every trial by the setup steps again, so
	// that each trial starts from the same database.
	b.reload = !tw.KeepsSize(p.Step)
	if b.reload && len(p.Setup) == 0 {
		return nil, fmt.Errorf("step %s changes the database: give the --setup steps that load it, which run again before each trial", p.Step)
	}
	ops := map[string]bool{}
	for _, o := range wl.Figures().Ops {
		ops[o.Name] = true
	}
	for _, s := range slas {
		if !ops[s.Op] {
			return nil, fmt.Errorf("--sla %s names op type %q, which the %s workload does not have", s, s.Op, p.Workload)
		}
	}
	return b, nil
}

// Run runs the setup steps, then the search's trials of the step through s, writing a line per
// trial to out. It returns search.json's record, with the trials so far when a step fails.
func (p Plan) Run(ctx context.Context, s Stepper, wl workload.Workload, out io.Writer) (archive.Search, error) {
	rec := archive.Search{Step: p.Step, Vary: p.Vary, SLAs: p.SLAs, Rule: RateRule, Config: p.Config}
	if p.Vary == "clients" {
		rec.Rule = ClientsRule
	}
	b, err := p.bind(wl)
	if err != nil {
		return rec, err
	}
	for _, step := range p.Setup {
		if _, err := s.Step(ctx, step, step); err != nil {
			return rec, err
		}
	}
	res, err := Run(p.Config, func(rate float64) (Outcome, error) {
		tr, err := b.trial(ctx, s, rate, len(rec.Trials) > 0)
		if err != nil {
			return Outcome{}, err
		}
		rec.Trials = append(rec.Trials, tr)
		fmt.Fprintf(out, "   trial %d at %.0f/s: %s\n", len(rec.Trials), rate, tr.Why)
		return Outcome{Pass: tr.Pass, Why: tr.Why}, nil
	})
	rec.Rate, rec.FailRate, rec.Bounded, rec.Reason = res.Rate, res.Fail, res.Bounded, res.Reason
	return rec, err
}

// trial runs one trial at rate (a client count when varying clients): the setup again if the
// step changes the database and this is not the first trial, the warm-up, then the measured
// step, which it judges.
func (b *bound) trial(ctx context.Context, s Stepper, rate float64, again bool) (archive.Trial, error) {
	b.tw.SetArrival(workload.Arrival{Process: workload.Constant, Rate: rate, MaxBacklog: b.MaxBacklog, Seed: b.Seed})
	as := fmt.Sprintf("%s-r%.0f", b.Step, rate)
	if b.ct != nil {
		b.tw.SetArrival(workload.Arrival{Process: workload.Closed})
		b.ct.SetClients(int(rate))
		as = fmt.Sprintf("%s-c%.0f", b.Step, rate)
	}
	if b.reload && again {
		for _, step := range b.Setup {
			if _, err := s.Step(ctx, step, fmt.Sprintf("%s-r%.0f", step, rate)); err != nil {
				return archive.Trial{}, err
			}
		}
	}
	if b.Warmup > 0 {
		b.tw.SetStepSeconds(b.Warmup.Seconds())
		if _, err := b.step(ctx, s, as+"-warmup"); err != nil {
			return archive.Trial{}, err
		}
	}
	b.tw.SetStepSeconds(b.Trial.Seconds())
	sum, err := b.step(ctx, s, as)
	if err != nil {
		return archive.Trial{}, err
	}
	tr := Judge(sum, rate, b.slas, b.tw.RateOps(b.Step), b.gate, b.ct != nil)
	tr.Step = as
	return tr, nil
}

// step runs the searched step as as, and fails when an SLA's op type is not in it: every trial
// would pass that SLA unjudged.
func (b *bound) step(ctx context.Context, s Stepper, as string) (archive.Step, error) {
	sum, err := s.Step(ctx, b.Step, as)
	if err != nil {
		return sum, err
	}
	for _, sla := range b.slas {
		if _, ok := sum.Ops[sla.Op]; !ok {
			return sum, fmt.Errorf("--sla %s: step %s has no %s operations, so the SLA cannot be judged", sla, b.Step, sla.Op)
		}
	}
	return sum, nil
}

// Judge applies the pass rule to a trial's measured step: its achieved rate is that of the
// stream's op types added up, its latencies those of the first SLA's op type. The rate counts
// operations, as arrivals do, not their units (a multiget is one arrival of 10 keys). closed
// marks a closed loop's trial (rate is a client count), which has no offered rate to hold.
func Judge(sum archive.Step, rate float64, slas []measure.SLA, rateOps []string, gate *archive.Gate, closed bool) archive.Trial {
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

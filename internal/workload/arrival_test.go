package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

func TestParseArrival(t *testing.T) {
	for _, c := range []struct {
		process, rate string
		want          string // String() of the result, or the start of the error
		err           bool
	}{
		{"", "", "closed", false},
		{"closed", "", "closed", false},
		{"poisson", "20000", "poisson 20000/s", false},
		{"constant", "500/client", "constant 500/s per client", false},
		{"poisson", "", "--arrival poisson needs --rate", true},
		{"closed", "100", "--rate 100 needs an open-loop arrival process", true},
		{"uniform", "100", `unknown --arrival "uniform"`, true},
		{"constant", "-5", `--rate "-5" is not a positive number`, true},
		{"constant", "fast/client", `--rate "fast/client" is not a positive number`, true},
	} {
		a, err := workload.ParseArrival(c.process, c.rate)
		switch {
		case c.err && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("ParseArrival(%q, %q) error %v, want one starting %q", c.process, c.rate, err, c.want)
		case !c.err && (err != nil || a.String() != c.want):
			t.Errorf("ParseArrival(%q, %q) = %q, %v; want %q", c.process, c.rate, a, err, c.want)
		}
	}
}

func nop(context.Context, int) (measure.Op, int64, error) { return 0, 1, nil }

// TestApplyClosed shares a limit out among the clients, the first ones taking the remainder,
// and gives a client with no share no worker.
func TestApplyClosed(t *testing.T) {
	var s runner.Step
	st := workload.Stream{Name: "reader", Do: []runner.DoFunc{nop, nop, nop}, Primary: true, Limit: 7}
	if err := (workload.Arrival{}).Apply(&s, st); err != nil {
		t.Fatal(err)
	}
	var limits []int64
	for _, w := range s.Workers {
		limits = append(limits, w.Schedule.(runner.ClosedLoop).Limit)
		if !w.Primary {
			t.Errorf("%s is not primary", w.Name)
		}
	}
	if len(limits) != 3 || limits[0] != 3 || limits[1] != 2 || limits[2] != 2 || len(s.Pools) != 0 {
		t.Errorf("limits %v and %d pools, want [3 2 2] and none", limits, len(s.Pools))
	}
	s = runner.Step{}
	st.Limit = 2
	if err := (workload.Arrival{}).Apply(&s, st); err != nil || len(s.Workers) != 2 {
		t.Errorf("2 operations over 3 clients: %d workers (%v), want 2", len(s.Workers), err)
	}
}

// TestApplyOpen makes one pool of every client at the total rate, per client rates multiplied.
func TestApplyOpen(t *testing.T) {
	var s runner.Step
	a := workload.Arrival{Process: workload.Constant, Rate: 100, PerClient: true, MaxBacklog: 5}
	if err := a.Apply(&s, workload.Stream{Name: "q", Do: []runner.DoFunc{nop, nop}}); err != nil {
		t.Fatal(err)
	}
	if len(s.Pools) != 1 || len(s.Workers) != 0 {
		t.Fatalf("%d pools, %d workers; want 1, 0", len(s.Pools), len(s.Workers))
	}
	p := s.Pools[0]
	p.Arrivals.Next()
	if gap := p.Arrivals.Next(); gap.Seconds() != 1.0/200 || len(p.Do) != 2 || p.MaxBacklog != 5 {
		t.Errorf("gap %v, %d workers, backlog %d; want 5ms (200/s in all), 2, 5", gap, len(p.Do), p.MaxBacklog)
	}
	if err := a.Apply(&s, workload.Stream{Name: "none"}); err == nil {
		t.Error("a stream without clients was accepted")
	}
}

package session

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/jackc/pgx/v5/pgconn"
)

// overloaded is a workload of one step: a primary worker that lasts 1s beside an open-loop
// stream of 10 arrivals, all due at the start, that one worker serves in 300ms each, the first
// two attempts failing with a deadlock. 4 arrivals run (the last ends at 1.2s); 6 have waited
// 1s when the step's stop ends their schedule. (Arrivals all due at once: the pool's leader
// never sleeps, whose precise sleep would hold the virtual clock.)
type overloaded struct{ script }

// burst arrivals are all due at the start.
type burst struct{}

func (burst) Next() time.Duration { return 0 }

func (w *overloaded) Plan(_ context.Context, step string) (*workload.StepPlan, error) {
	var n atomic.Int64
	sleep := func(ctx context.Context, d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return &workload.StepPlan{
		Step: runner.Step{Sleep: runner.CoarseSleep, Ops: scriptOps, Retries: 2, OpenLoop: true,
			Workers: []runner.Worker{{Name: "primary", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
				Do: runner.Single(0, func(ctx context.Context, _ int) (int64, error) { return 0, sleep(ctx, time.Second) })}},
			Pools: []runner.Pool{{Name: "readers", Arrivals: burst{}, Limit: 10,
				Do: []runner.DoFunc{runner.Single(0, func(ctx context.Context, _ int) (int64, error) {
					if n.Add(1) <= 2 {
						return 0, &pgconn.PgError{Severity: "ERROR", Code: "40P01", Message: "deadlock detected"}
					}
					return 1, sleep(ctx, 300*time.Millisecond)
				})}}}},
		Write: workload.None, Read: workload.None, Close: func() error { return nil },
	}, nil
}

// TestOpenLoopAndErrorFigures: the step's summary.json and end-of-step lines account for every
// arrival (offered, achieved, not started), flag the latencies as lower bounds, mark the step
// overloaded, and say what the errors were.
func TestOpenLoopAndErrorFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &overloaded{script{steps: []string{"q"}}}
		path := filepath.Join(t.TempDir(), "run")
		d, err := archive.Create(path, archive.Run{Name: "run", Figures: w.Figures()})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := (&Session{Workload: w, Dir: d, Out: &out}).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		_, steps, err := archive.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		s := steps[0]
		o := s.OpenLoop
		if o == nil || o.Offered != 10 || o.Achieved != 4 || o.NotStarted != 6 || !o.Overloaded || o.NotStartedWaitMaxUs != 1e6 {
			t.Fatalf("open_loop %+v; want 10 offered, 4 achieved, 6 not started, overloaded", o)
		}
		op := s.Ops["op"]
		if !op.LatencyLowerBound || op.NotStarted != 6 || op.P50Us < 999_000 {
			t.Errorf("op: lower bound %v, not started %d, p50 %v µs; want true, 6, 1 s", op.LatencyLowerBound, op.NotStarted, op.P50Us)
		}
		want := []measure.ErrorCount{{Kind: "deadlock", Count: 2, First: "ERROR: deadlock detected (SQLSTATE 40P01)"}}
		if len(op.ErrorKinds) != 1 || op.ErrorKinds[0] != want[0] {
			t.Errorf("error kinds %+v, want %+v", op.ErrorKinds, want)
		}
		for _, line := range []string{
			"open loop: offered 10 (8.3/s), achieved 4 (3.3/s), dropped 0, not started 6 (waited up to 1.00 s)",
			"OVERLOADED: readers: 6 (60.0%) still waiting at the end of 10 offered",
			"latencies are lower bounds, with waits of arrivals never started: op (6 not started)",
			`errors: op 2 (deadlock 2: "ERROR: deadlock detected (SQLSTATE 40P01)")`,
		} {
			if !strings.Contains(out.String(), line) {
				t.Errorf("output lacks %q:\n%s", line, out.String())
			}
		}
	})
}

// TestErrorLinesFit: an op type's errors take one line of at most 100 columns, their messages
// cut to fit; when that would leave too little of them, one line per kind.
func TestErrorLinesFit(t *testing.T) {
	long := "ERROR: could not serialize access due to read/write dependencies among transactions (SQLSTATE 40001)"
	lost := "pgwire: the server closed the connection"
	one := errorLines("query", 12, []measure.ErrorCount{{Kind: "serialization", Count: 9, First: long}, {Kind: "other", Count: 3, First: "unexpected EOF"}})
	if len(one) != 1 || len(one[0]) > lineWidth || !strings.HasPrefix(one[0], `   errors: query 12 (serialization 9: "ERROR: could not`) ||
		!strings.HasSuffix(one[0], `..."; other 3: "unexpected EOF")`) {
		t.Errorf("%q", one)
	}
	many := errorLines("get_link_list", 12, []measure.ErrorCount{
		{Kind: "serialization", Count: 9, First: long}, {Kind: "connection_lost", Count: 3, First: lost}})
	if len(many) != 3 || many[0] != "   errors: get_link_list 12" || many[2] != `     connection_lost 3: "`+lost+`"` ||
		!strings.HasPrefix(many[1], `     serialization 9: "ERROR: could not serialize`) {
		t.Errorf("%q", many)
	}
	for _, l := range many {
		if len(l) > lineWidth {
			t.Errorf("%d columns: %s", len(l), l)
		}
	}
	if short := errorLines("query", 1, []measure.ErrorCount{{Kind: "other", Count: 1, First: "boom"}}); short[0] != `   errors: query 1 (other 1: "boom")` {
		t.Errorf("short line %q", short)
	}
}

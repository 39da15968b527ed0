package runner_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

var (
	errReset   = errors.New("connection reset by peer")
	errRefused = errors.New("connection refused")
)

// server is a fake target that is down between from and until (virtual time); a client's
// connection, once the server was down under it, stays broken until redialed.
type server struct {
	start       time.Time
	from, until time.Duration
}

func (s *server) down() bool {
	d := time.Since(s.start)
	return d >= s.from && d < s.until
}

// client does 100 ms operations on s, each failing with a runner.Lost once its connection broke.
func (s *server) client(mu *sync.Mutex, redials *int) runner.DoFunc {
	broken := false
	redial := func(ctx context.Context) error {
		if s.down() {
			return errRefused
		}
		mu.Lock()
		*redials++
		mu.Unlock()
		broken = false
		return nil
	}
	return runner.Single(opInsert, func(ctx context.Context, _ int) (int64, error) {
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return 0, err
		}
		if broken = broken || s.down(); broken {
			return 0, &runner.Lost{Err: errReset, Redial: redial}
		}
		return 1, nil
	})
}

func faultStep(s *server, timeout time.Duration, mu *sync.Mutex, redials *int) runner.Step {
	st := runner.Step{Ops: allOps, Sleep: runner.CoarseSleep, FaultTimeout: timeout, Retries: 0,
		Classify: func(err error) string {
			if errors.Is(err, errReset) {
				return "connection_lost"
			}
			return "other"
		}}
	for range 2 {
		st.Workers = append(st.Workers, runner.Worker{Name: "inserter", Primary: true,
			Schedule: runner.ClosedLoop{Limit: 60}, Do: s.client(mu, redials)})
	}
	return st
}

// A server down for 3 s in the middle of a step: every worker redials when it is back and
// finishes its operations; the loss is counted by kind, the retries, the reconnects and one
// window of about 3 s.
func TestLostConnectionsRedialAndRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		redials := 0
		s := &server{start: time.Now(), from: 2 * time.Second, until: 5 * time.Second}
		res := runner.Run(context.Background(), faultStep(s, time.Minute, &mu, &redials))
		if res.Err != nil || !res.Complete {
			t.Fatalf("the step failed: %v", res.Err)
		}
		ins := res.Total.Ops[opInsert]
		if ins.Units != 120 {
			t.Errorf("%d operations done, want 120", ins.Units)
		}
		if len(ins.ErrorKinds) != 1 || ins.ErrorKinds[0].Kind != "connection_lost" || ins.Errors != 2 {
			t.Errorf("errors %d by kind %+v, want 2 connection_lost (one per worker)", ins.Errors, ins.ErrorKinds)
		}
		f := res.Faults
		if f.Reconnects != 2 || redials != 2 || f.Retries != 2 {
			t.Errorf("reconnects %d (redials %d), retries %d: want 2, 2, 2", f.Reconnects, redials, f.Retries)
		}
		if len(f.Windows) != 1 {
			t.Fatalf("windows %+v, want 1", f.Windows)
		}
		if w := f.Windows[0].End.Sub(f.Windows[0].Start); w < 2900*time.Millisecond || w > 4*time.Second {
			t.Errorf("the window lasted %v, the server was down 3s", w)
		}
	})
}

// A server that never comes back ends the step after the fault timeout, with the last error;
// the window has no end.
func TestUnreachableEndsAfterFaultTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		redials := 0
		s := &server{start: time.Now(), from: time.Second, until: time.Hour}
		t0 := time.Now()
		res := runner.Run(context.Background(), faultStep(s, 10*time.Second, &mu, &redials))
		var u *runner.Unreachable
		if !errors.As(res.Err, &u) || !errors.Is(res.Err, errRefused) || res.Complete {
			t.Fatalf("err %v, want the target unreachable after the fault timeout", res.Err)
		}
		if took := time.Since(t0); took < 11*time.Second || took > 13*time.Second {
			t.Errorf("the step took %v: the server went down after 1s, the timeout is 10s", took)
		}
		if w := res.Faults.Windows; len(w) != 1 || !w[0].End.IsZero() {
			t.Errorf("windows %+v, want one without an end", w)
		}
		if res.Total.Ops[opInsert].Units == 0 {
			t.Error("the seconds before the loss were not kept")
		}
	})
}

// Ctrl-C while the workers redial ends the step at once, as interrupted, not failed.
func TestInterruptWhileRedialing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		redials := 0
		s := &server{start: time.Now(), from: time.Second, until: time.Hour}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(3*time.Second, cancel)
		t0 := time.Now()
		res := runner.Run(ctx, faultStep(s, time.Hour, &mu, &redials))
		if !errors.Is(res.Err, context.Canceled) {
			t.Errorf("err %v, want canceled", res.Err)
		}
		if took := time.Since(t0); took > 4*time.Second {
			t.Errorf("the step took %v after a cancel at 3s", took)
		}
	})
}

// Without a fault timeout a lost connection fails the step at once, as before.
func TestNoFaultTimeoutFailsAtLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		redials := 0
		s := &server{start: time.Now(), from: time.Second, until: time.Hour}
		res := runner.Run(context.Background(), faultStep(s, 0, &mu, &redials))
		if !errors.Is(res.Err, errReset) || redials != 0 || res.Faults.Reconnects != 0 {
			t.Errorf("err %v, redials %d: want the loss, no redial", res.Err, redials)
		}
	})
}

// A worker that finds its connection lost only after the server is back (idle through the
// outage, as a deleter waiting for rows) redials at once and opens no second window.
func TestLateDiscoveryIsTheSameOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		redials := 0
		s := &server{start: time.Now(), from: 2 * time.Second, until: 5 * time.Second}
		st := faultStep(s, time.Minute, &mu, &redials)
		st.Workers = st.Workers[:1]
		connected := time.Now()
		late := func(ctx context.Context, _ int) (int64, error) {
			if err := sleep(ctx, 6*time.Second); err != nil { // idle through the outage
				return 0, err
			}
			if connected.Before(s.start.Add(s.until)) {
				return 0, &runner.Lost{Err: errReset, Redial: func(context.Context) error {
					connected = time.Now()
					return nil
				}}
			}
			return 1, nil
		}
		st.Workers = append(st.Workers, runner.Worker{Name: "deleter", Schedule: runner.ClosedLoop{Limit: 1}, Do: runner.Single(opDelete, late)})
		res := runner.Run(context.Background(), st)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if f := res.Faults; f.Reconnects != 2 || len(f.Windows) != 1 {
			t.Errorf("reconnects %d, windows %+v: want 2 and one window", f.Reconnects, f.Windows)
		}
	})
}

package runner_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

// conn is a fake server's connection: it fails with errReset once the server was down
// under it, and counts its closes.
type conn struct {
	s      *server
	broken bool
	closes int
}

func (c *conn) Close() error { c.closes++; return nil }

func (c *conn) insert(ctx context.Context) error {
	if err := sleep(ctx, 100*time.Millisecond); err != nil {
		return err
	}
	if c.broken = c.broken || c.s.down(); c.broken {
		return errReset
	}
	return nil
}

func isReset(err error) bool { return errors.Is(err, errReset) }

// A lost connection is closed once and comes back as a Lost; until a redial works, the wrapper
// hands out a Lost (net.ErrClosed) instead of the dead connection; other errors pass through
// and keep the connection; Close after a loss closes nothing.
func TestRedialHoldsOneLiveConnection(t *testing.T) {
	first, second := &conn{}, &conn{}
	dials := []error{errRefused, nil}
	dial := func(context.Context) (*conn, error) {
		err := dials[0]
		dials = dials[1:]
		if err != nil {
			return nil, err
		}
		return second, nil
	}
	r := runner.NewRedial(first, dial, isReset)
	errOther := errors.New("duplicate key")
	if err := r.Check(errOther); err != errOther || r.Down() {
		t.Errorf("another error: %v, down %v; want it unchanged, the connection kept", err, r.Down())
	}
	if err := r.Check(nil); err != nil {
		t.Errorf("no error: %v", err)
	}
	err := r.Check(errReset)
	var l *runner.Lost
	if !errors.As(err, &l) || !errors.Is(err, errReset) || !r.Down() || first.closes != 1 {
		t.Fatalf("a lost connection: %v (%T), down %v, closed %d times; want a Lost, down, closed once",
			err, err, r.Down(), first.closes)
	}
	if c, err := r.Conn(); c != nil || !errors.As(err, &l) || !errors.Is(err, net.ErrClosed) {
		t.Errorf("before a redial: %v, %v; want no connection and a Lost", c, err)
	}
	if err := r.Close(); err != nil || first.closes != 1 {
		t.Errorf("Close while lost: %v, %d closes of the dead connection; want nil, 1", err, first.closes)
	}
	if err := l.Redial(context.Background()); err != errRefused || !r.Down() {
		t.Errorf("a failed redial: %v, down %v; want its error, still down", err, r.Down())
	}
	if err := l.Redial(context.Background()); err != nil || r.Down() {
		t.Fatalf("the second redial: %v, down %v", err, r.Down())
	}
	if c, err := r.Conn(); c != second || err != nil {
		t.Errorf("after the redial: %p, %v; want the new connection %p", c, err, second)
	}
	if err := r.Close(); err != nil || second.closes != 1 || first.closes != 1 {
		t.Errorf("Close: %v, closes %d and %d; want each connection closed once", err, first.closes, second.closes)
	}
}

// Through the runner: two workers on a server down from 2 s to 5 s redial once each, every
// dead connection is closed once, and every operation is done.
func TestRedialThroughTheRunner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &server{start: time.Now(), from: 2 * time.Second, until: 5 * time.Second}
		var mu sync.Mutex
		var conns []*conn
		dial := func(context.Context) (*conn, error) {
			if s.down() {
				return nil, errRefused
			}
			c := &conn{s: s}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			return c, nil
		}
		st := runner.Step{Ops: allOps, Sleep: runner.CoarseSleep, FaultTimeout: time.Minute,
			Classify: func(error) string { return "connection_lost" }}
		for range 2 {
			r, err := runner.DialRedial(context.Background(), dial, isReset)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			do := func(ctx context.Context, _ int) (int64, error) {
				c, err := r.Conn()
				if err != nil {
					return 0, err
				}
				if err := r.Check(c.insert(ctx)); err != nil {
					return 0, err
				}
				return 1, nil
			}
			st.Workers = append(st.Workers, runner.Worker{Name: "inserter", Primary: true,
				Schedule: runner.ClosedLoop{Limit: 60}, Do: runner.Single(opInsert, do)})
		}
		res := runner.Run(context.Background(), st)
		if res.Err != nil || !res.Complete {
			t.Fatalf("the step failed: %v", res.Err)
		}
		if n := res.Total.Ops[opInsert].Units; n != 120 {
			t.Errorf("%d operations done, want 120", n)
		}
		if f := res.Faults; f.Reconnects != 2 || len(conns) != 4 {
			t.Errorf("reconnects %d, connections %d: want 2 and 4 (2 first, 2 new)", f.Reconnects, len(conns))
		}
		for i, c := range conns[:2] {
			if c.closes != 1 {
				t.Errorf("first connection %d closed %d times, want once at its loss", i, c.closes)
			}
		}
		for i, c := range conns[2:] {
			if c.closes != 0 {
				t.Errorf("new connection %d closed %d times before the step's end", i, c.closes)
			}
		}
	})
}

package shard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/jackc/pgx/v5"
)

// dbs opens one rendezvous connection per shard on each test server.
func dbs(t *testing.T, n int) map[string]func() (DB, Dialect) {
	t.Helper()
	out := map[string]func() (DB, Dialect){}
	if dsn := os.Getenv("DBPERF_TEST_POSTGRES"); dsn != "" {
		out["postgres"] = func() (DB, Dialect) {
			c, err := pgx.Connect(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close(context.Background()) })
			return PgxDB{c}, PostgresDialect
		}
	} else if !testing.Short() {
		t.Fatal("DBPERF_TEST_POSTGRES is not set (scripts/test.sh starts the server), or use -short")
	}
	if dsn := os.Getenv("DBPERF_TEST_MYSQL"); dsn != "" {
		out["mysql"] = func() (DB, Dialect) {
			m := testtargets.Open(t, dsn).(*sqldriver.MySQL)
			return SQLDB{m.DB()}, MySQLDialect
		}
	} else if !testing.Short() {
		t.Fatal("DBPERF_TEST_MYSQL is not set (scripts/test.sh starts the server), or use -short")
	}
	return out
}

// meet runs shards 0..n-1 (those in arrive) through barriers at once and returns their errors
// and rendezvous.
func meet(t *testing.T, open func() (DB, Dialect), run string, n int, arrive []int, timeout time.Duration, barriers ...string) ([]error, []*Rendezvous) {
	errs := make([]error, len(arrive))
	rvs := make([]*Rendezvous, len(arrive))
	var wg sync.WaitGroup
	for k, i := range arrive {
		db, d := open()
		rv := &Rendezvous{Spec: Spec{i, n}, RunID: run, DB: db, Dialect: d, Timeout: timeout, Host: fmt.Sprint("h", i)}
		rvs[k] = rv
		wg.Go(func() {
			ctx := context.Background()
			if errs[k] = rv.Setup(ctx); errs[k] != nil {
				return
			}
			for _, b := range barriers {
				if errs[k] = rv.Wait(ctx, b); errs[k] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return errs, rvs
}

// TestRendezvousOnTarget: shards meet through the target's table at every barrier, start
// together, measure their clock offset, and remove the table at the end.
func TestRendezvousOnTarget(t *testing.T) {
	for name, open := range dbs(t, 3) {
		t.Run(name, func(t *testing.T) {
			run := fmt.Sprintf("test-%d", time.Now().UnixNano())
			errs, rvs := meet(t, open, run, 3, []int{0, 1, 2}, time.Minute, "start", "l.i0", "qr100")
			for i, err := range errs {
				if err != nil {
					t.Fatalf("shard %d: %v", i, err)
				}
			}
			for _, rv := range rvs {
				if len(rv.Barriers) != 3 {
					t.Fatalf("shard %d passed %d barriers", rv.Spec.Index, len(rv.Barriers))
				}
				// The servers run on this host: the offset is the measurement's error alone.
				if o := rv.MaxOffset(); o.Abs() > time.Second {
					t.Errorf("shard %d: clock offset %s to a server on the same host", rv.Spec.Index, o)
				}
			}
			// Generous: the shards leave each barrier at one instant, whatever a loaded host adds.
			for b := range 3 {
				lo, hi := rvs[0].Barriers[b].At, rvs[0].Barriers[b].At
				for _, rv := range rvs {
					at := rv.Barriers[b].At
					if at.Before(lo) {
						lo = at
					}
					if at.After(hi) {
						hi = at
					}
				}
				if hi.Sub(lo) > 2*time.Second {
					t.Errorf("barrier %d: the shards left %s apart", b, hi.Sub(lo))
				}
			}
			for _, rv := range rvs {
				if err := rv.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			db, _ := open()
			if _, err := db.QueryInts(context.Background(), 1, "SELECT COUNT(*) FROM "+Table); err == nil {
				t.Errorf("%s is still there after the last shard closed", Table)
			}
		})
	}
}

// TestRendezvousTimeout: a shard that never arrives fails the run on every shard that did, with
// one sentence naming it; a shard that failed stops the others at once.
func TestRendezvousTimeout(t *testing.T) {
	for name, open := range dbs(t, 3) {
		t.Run(name, func(t *testing.T) {
			run := fmt.Sprintf("test-%d", time.Now().UnixNano())
			errs, rvs := meet(t, open, run, 3, []int{0, 1}, 500*time.Millisecond, "start")
			for i, err := range errs {
				if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "shard 2 of run "+run+" did not reach barrier start") || strings.Contains(err.Error(), "\n") {
					t.Errorf("shard %d: %v", i, err)
				}
			}
			rvs[0].Fail(context.Background(), errors.New("disk full"))
			db, d := open()
			other := &Rendezvous{Spec: Spec{1, 3}, RunID: run, DB: db, Dialect: d, Timeout: time.Minute}
			err := other.Wait(context.Background(), "next")
			if err == nil || !strings.Contains(err.Error(), "shard 0 of run "+run+" failed") {
				t.Errorf("after shard 0 failed: %v", err)
			}
			// An earlier run's rows under the same id are refused, not met.
			if err := other.Setup(context.Background()); err == nil || !strings.Contains(err.Error(), "an earlier run that did not finish") {
				t.Errorf("stale rows: %v", err)
			}
			for _, rv := range append(rvs, other) {
				rv.Close(context.Background())
			}
			db.Exec(context.Background(), "DROP TABLE IF EXISTS "+Table)
		})
	}
}

// TestFailBeforeOthersArrive: a shard that fails before another has even set up (the other
// started late) leaves a mark the late one still sees: it stops at its first barrier naming the
// failed shard, not at the timeout. A mark older than the timeout is an earlier run's, removed.
func TestFailBeforeOthersArrive(t *testing.T) {
	for name, open := range dbs(t, 2) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			run := fmt.Sprintf("test-early-%d", time.Now().UnixNano())
			db1, d := open()
			early := &Rendezvous{Spec: Spec{1, 2}, RunID: run, DB: db1, Dialect: d, Timeout: time.Minute, Host: "h1"}
			if err := early.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			early.Fail(ctx, errors.New("refused before its first step"))
			db0, _ := open()
			late := &Rendezvous{Spec: Spec{0, 2}, RunID: run, DB: db0, Dialect: d, Timeout: time.Minute, Host: "h0"}
			if err := late.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := late.Wait(ctx, "start")
			if err == nil || !strings.Contains(err.Error(), "shard 1 of run "+run+" failed") || time.Since(start) > 30*time.Second {
				t.Errorf("the late shard: %v after %v, want shard 1's failure at once", err, time.Since(start))
			}
			// Under a new run with the same id and a timeout shorter than the mark's age, the
			// mark is an earlier run's: Setup removes it.
			time.Sleep(20 * time.Millisecond)
			again := &Rendezvous{Spec: Spec{0, 2}, RunID: run, DB: db0, Dialect: d, Timeout: time.Millisecond, Host: "h0"}
			again.Close(ctx)
			if err := again.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			if err := again.failed(ctx); err != nil {
				t.Errorf("an earlier run's abort mark was kept: %v", err)
			}
			for _, rv := range []*Rendezvous{early, late, again} {
				rv.Close(ctx)
			}
			db0.Exec(ctx, "DELETE FROM "+Table+" WHERE run_id = ?", run)
		})
	}
}

// TestStartAt: with --start-at the shards need no target: the start barrier waits for the
// instant; an instant long past is refused.
func TestStartAt(t *testing.T) {
	at := time.Now().Add(300 * time.Millisecond)
	rv := &Rendezvous{Spec: Spec{1, 2}, StartAt: at}
	if err := rv.Wait(context.Background(), "start"); err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(at) || len(rv.Barriers) != 1 {
		t.Fatalf("left before the instant, or recorded %d barriers", len(rv.Barriers))
	}
	if err := WaitUntil(time.Now().Add(-time.Hour), 0); err == nil || !strings.Contains(err.Error(), "in the past") {
		t.Fatalf("an instant an hour ago: %v", err)
	}
}

// fakeDB is a rendezvous table in memory on a server whose clock is skew behind this host's.
type fakeDB struct {
	mu    sync.Mutex
	skew  time.Duration
	rows  map[string][]int64 // barrier -> arrival instants (µs)
	count int
}

func (f *fakeDB) now() int64 { return time.Now().Add(-f.skew).UnixMicro() }

func (f *fakeDB) Exec(_ context.Context, q string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.HasPrefix(q, "INSERT") {
		b := args[1].(string)
		f.rows[b] = append(f.rows[b], f.now())
	}
	return nil
}

func (f *fakeDB) QueryInts(_ context.Context, n int, q string, args ...any) ([]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.Contains(q, "MAX(arrived)"):
		rows := f.rows[args[1].(string)]
		var m int64
		for _, r := range rows {
			m = max(m, r)
		}
		return []int64{int64(len(rows)) + int64(f.count-1), m}, nil // the other shards are there
	case strings.HasPrefix(q, "SELECT CAST") || strings.HasPrefix(q, "SELECT "+PostgresDialect.NowMicros):
		return []int64{f.now()}, nil
	}
	return make([]int64, n), nil
}

func (f *fakeDB) Ints(context.Context, string, ...any) ([]int64, error) { return nil, nil }

// TestClockOffsetMeasured: a host whose clock is 300 ms ahead of the rendezvous's records an
// offset of about 300 ms at every barrier, and leaves at the release instant on its own clock.
func TestClockOffsetMeasured(t *testing.T) {
	db := &fakeDB{skew: 300 * time.Millisecond, rows: map[string][]int64{}, count: 2}
	rv := &Rendezvous{Spec: Spec{0, 2}, RunID: "r", DB: db, Dialect: PostgresDialect, Poll: time.Millisecond}
	for _, b := range []string{"start", "step a"} {
		if err := rv.Wait(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range rv.Barriers {
		if b.Offset < 250*time.Millisecond || b.Offset > 350*time.Millisecond {
			t.Errorf("barrier %s: offset %s, want about 300ms", b.Name, b.Offset)
		}
	}
	if o := rv.MaxOffset(); o < 250*time.Millisecond {
		t.Errorf("max offset %s", o)
	}
}

// TestClockWarnedOnce: a clock that is within ClockWarn at the start and drifts past it later
// is warned of at the first barrier where it is off, and only once.
func TestClockWarnedOnce(t *testing.T) {
	db := &fakeDB{rows: map[string][]int64{}, count: 2}
	var warn strings.Builder
	rv := &Rendezvous{Spec: Spec{0, 2}, RunID: "r", DB: db, Dialect: PostgresDialect, Poll: time.Millisecond, Warn: &warn}
	for _, b := range []struct {
		name string
		skew time.Duration
	}{{"start", 0}, {"step a", 0}, {"step b", 400 * time.Millisecond}, {"step c", -500 * time.Millisecond}} {
		db.mu.Lock()
		db.skew = b.skew
		db.mu.Unlock()
		if err := rv.Wait(context.Background(), b.name); err != nil {
			t.Fatal(err)
		}
		if b.name == "step a" && warn.Len() > 0 {
			t.Fatalf("warned with the clocks in step: %s", warn.String())
		}
	}
	if got := warn.String(); strings.Count(got, "warning:") != 1 || !strings.Contains(got, "at barrier step b") {
		t.Fatalf("want one warning, at step b: %q", got)
	}
}

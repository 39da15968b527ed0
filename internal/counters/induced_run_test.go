package counters_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
)

// The induced tests' monitored step, made as the runner makes one: a tick a second at fixed
// offsets from the step's start, on their own goroutine, never waiting for the DBMS to publish
// what it counted (so a counter published late lands where it would in a real run); a load
// whose operations are counted with their latency in the interval they end in; and an event
// run between tick eventTick and the step's end, which may wait for ticks.

const (
	tickEvery  = time.Second // the runner's interval (stall detection judges no rate below 0.5 s)
	eventTick  = 6           // the last tick before the event
	totalTicks = 13          // the step's ticks after its start
)

// stepRun is one such step while it runs.
type stepRun struct {
	t       *testing.T
	w       *archive.StepWriter
	mon     *monitor.Step
	start   time.Time
	ticked  [totalTicks + 1]chan struct{} // closed as each tick is taken
	taken   atomic.Int32
	mu      sync.Mutex
	ops     int
	maxLat  time.Duration
	last    time.Time
	seconds []measure.Second
	slow    chan struct{} // closed when an operation of over a second has ended
	slowed  sync.Once
	// eventEnd is the last tick taken before the event returned.
	eventEnd int
}

// endWithStalls ends the monitor with the step's stalls, found by dbperf's own rule, as the
// session does: the monitor names each stall's counters in summary.json's stall_counters.
func endWithStalls(r *stepRun) archive.Step {
	for _, s := range r.seconds {
		r.t.Logf("interval to %.3f s: %.0f ops/s, slowest %v", s.T, s.Rate, s.MaxLatency.Round(time.Millisecond))
	}
	stalls := measure.DetectStalls(r.seconds, measure.DefaultStallRule)
	h := r.mon.End(r.t.Context(), monitor.Totals{Stalls: &stalls})
	return archive.Step{Step: "s", Host: &h, Stalls: &stalls}
}

// stallNamed reads the summary.json of a run made with endWithStalls and fails unless a stall
// was detected at the interval ending at tsec and its stall_counters name one of want; it
// returns the names of that stall's counters.
func stallNamed(t *testing.T, dir string, tsec float64, want ...string) []string {
	t.Helper()
	_, steps, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1 || steps[0].Host == nil || steps[0].Stalls == nil {
		t.Fatalf("summary.json has no host block or stalls: %+v", steps)
	}
	st := steps[0]
	t.Logf("stalls at %v; stall_counters %+v", st.Stalls.At, st.Host.StallCounters)
	if !slices.Contains(st.Stalls.At, tsec) {
		t.Fatalf("no stall detected in the interval ending at %.3f s, where the event held the load: stalls at %v", tsec, st.Stalls.At)
	}
	for _, sc := range st.Host.StallCounters {
		if sc.FromSec < tsec && tsec <= sc.ToSec {
			var got []string
			for _, m := range sc.Moved {
				got = append(got, m.Name)
			}
			for _, n := range want {
				if slices.Contains(got, n) {
					return got
				}
			}
			t.Fatalf("the stall %.3f-%.3f s names none of %v: %v", sc.FromSec, sc.ToSec, want, got)
		}
	}
	t.Fatalf("summary.json's stall_counters have no stall around %.3f s: %+v", tsec, st.Host.StallCounters)
	return nil
}

// runStep runs the step on tg (described as kind in run.json): load in a loop (with a 5 ms
// pause between operations) from the start, event after tick eventTick, and returns the run's
// directory. end ends the monitor and gives the step's summary, once every tick is taken.
func runStep(t *testing.T, tg driver.Target, kind archive.Target, load func(ctx context.Context) error,
	event func(r *stepRun) error, end func(r *stepRun) archive.Step) string {
	t.Helper()
	ctx := t.Context()
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "r", Target: kind,
		Steps: []archive.StepStatus{{Name: "s", Dir: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &stepRun{t: t, start: time.Now(), slow: make(chan struct{})}
	for i := range r.ticked {
		r.ticked[i] = make(chan struct{})
	}
	if r.w, err = d.StartStep("s", []measure.OpType{{Name: "op"}}, r.start); err != nil {
		t.Fatal(err)
	}
	if r.mon, err = monitor.New(ctx, tg).Begin(ctx, r.w); err != nil {
		t.Fatal(err)
	}
	lctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var loadErr error
	wg.Go(func() {
		for lctx.Err() == nil {
			t0 := time.Now()
			if err := load(lctx); err != nil {
				if lctx.Err() == nil {
					loadErr = err
				}
				return
			}
			r.done(time.Since(t0))
			time.Sleep(5 * time.Millisecond)
		}
	})
	r.mon.Start(ctx, r.start)
	r.last = r.start
	var tw sync.WaitGroup
	tw.Go(r.tickAll)
	r.wait(eventTick)
	evErr := event(r)
	r.eventEnd = int(r.taken.Load())
	tw.Wait()
	stop()
	wg.Wait()
	if evErr != nil {
		t.Fatal(evErr)
	}
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	if err := r.w.Finish(end(r)); err != nil {
		t.Fatal(err)
	}
	return d.Path
}

// done counts an operation that took lat in the interval it ended in.
func (r *stepRun) done(lat time.Duration) {
	r.mu.Lock()
	r.ops++
	r.maxLat = max(r.maxLat, lat)
	r.mu.Unlock()
	if lat > time.Second {
		r.slowed.Do(func() { close(r.slow) })
	}
}

// tickAll takes the step's ticks at their offsets from its start, whatever the DBMS does.
func (r *stepRun) tickAll() {
	for k := 1; k <= totalTicks; k++ {
		time.Sleep(time.Until(r.start.Add(time.Duration(k) * tickEvery)))
		at := time.Now()
		r.mon.Tick(at)
		r.mu.Lock()
		secs := at.Sub(r.last).Seconds()
		r.seconds = append(r.seconds, measure.Second{T: r.w.TSec(at), Seconds: secs, Rate: float64(r.ops) / secs, MaxLatency: r.maxLat})
		r.ops, r.maxLat, r.last = 0, 0, at
		r.mu.Unlock()
		r.taken.Store(int32(k))
		close(r.ticked[k])
	}
}

// wait returns once tick k has been taken.
func (r *stepRun) wait(k int) { <-r.ticked[min(k, totalTicks)] }

// next waits for the next tick and returns its number (totalTicks at the step's end).
func (r *stepRun) next() int {
	k := min(int(r.taken.Load())+1, totalTicks)
	r.wait(k)
	return k
}

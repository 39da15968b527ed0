package counters_test

import (
	"context"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
)

// TestInducedStallAttributed: a real stall, found by dbperf's own rule, is attributed in
// summary.json's stall_counters to the counters of the event in it. A CHECKPOINT alone does not
// stall inserts reliably (a few MB of dirty buffers are written in well under a second, and on a
// busy 2-core host the rate's own dips reach half the median as often), so the stall is made
// certain by a lock: a transaction holds the table ACCESS EXCLUSIVE for 1.5 s, during which a
// CHECKPOINT runs, and the insert that waits for it takes over a second (the rule's "an
// operation > 1 s"; the seconds it waits in also fall below half the median rate). The
// attribution of that stall must name the checkpoint's counters. The assertion holds on a host
// of any speed: a slower one only lengthens the wait.
func TestInducedStallAttributed(t *testing.T) {
	u, err := url.Parse(envURL(t, "DBPERF_TEST_POSTGRES"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/dbperf_counters_stall"
	tg := open(t, u.String())
	p := tg.(*sqldriver.Postgres)
	ctx := context.Background()
	conn, err := p.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	locker, err := p.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS stalled; CREATE TABLE stalled (id bigserial PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}

	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "r", Target: archive.Target{Kind: "postgres"},
		Steps: []archive.StepStatus{{Name: "s", Dir: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, err := d.StartStep("s", []measure.OpType{{Name: "insert"}}, start)
	if err != nil {
		t.Fatal(err)
	}
	st, err := monitor.New(ctx, tg).Begin(ctx, w)
	if err != nil {
		t.Fatal(err)
	}

	// The load: single-row inserts, each counted with its latency in the interval it ends in,
	// as the runner counts them.
	var mu sync.Mutex
	var ops int
	var maxLat time.Duration
	lctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var loadErr error
	wg.Go(func() {
		for lctx.Err() == nil {
			t0 := time.Now()
			if _, err := conn.Exec(lctx, "INSERT INTO stalled (v) VALUES (repeat('x', 200))"); err != nil {
				if lctx.Err() == nil {
					loadErr = err
				}
				return
			}
			mu.Lock()
			ops++
			maxLat = max(maxLat, time.Since(t0))
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	})
	st.Start(ctx, start)
	var seconds []measure.Second
	last := start
	tick := func() {
		at := time.Now()
		st.Tick(at)
		mu.Lock()
		secs := at.Sub(last).Seconds()
		seconds = append(seconds, measure.Second{T: w.TSec(at), Seconds: secs, Rate: float64(ops) / secs, MaxLatency: maxLat})
		ops, maxLat = 0, 0
		mu.Unlock()
		last = at
	}
	sleepTick := func() { time.Sleep(500 * time.Millisecond); tick() }
	for range 8 {
		sleepTick()
	}

	// The event: the lock, a CHECKPOINT under it, one tick while it is held, then its release.
	req := []string{"bgwriter.checkpoints_req", "checkpointer.num_requested"}
	before := counter(t, tg, req...)
	locked := time.Now()
	if _, err := locker.Exec(ctx, "BEGIN; LOCK TABLE stalled IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Admin().Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); counter(t, tg, req...) <= before && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Until(locked.Add(750 * time.Millisecond)))
	tick()
	time.Sleep(time.Until(locked.Add(1500 * time.Millisecond)))
	if _, err := locker.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	for range 7 {
		sleepTick()
	}
	stop()
	wg.Wait()
	if loadErr != nil {
		t.Fatal(loadErr)
	}

	stalls := measure.DetectStalls(seconds, measure.DefaultStallRule)
	h := st.End(ctx, monitor.Totals{Stalls: &stalls})
	if err := w.Finish(archive.Step{Step: "s", Host: &h, Stalls: &stalls}); err != nil {
		t.Fatal(err)
	}
	_, steps, err := archive.Read(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1 || steps[0].Host == nil {
		t.Fatalf("summary.json has no host block: %+v", steps)
	}
	t.Logf("stalls at %v; stall_counters %+v", stalls.At, steps[0].Host.StallCounters)
	event := seconds[8].T // the interval the lock was taken and the checkpoint ran in
	if !slices.Contains(stalls.At, event) {
		t.Fatalf("no stall detected at %.3f s, where an insert waited 1.5 s for a lock: stalls %+v", event, stalls)
	}
	// The checkpoint's counters: requested checkpoints, and the buffers and time it wrote and
	// synced (PostgreSQL 15-16's pg_stat_bgwriter, 17's pg_stat_checkpointer). Any of them: the
	// server is shared with other tests, whose checkpoints in the same step can rank
	// checkpoints_req below the 8 a stall names.
	ckpt := append(req, "bgwriter.buffers_checkpoint", "bgwriter.checkpoint_write_time", "bgwriter.checkpoint_sync_time",
		"checkpointer.buffers_written", "checkpointer.write_time", "checkpointer.sync_time")
	for _, sc := range steps[0].Host.StallCounters {
		if sc.FromSec < event && event <= sc.ToSec {
			for _, m := range sc.Moved {
				if slices.Contains(ckpt, m.Name) {
					return
				}
			}
			t.Fatalf("the stall %.3f-%.3f s with a CHECKPOINT in it names none of %v: %+v", sc.FromSec, sc.ToSec, ckpt, sc.Moved)
		}
	}
	t.Fatalf("summary.json's stall_counters have no stall around %.3f s: %+v", event, steps[0].Host.StallCounters)
}

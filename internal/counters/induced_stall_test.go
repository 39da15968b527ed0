package counters_test

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/monitor"
)

// Real stalls, found by dbperf's own rule on a step ticking on schedule (runStep), must be
// attributed in summary.json's stall_counters to the counters of the event in them. Each
// stall is made certain by holding the load for 1.5 s (a lock, or a write stall the test
// ends): the load's operation that waits takes over a second (the rule's "an operation
// > 1 s"), whatever the host's speed; a slower host only lengthens the wait.

// TestInducedStallAttributed (PostgreSQL): a transaction holds the table ACCESS EXCLUSIVE for
// 1.5 s, during which a CHECKPOINT runs: the stall must name the checkpoint's counters. In the
// same stall a second backend inserts 20,000 rows into its own table, and its statistics are
// published late, as PostgreSQL publishes a busy backend's (a backend flushes them at most
// once a second, PGSTAT_MIN_INTERVAL): it flushed them just before the insert, so the
// insert's stay pending until its next statement, which the test sends half a second after
// the stall's last tick. The stall must name that table's counters too, which only the
// attribution's publishing delay (Step.Late) can: read at the stall's own ticks they are 0.
func TestInducedStallAttributed(t *testing.T) {
	p, conn := openPostgres(t, "dbperf_counters_stall")
	ctx := context.Background()
	locker, err := p.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	burster, err := p.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer burster.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS stalled, stall_burst; CREATE TABLE stalled (id bigserial PRIMARY KEY, v text); "+
		"CREATE TABLE stall_burst (v text)"); err != nil {
		t.Fatal(err)
	}
	var late time.Time
	event := func(r *stepRun) error {
		locked := time.Now()
		if _, err := locker.Exec(ctx, "BEGIN; LOCK TABLE stalled IN ACCESS EXCLUSIVE MODE"); err != nil {
			return err
		}
		if _, err := p.Admin().Exec(ctx, "CHECKPOINT"); err != nil {
			return err
		}
		// The burster's statistics: flushed after this statement (its last flush was at its
		// connection, seconds ago; a statement that touches no table leaves nothing to flush), so
		// the insert's, within the second after, stay pending.
		if _, err := burster.Exec(ctx, "INSERT INTO stall_burst VALUES ('first')"); err != nil {
			return err
		}
		if _, err := burster.Exec(ctx, "INSERT INTO stall_burst SELECT repeat('x', 100) FROM generate_series(1, 20000)"); err != nil {
			return err
		}
		time.Sleep(time.Until(locked.Add(1500 * time.Millisecond)))
		if _, err := locker.Exec(ctx, "COMMIT"); err != nil {
			return err
		}
		select { // the waiting insert ends: its interval is the stall's last
		case <-r.slow:
		case <-time.After(30 * time.Second):
			return errors.New("no insert waited over a second for the lock")
		}
		// After the stall's last tick, and after the monitor's sample of it (read on its own
		// goroutine within its query timeout), publish the insert's counts: its next statement,
		// over a second after its last flush.
		r.next()
		time.Sleep(monitor.DefaultQueryTimeout)
		late = time.Now()
		_, err := burster.Exec(ctx, "SELECT 1")
		return err
	}
	var eventT float64
	dir := runStep(t, p, archive.Target{Kind: "postgres"}, func(ctx context.Context) error {
		_, err := conn.Exec(ctx, "INSERT INTO stalled (v) VALUES (repeat('x', 200))")
		return err
	}, event, func(r *stepRun) archive.Step {
		eventT = r.seconds[eventTick].T
		t.Logf("the burster's statistics published at %.3f s", r.w.TSec(late))
		return endWithStalls(r)
	})
	// The checkpoint's counters: requested checkpoints, and the buffers and time it wrote and
	// synced (PostgreSQL 15-16's pg_stat_bgwriter, 17's pg_stat_checkpointer). Any of them: the
	// server is shared with other tests, whose checkpoints in the same step can rank
	// checkpoints_req below the 8 a stall names.
	stallNamed(t, dir, eventT, "bgwriter.checkpoints_req", "checkpointer.num_requested", "bgwriter.buffers_checkpoint",
		"bgwriter.checkpoint_write_time", "bgwriter.checkpoint_sync_time", "checkpointer.buffers_written",
		"checkpointer.write_time", "checkpointer.sync_time")
	stallMoved(t, dir, eventT, "table.stall_burst.n_tup_ins", "table.stall_burst.heap_blks_hit", "table.stall_burst.heap_blks_read")
}

// stallMoved is stallNamed for counters that a long stall on a busy host can rank below the
// stallMoved (8) that summary.json names, every one of them moving only then: if the summary's
// list is full and names none of want, the stall's movers without that cut, from
// counters.csv.gz as the monitor reads it, must.
func stallMoved(t *testing.T, dir string, tsec float64, want ...string) {
	t.Helper()
	_, steps, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := steps[0]
	for _, sc := range st.Host.StallCounters {
		if !(sc.FromSec < tsec && tsec <= sc.ToSec) {
			continue
		}
		names := func(ms []string) bool {
			return slices.ContainsFunc(ms, func(n string) bool { return slices.Contains(want, n) })
		}
		var got []string
		for _, m := range sc.Moved {
			got = append(got, m.Name)
		}
		if names(got) || len(got) < 8 {
			stallNamed(t, dir, tsec, want...)
			return
		}
		series, err := archive.ReadCounters(filepath.Join(dir, "s"))
		if err != nil {
			t.Fatal(err)
		}
		defs := counters.Vitals()
		c := counters.FromSeries("", series, counters.AllSections(defs))
		for _, w := range c.StallWindows(st.Stalls) {
			if c.TSec[w.From] != sc.FromSec || c.TSec[w.To] != sc.ToSec {
				continue
			}
			var all []string
			for _, m := range c.Movers(w, 1<<20, defs) {
				all = append(all, m.Name)
			}
			t.Logf("the summary's list is full; every mover of the stall: %v", all)
			if !names(all) {
				t.Fatalf("the stall %.3f-%.3f s moves none of %v: %v", sc.FromSec, sc.ToSec, want, all)
			}
			return
		}
	}
	stallNamed(t, dir, tsec, want...)
}

// TestInducedStallInnoDB: a transaction holds a row lock (SELECT ... FOR UPDATE) for 1.5 s on
// the row the load updates; the stall must name InnoDB's row lock waits.
func TestInducedStallInnoDB(t *testing.T) {
	u, err := url.Parse(envURL(t, "DBPERF_TEST_MYSQL"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/dbperf_counters_induced"
	q := u.Query()
	q.Set("engine", "innodb")
	u.RawQuery = q.Encode()
	tg := open(t, u.String())
	db := tg.(*sqldriver.MySQL).DB()
	ctx := context.Background()
	for _, s := range []string{"DROP TABLE IF EXISTS stall_hot", "CREATE TABLE stall_hot (id bigint PRIMARY KEY, n bigint) ENGINE=innodb",
		"INSERT INTO stall_hot VALUES (1, 0)"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	event := func(r *stepRun) error {
		locked := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT n FROM stall_hot WHERE id = 1 FOR UPDATE").Scan(&n); err != nil {
			return err
		}
		time.Sleep(time.Until(locked.Add(1500 * time.Millisecond)))
		return tx.Commit()
	}
	var eventT float64
	dir := runStep(t, tg, archive.Target{Kind: "mysql", Settings: map[string]any{"engine": "innodb"}}, func(ctx context.Context) error {
		_, err := db.ExecContext(ctx, "UPDATE stall_hot SET n = n + 1 WHERE id = 1")
		return err
	}, event, func(r *stepRun) archive.Step {
		eventT = r.seconds[eventTick].T
		return endWithStalls(r)
	})
	stallNamed(t, dir, eventT, "innodb_row_lock_waits", "innodb_row_lock_time", "innodb_row_lock_current_waits")
}

// TestInducedStallPebble: a real write stall in Pebble, made by forced flushes and ended by a
// forced compaction. The engine is opened with automatic compactions off and writes stopped at
// 2 L0 sublevels; two flushes of memtables spanning the same keys make 2 sublevels, and a third
// flush then waits for a compaction holding the commit pipeline, so every write waits with it
// (Pebble's WriteStallBegin, "L0 file count limit exceeded"). The load pauses from the second
// flush until the third waits, so the memtable is empty and the compaction needs no flush
// (which would wait for the pipeline too). After 1.5 s the test compacts L0 (CompactL0); the
// stall ends. The stall must name the stall listener's counters.
func TestInducedStallPebble(t *testing.T) {
	db, err := kvdriver.OpenTuned("pebble", filepath.Join(t.TempDir(), "db"), kvdriver.Options{NoCompactions: true,
		LSM: kvdriver.LSM{L0CompactionTrigger: 2, L0StopTrigger: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng := db.Engine.(interface {
		Flush(context.Context) (string, error)
		CompactL0(context.Context) (string, error)
	})
	var gate sync.RWMutex // the event's pause of the load
	var n int64
	load := func(context.Context) error {
		gate.RLock()
		defer gate.RUnlock()
		return db.Write(func(w kvdriver.Writer) error {
			for range 20 {
				n++
				if err := w.Set(kvdriver.AppendInt([]byte{1}, n), make([]byte, 100)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	event := func(r *stepRun) error {
		held := time.Now()
		gate.Lock()
		for range 2 { // each flushed table spans 0..2: each is a sublevel of its own
			if err := db.Write(func(w kvdriver.Writer) error { return errors.Join(w.Set([]byte{0}, nil), w.Set([]byte{2}, nil)) }); err != nil {
				gate.Unlock()
				return err
			}
			if _, err := eng.Flush(context.Background()); err != nil {
				gate.Unlock()
				return err
			}
		}
		flushed := make(chan error, 1)
		go func() { _, err := eng.Flush(context.Background()); flushed <- err }()
		for deadline := time.Now().Add(30 * time.Second); counter(t, db, "write_stalled_now") < 1; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				gate.Unlock()
				return errors.New("the third flush did not stall writes at 2 L0 sublevels")
			}
		}
		gate.Unlock()
		time.Sleep(time.Until(held.Add(1500 * time.Millisecond)))
		msg, err := eng.CompactL0(context.Background())
		if err != nil {
			return err
		}
		t.Log(msg)
		select {
		case err := <-flushed:
			return err
		case <-time.After(30 * time.Second):
			return errors.New("the third flush still waits after L0 was compacted")
		}
	}
	var eventT float64
	dir := runStep(t, db, archive.Target{Kind: "pebble", Engine: "Pebble"}, load, event, func(r *stepRun) archive.Step {
		eventT = r.seconds[eventTick].T
		return endWithStalls(r)
	})
	stallNamed(t, dir, eventT, "write_stalls", "write_stalls_l0", "write_stall_seconds", "write_stalled_now")
}

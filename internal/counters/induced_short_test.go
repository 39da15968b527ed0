package counters_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
)

// TestShortStepCounted: a step shorter than PostgreSQL's statistics interval (a backend
// publishes its counts at most once a second, else when idle 10 s or at its exit) still counts
// its own work at its last tick: the monitor waits for the closed connections' backends to
// exit, publishing, before taking the last tick's totals.
func TestShortStepCounted(t *testing.T) {
	tg, conn := openPostgres(t, "dbperf_counters_short")
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS short; CREATE TABLE short (id bigint PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond) // the DDL's own counts published before the step

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
	st.Start(ctx, start)
	const rows = 100 // one a transaction: a few tenths of a second
	for i := range rows {
		if _, err := conn.Exec(ctx, "INSERT INTO short VALUES ($1, repeat('x', 100))", i); err != nil {
			t.Fatal(err)
		}
	}
	st.Tick(time.Now()) // the step's only interval
	// The monitor reads the tick's counters while the connection is still open (this sleep only
	// makes that likely; the test passes either way when the monitor settles), then the
	// connection is closed, as the session closes a step's connections before the monitor's End.
	time.Sleep(500 * time.Millisecond)
	conn.Close(ctx)
	st.End(ctx, monitor.Totals{})
	if err := w.Finish(archive.Step{Step: "s"}); err != nil {
		t.Fatal(err)
	}
	meta, _, err := archive.Read(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := counters.LoadStep(d.Path, meta, "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("step of %.2f s", s.Seconds(s.Whole()))
	ins, _ := s.Increase("db.tup_inserted", s.Whole())
	wal, _ := s.Increase("wal.bytes", s.Whole())
	if ins < rows || wal <= 0 {
		t.Errorf("the step's own work is not counted at its last tick: db.tup_inserted +%g (want %d or more), wal.bytes +%g", ins, rows, wal)
	}
}

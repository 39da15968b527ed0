package monitor

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// stuckDBMS is a DBMS whose counters never answer: every query waits until its context ends.
type stuckDBMS struct{ asked chan struct{} }

func (d stuckDBMS) DBMSCounters(ctx context.Context) (map[string]float64, error) {
	select {
	case d.asked <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// answering serves the first question (the column names) and then gets stuck.
type answering struct {
	stuckDBMS
	first bool
}

func (d *answering) DBMSCounters(ctx context.Context) (map[string]float64, error) {
	if !d.first {
		d.first = true
		return map[string]float64{"commits": 1}, nil
	}
	return d.stuckDBMS.DBMSCounters(ctx)
}

// TestStepOffTheRunnersClock runs a real step of 3 s beside a monitor whose DBMS never answers
// and whose query timeout is an hour: were the monitor on the runner's clock, the runner would
// hang at its first tick. The step ends on time with all its intervals; once the monitor's
// context ends, host.csv and dbms.csv have one row per interval (with empty DBMS cells), and the
// host summary's window is exactly the step's. No timing of the machine is asserted: only the
// runner's own boundaries, which a busy machine moves but cannot make disagree.
func TestStepOffTheRunnersClock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	d, err := archive.Create(dir, archive.Run{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	ops := []measure.OpType{{Name: "op"}}
	w, err := d.StartStep("s", ops, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	target := &answering{stuckDBMS: stuckDBMS{asked: make(chan struct{}, 1)}}
	m := New(t.Context(), target)
	st, err := m.Begin(t.Context(), w)
	m.QueryTimeout = time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	intervals := 0
	res := runner.Run(t.Context(), runner.Step{
		Ops:   ops,
		Begin: func(start time.Time) { st.Start(ctx, start) },
		Interval: func(iv *measure.Interval) {
			st.Tick(iv.End)
			if err := w.Interval(iv); err != nil {
				t.Error(err)
			}
			intervals++
		},
		Workers: []runner.Worker{{Name: "w", Primary: true, Schedule: runner.ClosedLoop{Limit: 30},
			Do: runner.Single(0, func(ctx context.Context, _ int) (int64, error) {
				time.Sleep(100 * time.Millisecond)
				return 1, nil
			})}},
	})
	<-target.asked // the monitor was stuck in a query while the step ran
	cancel()
	sum := st.End(t.Context(), Totals{MainOps: 30})
	if err := w.Finish(archive.Step{Step: "s"}); err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatal(res.Err)
	}
	if want := measure.Round(res.End.Sub(res.Start).Seconds(), 3); math.Abs(sum.Seconds-want) > 0.0011 {
		t.Errorf("host window %.3fs, step window %.3fs: they must be the same", sum.Seconds, want)
	}
	if sum.SampleErrors == 0 {
		t.Errorf("the stuck DBMS's timeouts were not counted as sample errors")
	}
	for _, name := range []string{"intervals.csv", "host.csv", "dbms.csv"} {
		rows := readCSV(t, filepath.Join(dir, "s", name))
		if len(rows)-1 != intervals {
			t.Errorf("%s has %d rows, want one per interval: %d", name, len(rows)-1, intervals)
		}
		if name == "dbms.csv" && len(rows) > 1 && rows[1][2] != "" {
			t.Errorf("dbms.csv row %v: the counter of a query that timed out must be empty", rows[1])
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

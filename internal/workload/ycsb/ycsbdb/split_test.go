package ycsbdb_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/dbperf/dbperf/internal/workload/ycsb/ycsbdb"
)

// TestSplitLoad loads 1000 records in two parts, as two YCSB loaders sharing a table do
// (--insert-start 0 --insert-count 500, then 500 and 500), each part a run of its own, then
// runs workload c on them: usertable must hold all 1000 records and no read may miss one. A load
// that dropped the table would leave 500 and the run's reads would miss.
func TestSplitLoad(t *testing.T) {
	all := testtargets.All(t, "dbperf_ycsb_split", "ycsbsplit")
	for _, name := range []string{"sqlite", "pebble", "postgres", "mysql-innodb"} {
		target, ok := all[name]
		if !ok {
			continue // -short: no servers
		}
		t.Run(name, func(t *testing.T) {
			step := func(steps []string, start, count int64) *ycsb.Bench {
				cfg := ycsb.DefaultConfig()
				if err := cfg.ApplyWorkload("c"); err != nil {
					t.Fatal(err)
				}
				cfg.RecordCount, cfg.OperationCount, cfg.Clients, cfg.Seed = 1000, 1000, 2, 5
				cfg.InsertStart, cfg.InsertCount, cfg.Steps = start, count, steps
				return runYCSB(t, target, cfg)
			}
			emptyTable(t, target)
			step([]string{ycsb.StepLoad}, 0, 500)
			step([]string{ycsb.StepLoad}, 500, 500)
			step([]string{ycsb.StepRun}, 0, 0)
			tg := testtargets.Open(t, target)
			store, err := ycsbdb.For(tg)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := store.Count(context.Background()); err != nil || n != 1000 {
				t.Errorf("usertable holds %d records (%v), want 1000", n, err)
			}
			tg.Close() // an embedded engine is one process's at a time
			// A whole load starts again from an empty table.
			step([]string{ycsb.StepLoad}, 0, 0)
		})
	}
}

// TestPartialLoadCheck: the check after a part of a split load counts the part's own keys, so a
// part that follows another with a different insertorder (other keys) still finds its own, and
// a run in the same process checks the whole table's count.
func TestPartialLoadCheck(t *testing.T) {
	target := "sqlite:" + filepath.Join(t.TempDir(), "part.sqlite")
	emptyTable(t, target)
	cfg := ycsb.DefaultConfig()
	cfg.RecordCount, cfg.OperationCount, cfg.Seed = 100, 200, 3
	cfg.InsertStart, cfg.InsertCount, cfg.Steps = 0, 60, []string{ycsb.StepLoad}
	runYCSB(t, target, cfg)
	cfg.InsertStart, cfg.InsertCount, cfg.Steps = 60, 40, []string{ycsb.StepLoad, ycsb.StepRun}
	cfg.ApplyWorkload("d")  // inserts in the run: the count after it is 100 + the inserts
	runYCSB(t, target, cfg) // its checks after the load and the run pass
	store, _ := ycsbdb.For(testtargets.Open(t, target))
	n, err := store.Count(context.Background())
	if err != nil || n <= 100 {
		t.Errorf("usertable holds %d records (%v): want 100 and workload d's inserts", n, err)
	}
}

// runYCSB runs cfg's steps on target with the session's checks, failing the test on an error.
func runYCSB(t *testing.T, target string, cfg ycsb.Config) *ycsb.Bench {
	t.Helper()
	tg := testtargets.Open(t, target)
	defer tg.Close()
	store, err := ycsbdb.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ycsb.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CheckStart(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Workload: ycsb.Name,
		Target: archive.Target(tg.Info(context.Background())), Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workload: b, Dir: d, Out: io.Discard, Verify: true, Tick: 200 * time.Millisecond}
	if err := s.Run(context.Background()); err != nil {
		t.Fatalf("steps %v, insert-start %d: %v", cfg.Steps, cfg.InsertStart, err)
	}
	return b
}

// emptyTable drops what an earlier test run left in usertable: parts of a split load keep it.
func emptyTable(t *testing.T, target string) {
	tg := testtargets.Open(t, target)
	defer tg.Close()
	store, err := ycsbdb.For(tg)
	if err == nil {
		err = store.Create(context.Background(), 10, true)
	}
	if err != nil {
		t.Fatal(err)
	}
}

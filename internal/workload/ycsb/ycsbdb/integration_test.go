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

// TestWorkloadsOnEveryTarget loads and runs each core workload, A to F, with 4 threads on
// SQLite, Pebble, bbolt, Badger, PostgreSQL and MariaDB (InnoDB, MyRocks), and RocksDB with
// -tags rocksdb (rocksdb_test.go): the session's checks (the records counted after each step,
// every read finding its record) must pass.
func TestWorkloadsOnEveryTarget(t *testing.T) {
	targets := testtargets.All(t, "dbperf_ycsb", "ycsb")
	targets["badger"] = testtargets.Badger(t, "ycsb")
	for name, target := range targets {
		t.Run(name, func(t *testing.T) { runWorkloads(t, target) })
	}
}

// runWorkloads loads and runs workloads a to f on target with the session's checks.
func runWorkloads(t *testing.T, target string) {
	for _, w := range []string{"a", "b", "c", "d", "e", "f"} {
		cfg := ycsb.DefaultConfig()
		if err := cfg.ApplyWorkload(w); err != nil {
			t.Fatal(err)
		}
		cfg.RecordCount, cfg.OperationCount, cfg.Clients, cfg.Seed = 300, 600, 4, 11
		tg := testtargets.Open(t, target)
		store, err := ycsbdb.For(tg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ycsb.New(cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Workload: ycsb.Name,
			Target: archive.Target(tg.Info(context.Background())), Figures: b.Figures()})
		if err != nil {
			t.Fatal(err)
		}
		s := &session.Session{Workload: b, Dir: d, Out: io.Discard, Verify: true, Tick: 200 * time.Millisecond}
		if err := s.Run(context.Background()); err != nil {
			t.Fatalf("workload %s: %v", w, err)
		}
		tg.Close()
	}
}

// TestScanOrderAndUpdate: a scan reads records in key order from its start and stops at its
// length; an update of one field leaves the record readable; a missing record is not found.
func TestScanOrderAndUpdate(t *testing.T) {
	for name, target := range testtargets.All(t, "dbperf_ycsb_scan", "ycsbscan") {
		t.Run(name, func(t *testing.T) {
			tg := testtargets.Open(t, target)
			store, _ := ycsbdb.For(tg)
			ctx := context.Background()
			if err := store.Create(ctx, 2, true); err != nil {
				t.Fatal(err)
			}
			c, err := store.Connect(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, k := range []string{"user3", "user1", "user2", "user4"} {
				if err := c.Insert(ctx, k, [][]byte{[]byte("a"), []byte("b")}); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := c.Scan(ctx, "user2", 10); err != nil || n != 3 {
				t.Errorf("scan from user2: %d rows, %v; want 3", n, err)
			}
			if n, err := c.Scan(ctx, "user1", 2); err != nil || n != 2 {
				t.Errorf("scan of 2: %d rows, %v", n, err)
			}
			if err := c.Update(ctx, "user1", []int{1}, [][]byte{[]byte("z")}); err != nil {
				t.Fatal(err)
			}
			if found, err := c.Read(ctx, "user1", -1); err != nil || !found {
				t.Errorf("read after update: %v %v", found, err)
			}
			if found, _ := c.Read(ctx, "user9", -1); found {
				t.Error("a missing record was found")
			}
			if n, err := store.Count(ctx); err != nil || n != 4 {
				t.Errorf("count %d, %v", n, err)
			}
		})
	}
}

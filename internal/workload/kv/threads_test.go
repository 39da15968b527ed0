package kv_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload/kv"
)

// TestLockOSThreadsForCgoEngines: a step on RocksDB (called through cgo) keeps each worker on one
// OS thread; a step on a Go engine leaves the scheduler free.
func TestLockOSThreadsForCgoEngines(t *testing.T) {
	for kind, want := range map[string]bool{"pebble": false, "rocksdb": true} {
		if kind == "rocksdb" && !withRocksDB {
			continue
		}
		spec, err := driver.Parse(kind + ":" + filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		tg, err := driver.Open(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg := kv.DefaultConfig()
		cfg.Keys, cfg.Threads = 100, 2
		b, err := kv.New(cfg, tg)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := b.Plan(context.Background(), kv.ReadRandom)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Step.LockOSThreads != want {
			t.Errorf("%s: LockOSThreads = %v, want %v", kind, plan.Step.LockOSThreads, want)
		}
		plan.Close()
		b.Close()
		tg.Close()
	}
}

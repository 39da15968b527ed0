package insertbench_test

import (
	"context"
	"io"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/session"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// TestShardsWriteTheWholeRunsRows: the Insert Benchmark as one whole run of 3 clients and as
// shards 0/2 and 1/2 (clients 0-1 and 2) writes the same tables, named by the global client
// numbers, with the same rows: each client's random streams are its global number's.
func TestShardsWriteTheWholeRunsRows(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := func(file string, from, to int) ib.Store {
		_, store := openStore(t, "sqlite:"+file)
		cfg := ib.DefaultConfig()
		cfg.Clients, cfg.Rows, cfg.L1Rows, cfg.Seed = 3, 1500, 600, 9
		cfg.Steps = []string{"l.i0", "l.x", "l.i1"}
		cfg.Now = func() time.Time { return fixed }
		cfg.ClientFrom, cfg.ClientTo, cfg.NotFirstShard = from, to, from > 0
		bench, err := ib.New(cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{})
		if err != nil {
			t.Fatal(err)
		}
		if err := (&session.Session{Workload: bench, Dir: d, Out: io.Discard, Verify: true}).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return store
	}
	dir := t.TempDir()
	whole := run(filepath.Join(dir, "whole.sqlite"), 0, 0)
	run(filepath.Join(dir, "sharded.sqlite"), 0, 2)
	sharded := run(filepath.Join(dir, "sharded.sqlite"), 2, 3)
	for _, table := range []string{"pi1", "pi2", "pi3"} {
		a, err := whole.Stats(context.Background(), table)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sharded.Stats(context.Background(), table)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: whole run %+v, sharded %+v", table, a, b)
		}
		for idx := range ib.NumIndexes {
			ra, rb := rangeRows(t, whole, table, idx), rangeRows(t, sharded, table, idx)
			if !reflect.DeepEqual(ra, rb) {
				t.Errorf("%s index %d: the rows differ", table, idx)
			}
		}
	}
}

func rangeRows(t *testing.T, st ib.Store, table string, idx ib.Index) []ib.IndexRow {
	t.Helper()
	conn, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.RangeQuery(context.Background(), table, idx, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestShardConfigRefused: a shard's clients must be within the run's, and shared tables do not
// shard.
func TestShardConfigRefused(t *testing.T) {
	cfg := ib.DefaultConfig()
	cfg.Clients, cfg.ClientFrom, cfg.ClientTo = 2, 1, 3
	if err := cfg.Validate(); err == nil {
		t.Error("clients 1..2 of 2 were not refused")
	}
	cfg.ClientTo, cfg.SharedTable = 2, true
	if err := cfg.Validate(); err == nil {
		t.Error("a shard of a shared table was not refused")
	}
}

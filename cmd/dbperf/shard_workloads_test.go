package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
	"github.com/dbperf/dbperf/internal/workload/ycsb/ycsbdb"
)

// runWorkloadShards runs n shards of one run of `run WORKLOAD` as processes against target,
// and merges them.
func runWorkloadShards(t *testing.T, dir, workload, target string, n int, args ...string) (archive.Run, []archive.Step) {
	t.Helper()
	var wg sync.WaitGroup
	res := make([]result, n)
	var dirs []string
	for i := range n {
		out := fmt.Sprintf("s%d", i)
		dirs = append(dirs, out)
		a := append([]string{"run", workload, "--target", target, "--quiet", "--out", out, "--shard", fmt.Sprintf("%d/%d", i, n), "--rendezvous-timeout", "2m"}, args...)
		wg.Go(func() { res[i] = run(t, dir, a...) })
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("shard %d: %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
	}
	if r := run(t, dir, append(append([]string{"merge"}, dirs...), "--out", "merged")...); r.code != 0 {
		t.Fatalf("merge: %s", r.stderr)
	}
	meta, steps, err := archive.Read(filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	return meta, steps
}

// opsCount adds up a step's operations of every op type.
func opsCount(s archive.Step) int64 {
	var n int64
	for _, o := range s.Ops {
		n += o.Count
	}
	return n
}

// TestShardedYCSB: 2 shards load their halves of the key range and split the run's operations;
// after the merge the load's inserts are the records usertable holds, the run's operations are
// --operations, and shard 0's checks of the whole table passed.
func TestShardedYCSB(t *testing.T) {
	for name, target := range serverTargets(t, "dbperf_ycsbshard") {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			meta, steps := runWorkloadShards(t, dir, "ycsb", target, 2, "--workload", "a", "--records", "3001", "--operations", "1001",
				"--threads", "3", "--seed", "5", "--steps", "load,run")
			if len(meta.Shards) != 2 || meta.Shards[0].Work["keys"] != [2]int64{0, 1501} || meta.Shards[1].Work["clients"] != [2]int64{2, 3} {
				t.Fatalf("run.json's shards: %+v", meta.Shards)
			}
			if len(steps) != 2 || !steps[0].Verified || !steps[1].Verified {
				t.Fatalf("merged steps %+v: want load and run, both checked", steps)
			}
			tg := testtargets.Open(t, target)
			store, err := ycsbdb.For(tg)
			if err != nil {
				t.Fatal(err)
			}
			n, err := store.Count(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := steps[0].Ops["insert"].Count; got != n || n != 3001 {
				t.Errorf("the load inserted %d records (merged), usertable holds %d; want 3001", got, n)
			}
			if got := opsCount(steps[1]); got != 1001 {
				t.Errorf("the run did %d operations (merged), want --operations 1001", got)
			}
		})
	}
	r := run(t, t.TempDir(), "run", "ycsb", "--workload", "d", "--threads", "2", "--shard", "0/2", "--seed", "5", "--target", "sqlite", "--start-at", "2026-01-01T00:00:00Z")
	if r.code == 0 || !strings.Contains(r.stderr, "--shard: workload d inserts in its run step") {
		t.Errorf("a sharded run of workload d: exit %d, %q", r.code, r.stderr)
	}
}

// TestShardedScript: 2 shards of pgbench's tpcb-like: shard 0 initializes while shard 1 waits,
// each runs its clients' transactions, and after the merge the transactions are the rows
// pgbench_history gained, and shard 0's check of the balances over the whole database passed.
func TestShardedScript(t *testing.T) {
	for name, target := range serverTargets(t, "dbperf_scriptshard") {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			meta, steps := runWorkloadShards(t, dir, "script", target, 2, "--builtin", "tpcb-like", "--scale", "1", "--clients", "3",
				"--transactions", "40", "--seed", "7", "--steps", "init,run")
			if len(meta.Shards) != 2 || meta.Shards[1].Work["clients"] != [2]int64{2, 3} {
				t.Fatalf("run.json's shards: %+v", meta.Shards)
			}
			if len(steps) != 2 || !steps[0].Verified || !steps[1].Verified {
				t.Fatalf("merged steps %+v: want init and run, both checked", steps)
			}
			if got := steps[0].Ops["load_accounts"].Count; got != 100000 {
				t.Errorf("init loaded %d accounts (merged): shard 0 alone loads the 100,000", got)
			}
			tx := steps[1].Ops["tpcb-like"].Count
			if got, _ := steps[1].Workload["transactions"].(float64); tx != 3*40 || int64(got) != tx {
				t.Errorf("the run's transactions: %d (op count), %v (figure); want 3 clients x 40", tx, steps[1].Workload["transactions"])
			}
			if n := countHistory(t, target); n != tx {
				t.Errorf("pgbench_history holds %d rows for %d transactions", n, tx)
			}
		})
	}
}

// countHistory counts pgbench_history's rows.
func countHistory(t *testing.T, target string) int64 {
	t.Helper()
	store, err := scriptsql.For(testtargets.Open(t, target))
	if err != nil {
		t.Fatal(err)
	}
	row, err := store.QueryRow(context.Background(), "SELECT count(*) FROM pgbench_history")
	if err != nil || len(row) == 0 {
		t.Fatalf("counting pgbench_history: %v", err)
	}
	n, _ := strconv.ParseInt(row[0], 10, 64)
	return n
}

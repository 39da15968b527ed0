package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/testtargets"
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

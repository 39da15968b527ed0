package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestMergeOneRealRun: a real run (SQLite, open loop, an SLA) merged alone reproduces every op's
// count, errors and latency figures from its latency.hlog (service times from service.hlog), and summary and compare read the
// merged run; a second merge into the same directory is refused.
func TestMergeOneRealRun(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--steps", "l.i0,l.x,qr100", "--rows", "2000", "--q-seconds", "2",
		"--arrival", "poisson", "--rate", "1500", "--sla", "query:p99<50ms", "--quiet", "--out", "a")
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	r = run(t, dir, "merge", "a", "--out", "m")
	if r.code != 0 || !strings.Contains(r.stdout, "merged 1 shards of insert") {
		t.Fatalf("merge: %d %s %s", r.code, r.stdout, r.stderr)
	}
	_, as, err := archive.Read(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	mm, ms, err := archive.Read(filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mm.Shards) != 1 || mm.Shards[0].Command == nil {
		t.Errorf("run.json's shards: %+v", mm.Shards)
	}
	if q := as[len(as)-1].Ops["query"]; q.Service == nil {
		t.Fatal("the open-loop queries have no service times: the test cannot see them merged")
	}
	for i, a := range as {
		m := ms[i]
		for op, ao := range a.Ops {
			mo := m.Ops[op]
			ao.PerSec, mo.PerSec = 0, 0 // the seconds differ by the merge's rounding to ms
			if !reflect.DeepEqual(ao, mo) {
				t.Errorf("step %s op %s:\nrun    %+v\nmerged %+v", a.Step, op, ao, mo)
			}
		}
		if a.OpenLoop != nil && (m.OpenLoop == nil || a.OpenLoop.Offered != m.OpenLoop.Offered || a.OpenLoop.Achieved != m.OpenLoop.Achieved) {
			t.Errorf("step %s open loop: %+v vs %+v", a.Step, a.OpenLoop, m.OpenLoop)
		}
		for j := range a.SLAs {
			if a.SLAs[j].ValueUs != m.SLAs[j].ValueUs || a.SLAs[j].Met != m.SLAs[j].Met || a.SLAs[j].WithinPct != m.SLAs[j].WithinPct {
				t.Errorf("step %s SLA: %+v vs %+v", a.Step, a.SLAs[j], m.SLAs[j])
			}
		}
	}
	for i, m := range ms {
		if h := m.Hosts; as[i].Host != nil && (m.Host != nil || h == nil || len(h.Shards) != 1 || h.Shards[0].Host.ClientCPUCores != as[i].Host.ClientCPUCores || h.ClientBound != as[i].Host.ClientBound) {
			t.Errorf("step %s: merged host %+v, hosts %+v; the run's host block %+v", m.Step, m.Host, h, as[i].Host)
		}
	}
	if r := run(t, dir, "report", "a", "m", "-o", "r.html"); r.code != 0 {
		t.Errorf("report with the merged run: %d %s", r.code, r.stderr)
	}
	if r := run(t, dir, "summary", "a", "m"); r.code != 0 || !strings.Contains(r.stdout, "qr100") {
		t.Errorf("summary of the merged run: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, "compare", "--base", "a", "m"); r.code != 0 {
		t.Errorf("compare with the merged run: %d %s", r.code, r.stderr)
	}
	if r := run(t, dir, "merge", "a", "--out", "m"); r.code == 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("a second merge into m: %d %s", r.code, r.stderr)
	}
}

// TestMergeShardGroups: 2 shards run with --repeat 2 (the synthetic target, met at
// --start-at) write a run group each; merging the groups makes a group of merged runs, repeat
// by repeat, each holding both shards' rows, and summary reads it as a group.
func TestMergeShardGroups(t *testing.T) {
	dir := t.TempDir()
	at := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	res := make([]result, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			res[i] = run(t, dir, "run", "insert", "--target", "synth", "--clients", "2", "--rows", "500", "--steps", "l.i0,l.x",
				"--no-verify", "--seed", "5", "--repeat", "2", "--shard", fmt.Sprintf("%d/2", i), "--start-at", at, "--quiet", "--out", fmt.Sprintf("g%d", i))
		})
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("shard %d: %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
	}
	r := run(t, dir, "merge", "g0", "g1", "--out", "merged")
	if r.code != 0 || !strings.Contains(r.stdout, "2 repeats") {
		t.Fatalf("merge: %d %s %s", r.code, r.stdout, r.stderr)
	}
	g, ok, err := archive.ReadGroup(filepath.Join(dir, "merged"))
	if err != nil || !ok || !reflect.DeepEqual(g.Runs, []string{"rep-1", "rep-2"}) || len(g.Failed) > 0 {
		t.Fatalf("merged group.json: %+v %v %v", g, ok, err)
	}
	for k, rep := range g.Runs {
		meta, steps, err := archive.Read(filepath.Join(dir, "merged", rep))
		if err != nil {
			t.Fatal(err)
		}
		if len(meta.Shards) != 2 || meta.Shards[0].RunID != fmt.Sprintf("insert-5-2-rep-%d", k+1) || steps[0].Ops["insert"].Count != 2*500 {
			t.Errorf("%s: %d shards, run id %q, %d rows loaded", rep, len(meta.Shards), meta.Shards[0].RunID, steps[0].Ops["insert"].Count)
		}
	}
	r = run(t, dir, "summary", "merged")
	found := false
	for _, line := range strings.Split(r.stdout, "\n") { // the group's row: medians of n = 2 runs
		f := strings.Fields(line)
		found = found || len(f) > 4 && f[0] == "merged" && f[1] == "l.i0" && f[2] == "ips" && f[3] == "2"
	}
	if r.code != 0 || !found {
		t.Fatalf("summary of the merged group: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

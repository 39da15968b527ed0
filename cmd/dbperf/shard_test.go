package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/shard"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/insertbench/stores"
)

// runShards runs the shards of one Insert Benchmark run as processes at once and merges them.
func runShards(t *testing.T, dir, target string, n int, args ...string) (archive.Run, []archive.Step) {
	t.Helper()
	return runWorkloadShards(t, dir, "insert", target, n, args...)
}

// serverTargets are the CI's servers, each in a database of this test's own.
func serverTargets(t *testing.T, db string) map[string]string {
	out := map[string]string{}
	for name, dsn := range testServers(t) {
		out[name] = testtargets.WithDatabase(dsn, db)
		// dbperf creates a missing database; two shards doing it at one instant would race.
		testtargets.Open(t, out[name]).Close()
	}
	return out
}

// freshServerTargets are the CI's servers, each in a database of this test's own that does not
// exist yet: the shards, started at one instant, both find it missing and create it, and
// neither may fail for it (PostgreSQL's duplicate_database, or its unique pg_database index).
func freshServerTargets(t *testing.T, db string) map[string]string {
	out := map[string]string{}
	for name, dsn := range testServers(t) {
		var err error
		switch tg := testtargets.Open(t, dsn).(type) {
		case *sqldriver.Postgres:
			_, err = tg.Admin().Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		case *sqldriver.MySQL:
			_, err = tg.DB().Exec("DROP DATABASE IF EXISTS " + db)
		}
		if err != nil {
			t.Fatalf("dropping %s: %v", db, err)
		}
		out[name] = testtargets.WithDatabase(dsn, db)
	}
	return out
}

// testServers are the CI's servers' URLs by name. A missing one fails the test (scripts/test.sh
// starts them); -short leaves it out.
func testServers(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, env := range map[string]string{"postgres": "DBPERF_TEST_POSTGRES", "mysql": "DBPERF_TEST_MYSQL"} {
		dsn := os.Getenv(env)
		if dsn == "" {
			if testing.Short() {
				continue
			}
			t.Fatalf("%s is not set: scripts/test.sh starts the servers (or use -short)", env)
		}
		out[name] = dsn
	}
	return out
}

// postgresDatabase is the test PostgreSQL's database db, made before the shards start:
// dbperf creates a missing database, and two shards doing it at one instant would race.
func postgresDatabase(t *testing.T, db string) string {
	t.Helper()
	target := testtargets.WithDatabase(testPostgres(t), db)
	testtargets.Open(t, target).Close()
	return target
}

// TestShardedInsertMatchesDatabase: 2 shard processes of one Insert Benchmark run meet through
// the server (PostgreSQL, MariaDB), each loads its clients' own tables, and the merged run's
// counts are exactly the rows the database holds; the rendezvous table is gone afterwards, and
// run.json keeps each shard's provenance with its clock offset and barriers.
func TestShardedInsertMatchesDatabase(t *testing.T) {
	for name, target := range freshServerTargets(t, "dbperf_shardfresh") { // the shards create it
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			meta, steps := runShards(t, dir, target, 2, "--clients", "3", "--rows", "2000", "--l1-rows", "1000",
				"--steps", "l.i0,l.x,l.i1,qr100", "--q-seconds", "1", "--arrival", "constant", "--rate", "400", "--seed", "11", "--drop")
			if len(meta.Shards) != 2 || len(meta.Shards[1].Barriers) < 5 || meta.Shards[0].Work["clients"] != [2]int64{0, 2} || meta.Shards[1].Work["clients"] != [2]int64{2, 3} {
				t.Fatalf("run.json's shards: %+v", meta.Shards)
			}
			if meta.Settings["arrival"] != "constant 400/s" {
				t.Errorf("the merged run's arrival setting %v: the whole run's rate, not a shard's", meta.Settings["arrival"])
			}
			byName := map[string]archive.Step{}
			for _, s := range steps {
				byName[s.Step] = s
			}
			if got := byName["l.i0"].Ops["insert"].Count; got != 3*2000 {
				t.Errorf("l.i0 merged: %d rows, want %d", got, 3*2000)
			}
			if got := byName["l.x"].Ops["insert"].Count; got != 99 { // 100 rows shared by 3 tables, as one host's run
				t.Errorf("l.x merged: %d rows inserted, want 99", got)
			}
			want := byName["l.i0"].Ops["insert"].Count + byName["l.x"].Ops["insert"].Count + byName["l.i1"].Ops["insert"].Count - byName["l.i1"].Ops["delete"].Count +
				byName["qr100"].Ops["insert"].Count - byName["qr100"].Ops["delete"].Count
			if got := countRows(t, target, 3); got != want {
				t.Errorf("the database holds %d rows, the merged counts say %d", got, want)
			}
			q := byName["qr100"]
			if q.OpenLoop == nil || q.OpenLoop.Offered < 200 {
				t.Fatalf("qr100's open loop: %+v", q.OpenLoop)
			}
			for i := range 2 { // each shard offered its half of the rate (a constant schedule)
				_, ss, _ := archive.Read(filepath.Join(dir, fmt.Sprintf("s%d", i)))
				ol := ss[3].OpenLoop
				if r := float64(ol.Offered) / ss[3].Seconds; r < 150 || r > 250 {
					t.Errorf("shard %d offered %.0f arrivals a second, want about 200 of the run's 400", i, r)
				}
			}
			if tableExists(t, target, shard.Table) {
				t.Errorf("%s is still on the target", shard.Table)
			}
		})
	}
}

// countRows counts the rows of the clients' tables pi1..piN.
func countRows(t *testing.T, target string, clients int) int64 {
	t.Helper()
	tg := testtargets.Open(t, target)
	st, err := stores.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for c := 1; c <= clients; c++ {
		s, err := st.Stats(context.Background(), fmt.Sprintf("pi%d", c))
		if err != nil {
			t.Fatal(err)
		}
		n += s.Rows
	}
	return n
}

// tableExists tells whether the server has the table.
func tableExists(t *testing.T, target, table string) bool {
	t.Helper()
	ctx := context.Background()
	q := "SELECT 1 FROM " + table + " LIMIT 1"
	switch tg := testtargets.Open(t, target).(type) {
	case *sqldriver.Postgres:
		c, err := tg.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, q)
		return err == nil
	case *sqldriver.MySQL:
		_, err := tg.DB().ExecContext(ctx, q)
		return err == nil
	}
	t.Fatalf("%s is not a server target", target)
	return false
}

// TestShardConnectionLimit: before anything runs, a shard refuses a run whose shards together
// would open more connections than the server allows, and leaves no run directory.
func TestShardConnectionLimit(t *testing.T) {
	for name, target := range serverTargets(t, "dbperf_shardtest") {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := run(t, dir, "run", "insert", "--target", target, "--clients", "5000", "--shard", "0/2", "--seed", "1", "--out", "x")
			if r.code == 0 || !strings.Contains(r.stderr, "max_connections") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Fatalf("%d %q", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
				t.Error("a refused shard left its run directory")
			}
		})
	}
}

// TestShardFailureStopsEveryShard: a shard interrupted in the middle of a step tells the other,
// which ends its run at the next barrier (here the run's end) with one sentence naming it, not
// at the timeout; both keep their finished steps, and the rendezvous table is removed.
func TestShardFailureStopsEveryShard(t *testing.T) {
	target := postgresDatabase(t, "dbperf_shardfail")
	dir := t.TempDir()
	args := func(i int) []string {
		return []string{"run", "insert", "--target", target, "--clients", "2", "--rows", "1000", "--steps", "l.i0,qr100", "--q-seconds", "30",
			"--seed", "5", "--drop", "--quiet", "--rendezvous-timeout", "2m", "--shard", fmt.Sprintf("%d/2", i), "--out", fmt.Sprintf("s%d", i)}
	}
	s0 := make(chan result, 1)
	go func() { s0 <- run(t, dir, args(0)...) }()
	cmd := exec.Command(dbperfBin, args(1)...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for { // interrupt shard 1 once its q step has started
		if _, err := os.Stat(filepath.Join(dir, "s1", "qr100")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	r := <-s0
	if r.code == 0 || !strings.Contains(r.stderr, "shard 1 of run insert-5-2 failed") {
		t.Fatalf("shard 0: %d %q", r.code, r.stderr)
	}
	// l.i0 is kept complete on both; qr100 is incomplete on both: shard 0 ran it to its end,
	// but the run's qr100 is not whole without shard 1's.
	for i, want := range [][]bool{{true, false}, {true, false}} {
		meta, _, err := archive.Read(filepath.Join(dir, fmt.Sprintf("s%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		for j, st := range meta.Steps {
			if st.Complete != want[j] {
				t.Errorf("shard %d step %s complete %v, want %v", i, st.Name, st.Complete, want[j])
			}
		}
	}
	if tableExists(t, target, shard.Table) {
		t.Errorf("%s is still on the target", shard.Table)
	}
}

// TestShardFailsBeforeItsFirstStep: a shard that fails after its target is open but before its
// first step (--warmup on a run of fixed-work steps, given to shard 1 alone) leaves its abort
// mark, and the other stops at its first barrier naming it, not at the timeout; the rendezvous
// table is removed.
func TestShardFailsBeforeItsFirstStep(t *testing.T) {
	target := testtargets.WithDatabase(testPostgres(t), "dbperf_shardearly")
	dir := t.TempDir()
	res := make([]result, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			a := []string{"run", "insert", "--target", target, "--clients", "2", "--rows", "500", "--steps", "l.i0",
				"--seed", "6", "--quiet", "--rendezvous-timeout", "1m", "--shard", fmt.Sprintf("%d/2", i), "--out", fmt.Sprintf("s%d", i)}
			if i == 1 {
				a = append(a, "--warmup", "1s")
			}
			res[i] = run(t, dir, a...)
		})
	}
	wg.Wait()
	if res[1].code == 0 || !strings.Contains(res[1].stderr, "--warmup") {
		t.Fatalf("shard 1: %d %q", res[1].code, res[1].stderr)
	}
	if res[0].code == 0 || !strings.Contains(res[0].stderr, "shard 1 of run insert-6-2 failed") {
		t.Fatalf("shard 0 (it should not wait for the timeout): %d %q", res[0].code, res[0].stderr)
	}
	if tableExists(t, target, shard.Table) {
		t.Errorf("%s is still on the target", shard.Table)
	}
}

// TestShardFlagsRefused: what a shard cannot be is refused with one sentence, before anything
// runs.
func TestShardFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/2"}, "--shard needs --seed"},
		{[]string{"--shard", "2/2", "--seed", "1"}, "--shard 2/2: the index \"2\" must be a whole number from 0 to 1"},
		{[]string{"--shard", "auto/2", "--seed", "1"}, "needs JOB_COMPLETION_INDEX"},
		{[]string{"--shard", "0/2", "--seed", "1", "--target", "sqlite", "--target", "pebble"}, "--shard runs one target"},
		{[]string{"--shard", "0/3", "--seed", "1", "--clients", "2"}, "give at least one to each"},
		{[]string{"--shard", "0/2", "--seed", "1", "--tables", "shared"}, "--tables shared cannot be sharded"},
		{[]string{"--shard", "0/2", "--seed", "1", "--start-at", "soon"}, "is not an RFC 3339 instant"},
		{[]string{"--shard", "0/2", "--seed", "1"}, "--rendezvous target needs a PostgreSQL or MySQL target"},
	} {
		dir := t.TempDir()
		r := run(t, dir, append([]string{"run", "insert", "--out", "x"}, c.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: %d %q, want %q", c.args, r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
			t.Errorf("%v left a run directory", c.args)
		}
	}
}

// TestShardedLinkBench: LinkBench as 2 shard processes (PostgreSQL): shard 0 creates the tables
// and loads the nodes, each loads its link chunks and runs its requesters; shard 0 checks the
// whole database once both are done. The merged run has exactly the whole run's loaded rows and
// the same count of every request type (the requesters' streams are their global numbers').
func TestShardedLinkBench(t *testing.T) {
	dsn := testPostgres(t)
	args := []string{"--maxid", "3001", "--requesters", "3", "--requests", "200", "--seed", "3", "--quiet"}
	dir := t.TempDir()
	whole := testtargets.WithDatabase(dsn, "dbperf_lbshard_whole")
	if r := run(t, dir, append([]string{"run", "linkbench", "--target", whole, "--out", "whole"}, args...)...); r.code != 0 {
		t.Fatalf("whole run: %s", r.stderr)
	}
	meta, ms := runWorkloadShards(t, dir, "linkbench", postgresDatabase(t, "dbperf_lbshard"), 2, args...)
	_, ws, _ := archive.Read(filepath.Join(dir, "whole"))
	if meta.Shards[1].Work["requesters"] != [2]int64{2, 3} || !ms[0].Verified || !ms[1].Verified {
		t.Fatalf("shards %+v; verified %v %v", meta.Shards, ms[0].Verified, ms[1].Verified)
	}
	for i := range ws {
		for op, w := range ws[i].Ops {
			if m := ms[i].Ops[op]; m.Count != w.Count {
				t.Errorf("step %s op %s: %d merged, %d in the whole run", ws[i].Step, op, m.Count, w.Count)
			}
		}
	}
	if got := ms[1].Workload["requests"]; got != float64(3*200) {
		t.Errorf("merged requests %v, want %d", got, 3*200)
	}
}

package linkbench_test

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/dbperf/dbperf/internal/workload/linkbench/stores"
)

// testTargets are SQLite, Pebble, bbolt, PostgreSQL and MariaDB with InnoDB and MyRocks. The
// servers are real: scripts/test.sh starts them and sets DBPERF_TEST_POSTGRES and
// DBPERF_TEST_MYSQL; without them the test fails rather than skip, unless -short.
func testTargets(t *testing.T, name string) map[string]string {
	// (testtargets.All: the same targets for every workload)
	return testtargets.All(t, "dbperf_linkbench_"+name, "lb")
}

func open(t *testing.T, target string) (driver.Target, lb.Store) {
	return openMode(t, target, "")
}

func openMode(t *testing.T, target, mode string) (driver.Target, lb.Store) {
	t.Helper()
	tg := testtargets.Open(t, target)
	st, err := stores.For(tg, stores.Options{QueryMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return tg, st
}

// run runs the configured steps in a session that checks the database after each.
func run(t *testing.T, tg driver.Target, b *lb.Bench) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	d, err := archive.Create(dir, archive.Run{Name: "run", Workload: lb.Name, Target: archive.Target(tg.Info(context.Background())), Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workload: b, Dir: d, Out: io.Discard, Verify: true, Tick: 200 * time.Millisecond}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func tinyConfig() lb.Config {
	cfg := lb.DefaultConfig()
	cfg.MaxID, cfg.ChunkIDs, cfg.Batch = 3001, 256, 100
	cfg.Loaders, cfg.Requesters, cfg.Requests = 3, 4, 400
	cfg.Seed = 42
	return cfg
}

// TestLoadAndRequestOnEveryTarget runs both steps at tiny scale on every target; the session
// checks counts against visible links after each, and the archive must hold every op type.
func TestLoadAndRequestOnEveryTarget(t *testing.T) {
	for name, target := range testTargets(t, "steps") {
		t.Run(name, func(t *testing.T) {
			tg, st := open(t, target)
			b, err := lb.New(tinyConfig(), st)
			if err != nil {
				t.Fatal(err)
			}
			dir := run(t, tg, b)
			_, steps, err := archive.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) != 2 {
				t.Fatalf("%d steps archived, want 2", len(steps))
			}
			load, req := steps[0], steps[1]
			links, _ := b.Expected()
			if got := load.Ops["load_links"].Count; got != links {
				t.Errorf("load_links units %d, want %d", got, links)
			}
			if got := load.Ops["load_nodes"].Count; got != 3000 {
				t.Errorf("load_nodes units %d, want 3000", got)
			}
			var requests int64
			for _, o := range []string{"add_link", "delete_link", "update_link", "count_link", "get_link",
				"get_link_list", "add_node", "update_node", "delete_node", "get_node"} {
				requests += req.Ops[o].Count
			}
			if requests != 1600 {
				t.Errorf("%d requests archived, want 4 x 400", requests)
			}
			if !load.Verified || !req.Verified {
				t.Errorf("steps not verified: load %v, request %v", load.Verified, req.Verified)
			}
		})
	}
}

// TestSameResultsOnEveryTarget loads the same graph and runs the same requests (one requester,
// a fixed clock) on every target, and on MySQL in both query modes: the tables and every result
// read must be identical.
func TestSameResultsOnEveryTarget(t *testing.T) {
	type result struct{ tables, reads uint64 }
	results := map[string]result{}
	targets := map[string]string{}
	for name, target := range testTargets(t, "same") {
		targets[name] = target
		if strings.HasPrefix(target, "mysql://") {
			targets[name+"-prepared"] = target
		}
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			mode := ""
			if strings.HasSuffix(name, "-prepared") {
				mode = "prepared"
			}
			tg, st := openMode(t, target, mode)
			if got, _ := st.(interface{ QueryMode() string }); mode != "" && (got == nil || got.QueryMode() != mode) {
				t.Fatalf("the store's query mode is not %s", mode)
			}
			cfg := tinyConfig()
			cfg.Requesters, cfg.Requests = 1, 3000
			clock := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
			cfg.Now = func() time.Time { return clock }
			cfg.SumResults = true
			b, err := lb.New(cfg, st)
			if err != nil {
				t.Fatal(err)
			}
			run(t, tg, b)
			if b.ResultSum() == fnv.New64a().Sum64() {
				t.Fatal("ResultSum is the hash of nothing: no result was hashed")
			}
			results[name] = result{tables: digest(t, st), reads: b.ResultSum()}
		})
	}
	var first string
	for name, r := range results {
		if first == "" {
			first = name
			continue
		}
		if r != results[first] {
			t.Errorf("%s: tables %x reads %x; %s: tables %x reads %x", name, r.tables, r.reads, first, results[first].tables, results[first].reads)
		}
	}
}

// digest hashes every row of the three tables in key order.
func digest(t *testing.T, st lb.Store) uint64 {
	h := fnv.New64a()
	put := func(vs ...int64) {
		for _, v := range vs {
			h.Write(binary.BigEndian.AppendUint64(nil, uint64(v)))
		}
	}
	ctx := context.Background()
	err := st.ScanLinks(ctx, func(l lb.Link) error {
		put(l.ID1, l.LinkType, l.ID2, int64(l.Visibility), l.Time, l.Version)
		h.Write(l.Data)
		return nil
	})
	if err == nil {
		err = st.ScanCounts(ctx, func(c lb.Count) error { put(c.ID1, c.LinkType, c.Count, c.Time, c.Version); return nil })
	}
	if err == nil {
		err = st.ScanNodes(ctx, func(n lb.Node) error { put(n.ID, int64(n.Type), n.Version, n.Time); h.Write(n.Data); return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	return h.Sum64()
}

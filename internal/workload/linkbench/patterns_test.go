package linkbench_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/keyorder"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/jackc/pgx/v5"
)

// keyed is a row read back: the transaction that wrote it (PostgreSQL's xmin, one per
// statement), the source it came from, and its key in each index.
type keyed struct {
	xid    int64
	source int
	keys   map[string][]int64
}

// TestInsertPatternsAsDeclared runs the load (63 chunks, 4 loaders) and then the requests on
// PostgreSQL, reads every table back with the transaction that wrote
// each row, and infers each step's pattern per index from the keys in that order: it must be
// the one declared. Load rows come from the chunk of their id1 and their link type (the test
// knows the chunks from the configuration; chunks of one loader that overlap in an index are
// one insert point, and the inference says so).
func TestInsertPatternsAsDeclared(t *testing.T) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("-short: no PostgreSQL")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh, or go test -short")
	}
	dsn = testtargets.WithDatabase(dsn, "dbperf_lb_patterns")
	for _, chunkIDs := range []int64{64} {
		t.Run(fmt.Sprintf("chunks-of-%d", chunkIDs), func(t *testing.T) {
			cfg := lb.DefaultConfig()
			cfg.MaxID, cfg.ChunkIDs, cfg.Batch = 4001, chunkIDs, 100
			cfg.Loaders, cfg.Requesters, cfg.Requests, cfg.Seed = 4, 4, 1000, 42
			var conn *pgx.Conn // once the first step has created the database
			var since int64    // the highest xid of the steps before
			for _, step := range []string{lb.StepLoad, lb.StepRequest} {
				cfg.Steps = []string{step}
				tg, st := open(t, dsn)
				b, err := lb.New(cfg, st)
				if err != nil {
					t.Fatal(err)
				}
				run(t, tg, b)
				if conn == nil {
					conn = pgConnect(t, dsn)
				}
				declared := b.Figures().StepPatterns(step)
				if len(declared) != 4 {
					t.Fatalf("%s declares %d patterns, want 4: %v", step, len(declared), declared)
				}
				top := since
				for _, p := range declared {
					sample := keyorder.Sample[[]int64]{Compare: slices.Compare[[]int64]}
					if step == lb.StepRequest { // the requesters, whom the rows do not tell apart
						sample.Writers = cfg.Requesters
					}
					for _, r := range readKeyed(t, conn, cfg, p.Table) {
						top = max(top, r.xid)
						// Requests: nodes the requesters added, not those they updated.
						if r.xid <= since || (p.Table == "nodetable" && step == lb.StepRequest && r.keys["pk"][0] < cfg.MaxID) {
							sample.Before = append(sample.Before, r.keys[p.Index])
							continue
						}
						in := keyorder.Insert[[]int64]{Key: r.keys[p.Index], Commit: r.xid}
						if step == lb.StepLoad && p.Table != "nodetable" { // one node loader
							in.Source = r.source
						}
						sample.Inserts = append(sample.Inserts, in)
					}
					res, err := keyorder.Infer(sample)
					if err != nil {
						t.Fatalf("%s %s.%s: %v", step, p.Table, p.Index, err)
					}
					t.Logf("%s %s.%s: %v", step, p.Table, p.Index, res)
					if got, _ := res.Streams.Code(); got != p.Pattern {
						t.Errorf("%s %s.%s: inserted %s, declared %s: %v", step, p.Table, p.Index, got, p.Pattern, res)
					}
				}
				since = top
			}
		})
	}
}

// readKeyed reads a table's rows with their xid, their load source (chunk of id1, link type)
// and their keys: linktable's primary key (link_type, id1, id2) and id1_type's prefix (id1,
// link_type), counttable's (id, link_type), nodetable's (id).
func readKeyed(t *testing.T, conn *pgx.Conn, cfg lb.Config, table string) []keyed {
	t.Helper()
	q := map[string]string{
		"linktable":  "SELECT xmin::text::bigint, id1, link_type, id2, visibility, time FROM linktable",
		"counttable": "SELECT xmin::text::bigint, id, link_type, 0, 0, 0 FROM counttable",
		"nodetable":  "SELECT xmin::text::bigint, id, 0, 0, 0, 0 FROM nodetable",
	}[table]
	rs, err := conn.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []keyed
	for rs.Next() {
		var xid, id1, lt, id2, vis, tm int64
		if err := rs.Scan(&xid, &id1, &lt, &id2, &vis, &tm); err != nil { // vis, tm: see id1_type
			t.Fatal(err)
		}
		src := int((id1-cfg.StartID)/cfg.ChunkIDs)*2 + int(lt%2)
		keys := map[string][]int64{"pk": {id1, lt}, "id1_type": nil}
		switch table {
		case "linktable":
			keys["pk"] = []int64{lt, id1, id2}
			// id1_type is (id1, link_type, visibility, time, id2): the load draws the times at
			// random, so the links of one heavy id1 land at random within its range; the stream
			// is the id1's, which the prefix follows (docs/linkbench.md, "Insert patterns").
			keys["id1_type"] = []int64{id1, lt}
		case "nodetable":
			keys["pk"] = []int64{id1}
		}
		out = append(out, keyed{xid: xid, source: src, keys: keys})
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b keyed) int { return cmp.Compare(a.xid, b.xid) })
	return out
}

func pgConnect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestDeclaredPatterns checks the declaration's streams: the loaders at work, one per chunk
// when there are fewer chunks, twice as many in a key led by link_type; the highest chunk at
// the right end only when every chunk loads at once; sharded runs' loaders add up.
func TestDeclaredPatterns(t *testing.T) {
	cfg := lb.DefaultConfig() // 10001 ids in chunks of 2048: 5 chunks, 10 loaders
	codes := func(c lb.Config, typeFirst bool) map[string]string {
		m := map[string]string{}
		for _, p := range c.InsertPatterns(typeFirst) {
			m[p.Step+" "+p.Table+"."+p.Index] = p.Pattern
		}
		return m
	}
	m := codes(cfg, true)
	if m["load linktable.pk"] != "nAsc:10, nRHS:1" || m["load linktable.id1_type"] != "nAsc:5, nRHS:1" ||
		m["load nodetable.pk"] != "nAsc:1, nRHS:1" || m["request linktable.pk"] != "inf" || m["request nodetable.pk"] != "nAsc:1, nRHS:1" {
		t.Errorf("default, link_type first: %v", m)
	}
	if m := codes(cfg, false); m["load linktable.pk"] != "nAsc:5, nRHS:1" {
		t.Errorf("default, id1 first: %v", m)
	}
	cfg.MaxID = 1_000_001 // 489 chunks
	if m := codes(cfg, false); m["load linktable.pk"] != "nAsc:10" || m["load counttable.pk"] != "nAsc:10" {
		t.Errorf("489 chunks: %v", m)
	}
	cfg.Shards = 3
	if m := codes(cfg, false); m["load linktable.pk"] != "nAsc:30" {
		t.Errorf("3 shards: %v", m)
	}
}

package insertbench_test

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/keyorder"
	"github.com/jackc/pgx/v5"
)

// patternRow is a row read back with the transaction that inserted it (PostgreSQL's xmin: one
// per insert statement, in the order the statements began writing).
type patternRow struct {
	xid, id                        int64
	product, customer, price, cash int64
	date                           int64
}

// indexKey is a row's key in one of the table's indexes.
func (r patternRow) indexKey(index string) []int64 {
	switch index {
	case "marketsegment":
		return []int64{r.product, r.customer, r.price, r.id}
	case "registersegment":
		return []int64{r.cash, r.customer, r.price, r.id}
	case "pdc":
		return []int64{r.price, r.date, r.customer, r.id}
	}
	return []int64{r.id}
}

// TestInsertPatternsAsDeclared runs l.i0, l.x, l.i1, l.i2 and qr1000 on PostgreSQL with a table per
// client and with a shared table, reads every row back with the transaction that inserted it,
// and infers each step's pattern per index from the keys in that order: it must be the one the
// workload declares (docs/insert-benchmark.md, "Insert patterns").
func TestInsertPatternsAsDeclared(t *testing.T) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("-short: no PostgreSQL")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh, or go test -short")
	}
	dsn = testtargets.WithDatabase(dsn, "dbperf_ib_patterns")
	for _, shared := range []bool{false, true} {
		t.Run(map[bool]string{false: "per-client", true: "shared"}[shared], func(t *testing.T) {
			_, store := openStore(t, dsn)
			cfg := ib.DefaultConfig()
			cfg.Clients, cfg.SharedTable, cfg.Seed = 2, shared, 7
			cfg.Rows, cfg.L1Rows = 10000, 2000 // l.i0 keeps 5,500 rows a table past the deletes
			cfg.Steps, cfg.QSeconds = []string{"l.i0", "l.x", "l.i1", "l.i2", "qr1000"}, 2
			cfg.Drop = true
			bench, err := ib.New(cfg, store)
			if err != nil {
				t.Fatal(err)
			}
			d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Figures: bench.Figures()})
			if err != nil {
				t.Fatal(err)
			}
			s := &session.Session{Workload: bench, Dir: d, Out: io.Discard, Tick: 200 * time.Millisecond}
			if err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			declared := bench.Figures()
			conn := pgConnect(t, dsn)
			tables, writers := []string{"pi1", "pi2"}, 1
			if shared {
				tables, writers = []string{"pi1"}, cfg.Clients
			}
			for _, table := range tables {
				rows := readRows(t, conn, table)
				for _, step := range cfg.Steps {
					lo, hi := stepIDs(cfg, step, len(tables))
					pats := declared.StepPatterns(step)
					if len(pats) == 0 {
						t.Fatalf("step %s declares no insert pattern", step)
					}
					for _, p := range pats {
						sample := keyorder.Sample[[]int64]{Compare: slices.Compare[[]int64], Writers: writers}
						for _, r := range rows {
							switch {
							case r.id < lo:
								sample.Before = append(sample.Before, r.indexKey(p.Index))
							case r.id < hi:
								sample.Inserts = append(sample.Inserts, keyorder.Insert[[]int64]{Key: r.indexKey(p.Index), Commit: r.xid})
							}
						}
						if step == "l.x" { // 50 rows in one statement: too few to infer, but at the right end
							checkAppended(t, sample, step, table)
							continue
						}
						res, err := keyorder.Infer(sample)
						if err != nil {
							t.Fatalf("%s %s.%s: %v", step, table, p.Index, err)
						}
						t.Logf("%s %s.%s: %v", step, table, p.Index, res)
						if got, _ := res.Streams.Code(); got != p.Pattern {
							t.Errorf("%s %s.%s: inserted %s, declared %s: %v", step, table, p.Index, got, p.Pattern, res)
						}
					}
				}
			}
		})
	}
}

// stepIDs are the ids a step inserted into each table: [lo, hi).
func stepIDs(cfg ib.Config, step string, tables int) (lo, hi int64) {
	per := int64(cfg.Clients / tables) // clients on each table
	sizes := map[string]int64{"l.i0": cfg.Rows * per, "l.x": 100 / int64(tables), "l.i1": cfg.L1Rows * per, "l.i2": cfg.L1Rows / 4 * per,
		"qr1000": int64(1000*cfg.QSeconds) * per}
	lo = 1
	for _, s := range cfg.Steps {
		if s == step {
			return lo, lo + sizes[s]
		}
		lo += sizes[s]
	}
	panic("no step " + step)
}

// checkAppended checks that every key of a sample too small to infer from is above the keys
// before it.
func checkAppended(t *testing.T, s keyorder.Sample[[]int64], step, table string) {
	t.Helper()
	top := slices.MaxFunc(s.Before, s.Compare)
	for _, in := range s.Inserts {
		if s.Compare(in.Key, top) <= 0 {
			t.Fatalf("%s %s: key %v is not above the keys before the step (%v)", step, table, in.Key, top)
		}
	}
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

func readRows(t *testing.T, conn *pgx.Conn, table string) []patternRow {
	t.Helper()
	q := fmt.Sprintf(`SELECT xmin::text::bigint, transactionid, productid, customerid, price, cashregisterid,
		extract(epoch FROM dateandtime)::bigint FROM %s`, table)
	rs, err := conn.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []patternRow
	for rs.Next() {
		var r patternRow
		if err := rs.Scan(&r.xid, &r.id, &r.product, &r.customer, &r.price, &r.cash, &r.date); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b patternRow) int { return cmp.Compare(a.xid, b.xid) })
	return out
}

// TestDeclaredPatterns checks the declaration's shape for a few configurations: a table per
// client or one shared, and steps that start from tables an earlier run loaded.
func TestDeclaredPatterns(t *testing.T) {
	code := func(cfg ib.Config) map[string]string {
		m := map[string]string{}
		for _, p := range cfg.InsertPatterns() {
			m[p.Step+" "+p.Table+" "+p.Index] = p.Pattern
		}
		return m
	}
	cfg := ib.DefaultConfig()
	cfg.Clients = 4
	m := code(cfg)
	if m["l.i0 pi1..pi4, each pk"] != "nAsc:1, nRHS:1" || m["qr100 pi1..pi4, each pdc"] != "inf" || len(m) != 1+1+8*4 {
		t.Errorf("per-client tables: %v", m)
	}
	if _, ok := m["l.i0 pi1..pi4, each pdc"]; ok {
		t.Errorf("l.i0 declares a secondary index, which l.x builds later: %v", m)
	}
	cfg.SharedTable = true
	if m := code(cfg); m["l.i1 pi1 pk"] != "nAsc:1, nRHS:1" || m["l.i1 pi1 marketsegment"] != "inf" {
		t.Errorf("shared table: %v", m)
	}
	cfg.Steps = []string{"l.i0", "l.i1"} // no l.x: the new tables have no secondary index
	if m := code(cfg); len(m) != 2 {
		t.Errorf("l.i0,l.i1: %v", m)
	}
	cfg.Steps = []string{"qr100"} // tables of an earlier run, indexed by its l.x
	if m := code(cfg); len(m) != 4 {
		t.Errorf("qr100 alone: %v", m)
	}
}

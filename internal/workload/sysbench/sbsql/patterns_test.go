package sbsql

import (
	"cmp"
	"context"
	"os"
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/keyorder"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
	"github.com/jackc/pgx/v5"
)

// TestInsertPatternsAsDeclared prepares one table on PostgreSQL and runs oltp_insert (ids from
// SERIAL) and write_only (a delete+insert of a random id per event, no updates, so that only
// the inserts give rows a new xmin) with 3 threads, reads the rows back with the transaction
// that inserted each (xmin), and checks each step's pattern per index against the declared one
// (docs/sysbench.md, "Insert patterns"): prepare's few statements each land above every
// earlier id; the run's inserts are inferred with keyorder.
func TestInsertPatternsAsDeclared(t *testing.T) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("-short: no PostgreSQL")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh, or go test -short")
	}
	dsn = testtargets.WithDatabase(dsn, "dbperf_sysbench_patterns")
	for _, test := range []string{"insert", "write_only"} {
		t.Run(test, func(t *testing.T) {
			cfg := sb.DefaultConfig()
			if err := cfg.SetTest(test); err != nil {
				t.Fatal(err)
			}
			cfg.Tables, cfg.TableSize, cfg.Threads, cfg.Events, cfg.Duration, cfg.Seed = 1, 6000, 3, 400, 0, 5
			cfg.IndexUpdates, cfg.NonIndexUpdates = 0, 0
			var conn *pgx.Conn
			var since int64
			for _, step := range []string{sb.StepPrepare, sb.StepRun} {
				cfg.Steps = []string{step}
				tg := testtargets.Open(t, dsn)
				b := bind(t, tg, cfg)
				runSession(t, tg, b)
				if conn == nil {
					var err error
					if conn, err = pgx.Connect(context.Background(), dsn); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { conn.Close(context.Background()) })
				}
				rows := readSbRows(t, conn)
				pats := b.Figures().StepPatterns(step)
				if len(pats) == 0 {
					t.Fatalf("%s declares no insert pattern", step)
				}
				for _, p := range pats {
					sample := keyorder.Sample[int64]{Compare: cmp.Compare[int64], Writers: cfg.Threads}
					for _, r := range rows {
						key := r.id
						if p.Index == "k" {
							key = r.k
						}
						if r.xid > since {
							sample.Inserts = append(sample.Inserts, keyorder.Insert[int64]{Key: key, Commit: r.xid})
						} else {
							sample.Before = append(sample.Before, key)
						}
					}
					if step == sb.StepPrepare { // a few statements of 2,400 rows: too few to infer
						if p.Pattern != "nAsc:1, nRHS:1" || p.Index != "pk" {
							t.Errorf("prepare declares %s on %s", p.Pattern, p.Index)
						}
						checkEachAbove(t, sample)
						continue
					}
					res, err := keyorder.Infer(sample)
					if err != nil {
						t.Fatalf("%s %s: %v", step, p.Index, err)
					}
					t.Logf("%s %s.%s: %v", step, p.Table, p.Index, res)
					if got, _ := res.Streams.Code(); got != p.Pattern {
						t.Errorf("%s %s.%s: inserted %s, declared %s: %v", step, p.Table, p.Index, got, p.Pattern, res)
					}
				}
				for _, r := range rows {
					since = max(since, r.xid)
				}
				tg.Close()
			}
		})
	}
}

// checkEachAbove checks that every statement's keys lie above every earlier key.
func checkEachAbove(t *testing.T, s keyorder.Sample[int64]) {
	t.Helper()
	top, statements := int64(-1<<62), 0
	for i := 0; i < len(s.Inserts); {
		j := i
		lo, hi := s.Inserts[i].Key, s.Inserts[i].Key
		for ; j < len(s.Inserts) && s.Inserts[j].Commit == s.Inserts[i].Commit; j++ {
			lo, hi = min(lo, s.Inserts[j].Key), max(hi, s.Inserts[j].Key)
		}
		if lo <= top {
			t.Errorf("a statement inserted ids from %d, not above the %d before it", lo, top)
		}
		top, i, statements = hi, j, statements+1
	}
	if statements < 2 {
		t.Errorf("%d statements: too few to show an order", statements)
	}
}

type sbRow struct{ xid, id, k int64 }

// readSbRows are sbtest1's rows with the transaction that wrote each, in its order.
func readSbRows(t *testing.T, conn *pgx.Conn) []sbRow {
	t.Helper()
	rs, err := conn.Query(context.Background(), "SELECT xmin::text::bigint, id, k FROM sbtest1")
	if err != nil {
		t.Fatal(err)
	}
	var out []sbRow
	for rs.Next() {
		var r sbRow
		if err := rs.Scan(&r.xid, &r.id, &r.k); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(out, func(a, b sbRow) int { return cmp.Compare(a.xid, b.xid) })
	return out
}

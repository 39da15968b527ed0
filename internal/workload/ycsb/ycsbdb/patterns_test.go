package ycsbdb_test

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/keyorder"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/dbperf/dbperf/internal/workload/ycsb/ycsbdb"
	"github.com/jackc/pgx/v5"
)

// TestInsertPatternsAsDeclared loads and runs workload d (5% inserts) with 4 clients on
// PostgreSQL, hashed and ordered, with and without enough zero padding, reads usertable's keys
// back with the transaction that inserted each (xmin, one per insert), and infers each step's
// pattern from them in that order: it must be the one declared (docs/ycsb.md).
func TestInsertPatternsAsDeclared(t *testing.T) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		if testing.Short() {
			t.Skip("-short: no PostgreSQL")
		}
		t.Fatal("DBPERF_TEST_POSTGRES is not set: run scripts/test.sh, or go test -short")
	}
	dsn = testtargets.WithDatabase(dsn, "dbperf_ycsb_patterns")
	for _, c := range []struct {
		order   string
		padding int
		want    map[string]string
	}{
		{"hashed", 1, map[string]string{"load": "inf", "run": "inf"}},
		{"ordered", 1, map[string]string{"load": "nAsc:1", "run": "nAsc:1"}},
		{"ordered", 5, map[string]string{"load": "nAsc:1, nRHS:1", "run": "nAsc:1, nRHS:1"}},
	} {
		t.Run(fmt.Sprintf("%s-%d", c.order, c.padding), func(t *testing.T) {
			cfg := ycsb.DefaultConfig()
			if err := cfg.ApplyWorkload("d"); err != nil {
				t.Fatal(err)
			}
			cfg.RecordCount, cfg.OperationCount, cfg.Clients, cfg.Seed = 1000, 2000, 4, 3
			cfg.InsertOrder, cfg.ZeroPadding = c.order, c.padding
			var conn *pgx.Conn
			var since int64
			for _, step := range []string{ycsb.StepLoad, ycsb.StepRun} {
				cfg.Steps = []string{step}
				tg := testtargets.Open(t, dsn)
				store, err := ycsbdb.For(tg)
				if err != nil {
					t.Fatal(err)
				}
				b, err := ycsb.New(cfg, store)
				if err != nil {
					t.Fatal(err)
				}
				d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Workload: ycsb.Name, Figures: b.Figures()})
				if err != nil {
					t.Fatal(err)
				}
				if err := (&session.Session{Workload: b, Dir: d, Out: io.Discard, Tick: 200 * time.Millisecond}).Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if conn == nil {
					conn = pgConnect(t, dsn)
				}
				pats := b.Figures().StepPatterns(step)
				if len(pats) != 1 || pats[0].Pattern != c.want[step] {
					t.Fatalf("%s declares %v, want one pattern %s", step, pats, c.want[step])
				}
				// The run's updates rewrite rows too (a new xmin): its inserts are the keys
				// beyond the loaded keynums, which the keys themselves say when ordered and
				// the row count says when hashed (the load's rows keep their xmin unless updated).
				sample := keyorder.Sample[string]{Compare: strings.Compare, Writers: cfg.Clients}
				top := since
				loaded := map[string]bool{}
				for i := int64(0); i < cfg.RecordCount; i++ {
					loaded[cfg.KeyName(i)] = true
				}
				for _, r := range readKeys(t, conn) {
					top = max(top, r.xid)
					if r.xid > since && (step == ycsb.StepLoad || !loaded[r.key]) {
						sample.Inserts = append(sample.Inserts, keyorder.Insert[string]{Key: r.key, Commit: r.xid})
					} else {
						sample.Before = append(sample.Before, r.key)
					}
				}
				since = top
				res, err := keyorder.Infer(sample)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				t.Logf("%s: %v", step, res)
				if got, _ := res.Streams.Code(); got != pats[0].Pattern {
					t.Errorf("%s inserted %s, declared %s: %v", step, got, pats[0].Pattern, res)
				}
				tg.Close()
			}
		})
	}
}

type keyRow struct {
	xid int64
	key string
}

func readKeys(t *testing.T, conn *pgx.Conn) []keyRow {
	t.Helper()
	rs, err := conn.Query(context.Background(), "SELECT xmin::text::bigint, ycsb_key FROM usertable")
	if err != nil {
		t.Fatal(err)
	}
	var out []keyRow
	for rs.Next() {
		var r keyRow
		if err := rs.Scan(&r.xid, &r.key); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b keyRow) int { return cmp.Compare(a.xid, b.xid) })
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

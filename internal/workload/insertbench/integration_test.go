package insertbench_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/monitor"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/insertbench/stores"
)

// testTargets are the targets of the integration tests: SQLite, Pebble, bbolt, PostgreSQL and
// MariaDB with InnoDB and with MyRocks. The servers are real: scripts/test.sh installs and
// starts them and sets DBPERF_TEST_POSTGRES and DBPERF_TEST_MYSQL; without them the test fails
// rather than skip, unless -short.
func testTargets(t *testing.T) map[string]string {
	// (testtargets.All: the same targets for every workload)
	return testtargets.All(t, "dbperf_insertbench", "ib")
}

func openStore(t *testing.T, targetStr string) (driver.Target, ib.Store) {
	t.Helper()
	tg := testtargets.Open(t, targetStr)
	st, err := stores.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	return tg, st
}

// TestAllStepsOnEveryTarget runs the whole step sequence at tiny scale on every target, with a
// table per client and with a shared table, and checks the archive against what was asked.
// Every step is also verified against the database by the session itself.
func TestAllStepsOnEveryTarget(t *testing.T) {
	for name, ts := range testTargets(t) {
		for _, shared := range []bool{false, true} {
			mode := map[bool]string{false: "per-client", true: "shared"}[shared]
			t.Run(name+"/"+mode, func(t *testing.T) {
				tg, store := openStore(t, ts)
				cfg := ib.DefaultConfig()
				cfg.Clients, cfg.SharedTable = 2, shared
				cfg.Rows, cfg.L1Rows, cfg.QSeconds = 1000, 400, 0.5
				cfg.Seed = 42
				cfg.SettleScale = 0.001 // the reference's 30-s and 20-s MyRocks pauses in milliseconds
				bench, err := ib.New(cfg, store)
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(t.TempDir(), "run")
				d, err := archive.Create(dir, archive.Run{Name: "run", Target: archive.Target(tg.Info(context.Background()))})
				if err != nil {
					t.Fatal(err)
				}
				s := &session.Session{Workload: bench, Dir: d, Out: io.Discard, Verify: true, Tick: 200 * time.Millisecond,
					Monitor: monitor.New(context.Background(), tg)}
				if err := s.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				checkArchive(t, dir, cfg)
				checkMonitor(t, dir, name == "postgres" || strings.HasPrefix(name, "mysql"))
			})
		}
	}
}

func checkArchive(t *testing.T, dir string, cfg ib.Config) {
	meta, steps, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !meta.Complete || len(steps) != len(ib.AllSteps) {
		t.Fatalf("run complete=%v with %d steps, want complete with %d", meta.Complete, len(steps), len(ib.AllSteps))
	}
	clients := int64(cfg.Clients)
	wantInserts := map[string]int64{
		"l.i0": cfg.Rows * clients, "l.i1": cfg.L1Rows * clients, "l.i2": cfg.L1Rows / 4 * clients,
		"qr100": 50 * clients, "qp100": 50 * clients, "qr500": 250 * clients, "qp500": 250 * clients,
		"qr1000": 500 * clients, "qp1000": 500 * clients,
	}
	for _, s := range steps {
		if !s.Complete || !s.Verified || s.Errors != 0 {
			t.Errorf("step %s: complete=%v verified=%v errors=%d (%s)", s.Step, s.Complete, s.Verified, s.Errors, s.Error)
		}
		if want, ok := wantInserts[s.Step]; ok {
			if got := s.Ops["insert"].Count; got != want {
				t.Errorf("step %s inserted %d rows, want %d", s.Step, got, want)
			}
			if s.Step != "l.i0" && s.Ops["delete"].Count != want {
				t.Errorf("step %s deleted %d rows, want %d (delete per insert)", s.Step, s.Ops["delete"].Count, want)
			}
			checkIntervals(t, filepath.Join(dir, s.Step), s)
		}
		if strings.HasPrefix(s.Step, "q") {
			if s.Ops["query"].Count == 0 {
				t.Errorf("step %s ran no queries", s.Step)
			}
			if _, ok := s.Workload["insert_target_met"].(bool); !ok {
				t.Errorf("step %s does not say whether the insert target was met: %v", s.Step, s.Workload)
			}
		}
	}
	// l.x inserts the reference's 100 rows first, then indexes them with the rest (iq.sh:230).
	if got := steps[1].Ops["index"].Count; got != cfg.Rows*clients+100 {
		t.Errorf("l.x indexed %d rows, want %d", got, cfg.Rows*clients+100)
	}
	if got := steps[1].Ops["insert"].Count; got != 100 {
		t.Errorf("l.x inserted %d rows, want 100", got)
	}
	if a, _ := steps[4].Workload["settle_actions"].(string); a == "" {
		t.Errorf("settle reports no actions")
	}
}

// checkMonitor checks that every step has host.csv and dbms.csv aligned row for row with
// intervals.csv, and a host summary; a server target's also has the DBMS's memory and both
// database sizes (the servers run on this host).
func checkMonitor(t *testing.T, dir string, server bool) {
	_, steps, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		times := func(file string) []string {
			f, err := os.Open(filepath.Join(dir, s.Step, file))
			if err != nil {
				t.Errorf("step %s: %v", s.Step, err)
				return nil
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Errorf("step %s/%s: %v", s.Step, file, err)
			}
			var ts []string
			for _, r := range rows[1:] {
				ts = append(ts, r[0])
			}
			return ts
		}
		iv := times("intervals.csv")
		for _, file := range []string{"host.csv", "dbms.csv"} {
			if got := times(file); !reflect.DeepEqual(got, iv) {
				t.Errorf("step %s: %s rows at t_sec %v, intervals.csv at %v", s.Step, file, got, iv)
			}
		}
		h := s.Host
		if h == nil {
			t.Errorf("step %s has no host summary", s.Step)
			continue
		}
		// The host cannot be idle while the client kept a fifth of a core busy (over at least
		// 0.1 s: /proc counts CPU in 10 ms ticks).
		if math.Abs(h.Seconds-s.Seconds) > 0.05 || (h.Seconds >= 0.1 && h.ClientCPUCores > 0.2 && h.CPUPS <= 0) || h.CSPS <= 0 || h.WPS == nil {
			t.Errorf("step %s host summary lacks figures: %+v", s.Step, h)
		}
		if server && (h.RSS == nil || *h.RSS <= 0 || h.DBGB1 == nil || h.DBGB2 == nil || h.DBMSCPUUsPerOp == nil || h.Embedded) {
			t.Errorf("step %s on a server: rss %v dbgb1 %v dbgb2 %v dbms_cpupq %v embedded %v", s.Step, h.RSS, h.DBGB1, h.DBGB2, h.DBMSCPUUsPerOp, h.Embedded)
		}
		if !server && !h.Embedded {
			t.Errorf("step %s on an embedded target is not marked embedded", s.Step)
		}
	}
}

// checkIntervals checks that intervals.csv adds up to the summary and that latency.hlog holds
// one histogram per op type and interval whose counts add up to the statements timed.
func checkIntervals(t *testing.T, dir string, s archive.Step) {
	f, err := os.Open(filepath.Join(dir, "intervals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s/intervals.csv: %d rows, %v", dir, len(rows), err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	last := rows[len(rows)-1]
	if total, _ := strconv.ParseInt(last[col["insert_total"]], 10, 64); total != s.Ops["insert"].Count {
		t.Errorf("%s: intervals.csv ends at insert_total %d, summary says %d", dir, total, s.Ops["insert"].Count)
	}
	hf, err := os.Open(filepath.Join(dir, "latency.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	r := hdr.NewHistogramLogReader(bufio.NewReader(hf))
	counts := map[string]int64{}
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("%s/latency.hlog: %v", dir, err)
		}
		if h == nil {
			break
		}
		counts[h.Tag()] += h.TotalCount()
	}
	for op, o := range s.Ops {
		if counts[op] != o.Statements {
			t.Errorf("%s: latency.hlog has %d %s latencies, the summary %d statements", dir, counts[op], op, o.Statements)
		}
	}
}

// TestSameResultsOnEveryTarget loads identical rows (same seed, fixed clock) into every target
// and checks that range and point queries return the same rows everywhere: the KV layer and
// every SQL dialect implement the same schema, index orders and query semantics.
func TestSameResultsOnEveryTarget(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type result struct {
		ranges [][]ib.IndexRow
		points [][]int64
	}
	results := map[string]result{}
	for name, ts := range testTargets(t) {
		_, store := openStore(t, ts)
		cfg := ib.DefaultConfig()
		cfg.Clients, cfg.Rows, cfg.Seed = 1, 3000, 7
		cfg.Steps = []string{"l.i0", "l.x"}
		cfg.Now = func() time.Time { return fixed }
		bench, err := ib.New(cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{})
		if err != nil {
			t.Fatal(err)
		}
		if err := (&session.Session{Workload: bench, Dir: d, Out: io.Discard, Verify: true}).Run(context.Background()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		conn, err := store.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var res result
		starts := map[ib.Index][]int64{
			ib.MarketSegment:   {0, 1, 4999, 9990, 9999, 10000},
			ib.RegisterSegment: {-1, 0, 500, 998, 999},
			ib.PDC:             {0, 250, 499, 500},
		}
		for idx := range ib.NumIndexes {
			for _, x := range starts[idx] {
				rows, err := conn.RangeQuery(context.Background(), "pi1", idx, x, nil)
				if err != nil {
					t.Fatal(err)
				}
				res.ranges = append(res.ranges, rows)
			}
		}
		for _, ids := range [][]int64{{1, 2, 3}, {3000, 2999, 5000, 0}, {17, 17, 1500}} {
			rows, err := conn.PointQuery(context.Background(), "pi1", ids, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range rows {
				got = append(got, r.ID)
			}
			res.points = append(res.points, sortedIDs(got))
		}
		conn.Close()
		results[name] = res
	}
	base := results["sqlite"]
	if len(base.ranges[0]) != ib.RowsPerQuery {
		t.Fatalf("range query from 0 returned %d rows, want %d", len(base.ranges[0]), ib.RowsPerQuery)
	}
	for name, r := range results {
		if !reflect.DeepEqual(r.ranges, base.ranges) {
			t.Errorf("%s range query results differ from sqlite's:\n%v\n%v", name, r.ranges, base.ranges)
		}
		if !reflect.DeepEqual(r.points, base.points) {
			t.Errorf("%s point query results differ from sqlite's: %v vs %v", name, r.points, base.points)
		}
	}
}

func sortedIDs(ids []int64) []int64 {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

package kvdriver

import (
	"context"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/monitor"
)

// monitorCounters are the counters each engine must report.
var monitorCounters = map[string][]string{
	"pebble": {
		"flush_count", "flush_bytes", "flush_tables", "compaction_count", "compaction_read_bytes",
		"compaction_write_bytes", "compaction_moved_bytes", "compaction_seconds", "compaction_in_progress",
		"compaction_debt_bytes", "wal_bytes_written", "wal_bytes_in", "wal_files", "ingested_bytes",
		"bytes_in", "write_amp", "read_amp", "l0_files", "l0_sublevels", "l0_bytes", "tables",
		"tables_bytes", "memtable_bytes", "memtable_count", "block_cache_bytes", "block_cache_hits",
		"block_cache_misses", "file_cache_hits", "file_cache_misses", "disk_usage_bytes",
		"write_stalls", "write_stall_seconds", "write_stall_waits", "write_stalled_now",
		"write_stalls_memtable", "write_stalls_l0",
	},
	"bbolt": {
		"read_txs", "open_read_txs", "free_pages", "pending_pages", "free_alloc_bytes",
		"freelist_inuse_bytes", "page_allocs", "page_alloc_bytes", "cursors", "nodes", "node_derefs",
		"rebalances", "rebalance_seconds", "splits", "spills", "spill_seconds", "writes", "write_seconds",
	},
}

func counters(t *testing.T, c monitor.Counters, kind string) map[string]float64 {
	t.Helper()
	m, err := c.DBMSCounters(context.Background())
	if err != nil {
		t.Fatalf("DBMSCounters: %v", err)
	}
	var missing []string
	for _, name := range monitorCounters[kind] {
		if _, ok := m[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 || len(m) != len(monitorCounters[kind]) {
		t.Fatalf("DBMSCounters = %v: missing %v, or names not in the test's list", m, missing)
	}
	return m
}

func size(t *testing.T, s monitor.Size) int64 {
	t.Helper()
	n, err := s.DatabaseSize(context.Background())
	if err != nil {
		t.Fatalf("DatabaseSize: %v", err)
	}
	return n
}

// writeValues writes n keys (1..n) with random values of 500 to 1000 bytes, batch a write.
func writeValues(t *testing.T, db *DB, n, batch int) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	val := make([]byte, 1000)
	for first := 1; first <= n; first += batch {
		err := db.Write(func(w Writer) error {
			for k := first; k < first+batch && k <= n; k++ {
				v := val[:500+r.IntN(501)]
				for i := range v {
					v[i] = byte(r.Uint32())
				}
				if err := w.Set(AppendInt(nil, int64(k)), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestMonitor(t *testing.T) {
	for _, e := range engines {
		t.Run(e.kind, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			path := e.path(dir)
			tg := openTarget(t, e.kind+":"+path)
			defer tg.Close()
			proc, ok1 := tg.(monitor.Processes)
			dd, ok2 := tg.(monitor.DataDir)
			sz, ok3 := tg.(monitor.Size)
			cnt, ok4 := tg.(monitor.Counters)
			if !ok1 || !ok2 || !ok3 || !ok4 {
				t.Fatalf("%T lacks a monitor interface: Processes %v DataDir %v Size %v Counters %v", tg, ok1, ok2, ok3, ok4)
			}

			pids, embedded, err := proc.DBMSProcesses(ctx)
			if err != nil || !embedded || !slices.Equal(pids, []int{os.Getpid()}) {
				t.Fatalf("DBMSProcesses = %v, %v, %v; want this process, embedded", pids, embedded, err)
			}
			got, err := dd.DataDir(ctx)
			want := dir // bbolt: the file's directory
			if e.kind == "pebble" {
				want = path // the database's own directory
			}
			if err != nil || got != want {
				t.Fatalf("DataDir = %q, %v; want %q", got, err, want)
			}
			if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
				t.Fatalf("DataDir %s: %v", got, err)
			}

			size0 := size(t, sz)
			c0 := counters(t, cnt, e.kind)
			if size0 <= 0 {
				t.Fatalf("DatabaseSize of the empty database = %d", size0)
			}

			db := tg.(*DB)
			writeValues(t, db, 3000, 100)

			size1 := size(t, sz)
			c1 := counters(t, cnt, e.kind)
			if size1 <= size0 {
				t.Errorf("DatabaseSize %d after 3000 rows, %d before", size1, size0)
			}
			grew := func(a, b map[string]float64, names ...string) {
				t.Helper()
				for _, n := range names {
					if b[n] <= a[n] {
						t.Errorf("%s: %g, then %g after writes", n, a[n], b[n])
					}
				}
			}
			switch e.kind {
			case "pebble":
				grew(c0, c1, "wal_bytes_written", "wal_bytes_in", "bytes_in", "memtable_bytes")
				if c1["wal_bytes_written"] < 3000*500 {
					t.Errorf("wal_bytes_written = %g after 3000 rows of 500 bytes or more", c1["wal_bytes_written"])
				}

				if _, err := db.Settle(ctx, nil); err != nil {
					t.Fatal(err)
				}
				c2 := counters(t, cnt, e.kind)
				grew(c1, c2, "flush_count", "flush_bytes", "flush_tables", "compaction_count", "tables")
				// One L0 file may go down by a move, which writes nothing.
				if c2["compaction_write_bytes"]+c2["compaction_moved_bytes"] <= 0 {
					t.Errorf("after Settle: compaction_write_bytes %g, compaction_moved_bytes %g", c2["compaction_write_bytes"], c2["compaction_moved_bytes"])
				}
				if c2["l0_files"] != 0 || c2["l0_sublevels"] != 0 || c2["compaction_debt_bytes"] != 0 {
					t.Errorf("after Settle: l0_files %g, l0_sublevels %g, compaction_debt_bytes %g; want 0",
						c2["l0_files"], c2["l0_sublevels"], c2["compaction_debt_bytes"])
				}
				if c2["write_amp"] <= 0 || c2["tables_bytes"] <= 0 {
					t.Errorf("after Settle: write_amp %g, tables_bytes %g", c2["write_amp"], c2["tables_bytes"])
				}
				if size(t, sz) <= 0 {
					t.Error("DatabaseSize is 0 after Settle")
				}

				// The stall listener is Pebble's: the hooks it calls are ours.
				eng := db.Engine.(*pebbleEngine)
				eng.opts.EventListener.WriteStallBegin(pebble.WriteStallBeginInfo{Reason: "L0 file count limit exceeded"})
				time.Sleep(10 * time.Millisecond)
				eng.opts.EventListener.WriteStallEnd()
				c3 := counters(t, cnt, e.kind)
				if c3["write_stalls"] != 1 || c3["write_stalls_l0"] != 1 || c3["write_stall_seconds"] < 0.01 || c3["write_stalled_now"] != 0 {
					t.Errorf("after one stall of 10ms: %v", c3)
				}
			case "bbolt":
				grew(c0, c1, "writes", "page_allocs", "page_alloc_bytes", "spills", "splits", "nodes")
				// A read transaction adds to read_txs when it ends.
				if _, err := db.Get(AppendInt(nil, 1), func([]byte) {}); err != nil {
					t.Fatal(err)
				}
				grew(c1, counters(t, cnt, e.kind), "read_txs")
			}

			if err := tg.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := cnt.DBMSCounters(ctx); err == nil {
				t.Error("DBMSCounters on a closed store succeeded")
			}
			if _, err := sz.DatabaseSize(ctx); err == nil {
				t.Error("DatabaseSize on a closed store succeeded")
			}
		})
	}
}

func TestWriteStalls(t *testing.T) {
	w := &writeStalls{}
	l := w.listener()
	sample := func() map[string]float64 {
		c := map[string]float64{}
		w.addTo(c)
		return c
	}
	if c := sample(); c["write_stalls"] != 0 || c["write_stall_seconds"] != 0 {
		t.Fatalf("before any stall: %v", c)
	}
	// Two writers held back in one stall (memtables full), released one after the other.
	l.WriteStallBegin(pebble.WriteStallBeginInfo{Reason: "memtable count limit reached"})
	l.WriteStallBegin(pebble.WriteStallBeginInfo{Reason: "L0 file count limit exceeded"})
	time.Sleep(20 * time.Millisecond)
	during := sample()
	if during["write_stalls"] != 1 || during["write_stalled_now"] != 2 || during["write_stall_seconds"] < 0.02 {
		t.Fatalf("during a stall: %v", during)
	}
	l.WriteStallEnd()
	time.Sleep(5 * time.Millisecond)
	l.WriteStallEnd()
	after := sample()
	if after["write_stalls"] != 1 || after["write_stall_waits"] != 2 || after["write_stalled_now"] != 0 ||
		after["write_stalls_memtable"] != 1 || after["write_stalls_l0"] != 0 ||
		after["write_stall_seconds"] < during["write_stall_seconds"]+0.005 {
		t.Fatalf("after the stall: %v (during: %v)", after, during)
	}
	time.Sleep(5 * time.Millisecond)
	if again := sample(); again["write_stall_seconds"] != after["write_stall_seconds"] {
		t.Fatalf("stall time grows after the stall ended: %v then %v", after, again)
	}
	l.WriteStallEnd() // unpaired: ignored
	if c := sample(); c["write_stalled_now"] != 0 {
		t.Fatalf("after an unpaired end: %v", c)
	}
}

// TestCounterSet: every engine's full set holds its curated counters and, for Pebble, every
// numeric field of its Metrics by level, with gauges declared; a flush moves Pebble's flush
// counters; bbolt's kinds follow its Stats.
func TestCounterSet(t *testing.T) {
	for _, e := range engines {
		t.Run(e.kind, func(t *testing.T) {
			tg := openTarget(t, e.kind+":"+e.path(t.TempDir()))
			defer tg.Close()
			cs, ok := tg.(monitor.CounterSet)
			if !ok {
				t.Fatalf("%T has no CounterSet", tg)
			}
			db := tg.(*DB)
			writeValues(t, db, 2000, 100)
			c0, err := cs.DBMSCounterSet(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range monitorCounters[e.kind] {
				if _, ok := c0[n]; !ok {
					t.Errorf("the full set lacks the curated %s", n)
				}
			}
			gauge := func(n string) bool {
				for _, g := range cs.DBMSGauges() {
					if ok, _ := path.Match(g, n); ok {
						return true
					}
				}
				return false
			}
			var gauges, counters []string
			switch e.kind {
			case "pebble":
				gauges = []string{"pebble.levels.0.tables_count", "pebble.levels.6.sublevels", "pebble.mem_table.size",
					"pebble.compact.estimated_debt", "l0_files", "write_stalled_now"}
				counters = []string{"pebble.compact.count", "pebble.levels.0.table_bytes_flushed", "pebble.wal.bytes_written",
					"pebble.block_cache.hits", "pebble.uptime", "flush_count"}
			case "bbolt":
				gauges = []string{"free_pages", "open_read_txs"}
				counters = []string{"writes", "page_allocs"}
			}
			for _, n := range append(gauges, counters...) {
				if _, ok := c0[n]; !ok {
					t.Errorf("no %s in %d counters", n, len(c0))
				}
			}
			for _, n := range gauges {
				if !gauge(n) {
					t.Errorf("%s is not a gauge", n)
				}
			}
			for _, n := range counters {
				if gauge(n) {
					t.Errorf("%s is a gauge", n)
				}
			}
			if e.kind != "pebble" {
				return
			}
			if err := db.Engine.(*pebbleEngine).db.Flush(); err != nil {
				t.Fatal(err)
			}
			c1, _ := cs.DBMSCounterSet(context.Background())
			if c1["pebble.flush.count"] <= c0["pebble.flush.count"] || c1["pebble.levels.0.table_bytes_flushed"] <= c0["pebble.levels.0.table_bytes_flushed"] {
				t.Errorf("a flush: pebble.flush.count %g -> %g", c0["pebble.flush.count"], c1["pebble.flush.count"])
			}
		})
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"TableBytesIn": "table_bytes_in", "WAL": "wal", "BytesIn": "bytes_in",
		"LogWriterMetrics": "log_writer_metrics", "FsyncLatency": "fsync_latency", "TablesCount": "tables_count"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestCounterSetLSM: Badger's full set holds its expvars and levels, and RocksDB's (built with
// -tags rocksdb) its properties by level, with the levels as gauges.
func TestCounterSetLSM(t *testing.T) {
	for kind, want := range map[string][]string{
		"badger":  {"badger.badger_put_num_user", "badger.level.0.tables", "gets"},
		"rocksdb": {"rocksdb.num-files-at-level0", "rocksdb.estimate-pending-compaction-bytes", "rocksdb.cur-size-all-mem-tables"},
	} {
		t.Run(kind, func(t *testing.T) {
			s, err := driver.Parse(kind + ":" + t.TempDir() + "/db")
			if err != nil {
				t.Fatal(err)
			}
			tg, err := driver.Open(context.Background(), s)
			if err != nil {
				t.Skipf("%s: %v", kind, err) // RocksDB without -tags rocksdb
			}
			defer tg.Close()
			writeValues(t, tg.(*DB), 500, 100)
			cs := tg.(monitor.CounterSet)
			c, err := cs.DBMSCounterSet(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range want {
				if _, ok := c[n]; !ok {
					t.Errorf("no %s in %d counters", n, len(c))
				}
			}
			g := want[1]
			if ok := slices.ContainsFunc(cs.DBMSGauges(), func(p string) bool { m, _ := path.Match(p, g); return m }); !ok {
				t.Errorf("%s is not a gauge", g)
			}
		})
	}
}

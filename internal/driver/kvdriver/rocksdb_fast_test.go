//go:build rocksdb

package kvdriver

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"
)

// TestRocksBlockCacheAsDBBench: the block cache is the one db_bench makes (the capacity asked,
// 64 shards, no high-priority pool: --cache_high_pri_pool_ratio 0), not the C API's default
// (a pool of half the cache), and the table options use it: a read after a flush fills it.
func TestRocksBlockCacheAsDBBench(t *testing.T) {
	eng, err := openRocksDB(t.TempDir(), Options{CacheBytes: 16 << 20, LSM: LSM{DBBenchDefaults: true, CacheShardBits: 6}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*rocksEngine)
	opts := cacheOptions(e.cache)
	for _, want := range []string{"capacity : 16777216", "num_shard_bits : 6", "high_pri_pool_ratio: 0.000"} {
		if !strings.Contains(opts, want) {
			t.Errorf("the block cache's options lack %q:\n%s", want, opts)
		}
	}
	if err := e.Put([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	fo := grocksdb.NewDefaultFlushOptions()
	fo.SetWait(true)
	defer fo.Destroy()
	if err := e.db.Flush(fo); err != nil {
		t.Fatal(err)
	}
	if found, err := e.Get([]byte("k"), func([]byte) {}); err != nil || !found {
		t.Fatalf("Get after the flush: %v, %v", found, err)
	}
	if usage := cacheUsage(e.cache); usage == 0 {
		t.Error("the block cache holds nothing after a read from a table: the table options do not use it")
	}
}

// TestRocksDBBenchDefaults: the options db_bench's flags set where the C API has no setter are
// the ones RocksDB writes to the database's OPTIONS file.
func TestRocksDBBenchDefaults(t *testing.T) {
	dir := t.TempDir()
	eng, err := openRocksDB(dir, Options{LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if len(files) == 0 {
		t.Fatal("RocksDB wrote no OPTIONS file")
	}
	text, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"delayed_write_rate=8388608", "hard_pending_compaction_bytes_limit=137438953472",
		"index_shortening=kShortenSeparatorsAndSuccessor", "pin_top_level_index_and_filter=false"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("%s lacks %s", filepath.Base(files[len(files)-1]), want)
		}
	}
}

// TestRocksBindingCallCost: run.json's engine settings carry the cost of one cgo call, measured
// at open: positive, and below a microsecond on any machine that runs the tests.
func TestRocksBindingCallCost(t *testing.T) {
	eng, err := openRocksDB(t.TempDir(), Options{LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ns, ok := eng.Settings()["binding_call_ns"].(float64)
	if !ok || ns <= 0 || ns >= 1000 {
		t.Errorf("binding_call_ns = %v, want a cost in ns between 0 and 1000", eng.Settings()["binding_call_ns"])
	}
}

// TestRocksHandles checks the C handles read out of grocksdb's objects: the property a raw
// handle reads is the one grocksdb reads, and a value put through one is read through the other.
func TestRocksHandles(t *testing.T) {
	eng, err := openRocksDB(t.TempDir(), Options{LSM: LSM{DBBenchDefaults: true, BlockSize: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*rocksEngine)
	if err := e.Put([]byte("k"), []byte("v1")); err != nil {
		t.Fatal(err)
	}
	s, err := e.db.GetPinned(e.ro, []byte("k"))
	if err != nil || !bytes.Equal(s.Data(), []byte("v1")) {
		t.Fatalf("grocksdb reads %q, %v after a Put through the raw handles", s.Data(), err)
	}
	s.Destroy()
	if err := e.Write(func(w Writer) error { return w.Set([]byte("k"), []byte("v2")) }); err != nil {
		t.Fatal(err)
	}
	var got []byte
	found, err := e.Get([]byte("k"), func(v []byte) { got = append(got, v...) })
	if err != nil || !found || string(got) != "v2" {
		t.Fatalf("raw Get read %q, %v, %v after a grocksdb write", got, found, err)
	}
}

// TestRocksFastPaths checks Get, MultiGet and the chunked scans against what was written,
// with values larger than the pooled buffer so that it grows.
func TestRocksFastPaths(t *testing.T) {
	eng, err := openRocksDB(t.TempDir(), Options{LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*rocksEngine)
	const n = 300
	key := func(i int) []byte { return []byte(fmt.Sprintf("key%05d", i)) }
	val := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 1+(i*997)%3000+(i/299)*200000) }
	for i := 0; i < n; i++ {
		if err := e.Put(key(i), val(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{0, 7, 299} {
		var got []byte
		if found, err := e.Get(key(i), func(v []byte) { got = append(got[:0], v...) }); err != nil || !found || !bytes.Equal(got, val(i)) {
			t.Fatalf("Get(%s): found %v, err %v, %d bytes, want %d", key(i), found, err, len(got), len(val(i)))
		}
	}
	if found, err := e.Get([]byte("absent"), func([]byte) { t.Fatal("called for an absent key") }); found || err != nil {
		t.Fatalf("Get(absent) = %v, %v", found, err)
	}
	keys := [][]byte{key(3), []byte("absent"), key(299), key(42)}
	want := map[int]int{0: 3, 2: 299, 3: 42}
	found, err := e.MultiGet(keys, func(i int, v []byte) {
		if !bytes.Equal(v, val(want[i])) {
			t.Errorf("MultiGet key %d: wrong value", i)
		}
		delete(want, i)
	})
	if err != nil || found != 3 || len(want) != 0 {
		t.Fatalf("MultiGet found %d, err %v, missed %v", found, err, want)
	}
	count := func(scan func(fn func(k, v []byte) bool) error) (first, last string, c int) {
		if err := scan(func(k, v []byte) bool {
			if c == 0 {
				first = string(k)
			}
			last = string(k)
			c++
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, tc := range []struct {
		name        string
		scan        func(fn func(k, v []byte) bool) error
		first, last string
		n           int
	}{
		{"all", func(fn func(k, v []byte) bool) error { return e.Scan(nil, nil, fn) }, "key00000", "key00299", n},
		{"bounded", func(fn func(k, v []byte) bool) error { return e.Scan(key(10), key(200), fn) }, "key00010", "key00199", 190},
		{"limit", func(fn func(k, v []byte) bool) error { return e.ScanLimit(key(5), nil, 10, fn) }, "key00005", "key00014", 10},
		{"limit past the end", func(fn func(k, v []byte) bool) error { return e.ScanLimit(key(295), nil, 10, fn) }, "key00295", "key00299", 5},
		{"reverse", func(fn func(k, v []byte) bool) error { return e.ScanReverse(key(100), fn) }, "key00100", "key00000", 101},
		{"reverse limit", func(fn func(k, v []byte) bool) error { return e.ScanReverseLimit(key(100), 10, fn) }, "key00100", "key00091", 10},
	} {
		first, last, c := count(tc.scan)
		if first != tc.first || last != tc.last || c != tc.n {
			t.Errorf("%s: %s..%s, %d entries; want %s..%s, %d", tc.name, first, last, c, tc.first, tc.last, tc.n)
		}
	}
	stopped := 0
	if err := e.Scan(nil, nil, func(k, v []byte) bool { stopped++; return stopped < 70 }); err != nil || stopped != 70 {
		t.Fatalf("a scan stopped by fn visited %d, err %v", stopped, err)
	}
}

func TestRocksDumpCounters(t *testing.T) {
	dump := "Cumulative writes: 10 writes, 10 keys, 10 commit groups, 1.0 writes per commit group, ingest: 0.50 GB, 1.00 MB/s\n" +
		"Cumulative WAL: 10 writes, 0 syncs, 10.00 writes per sync, written: 0.25 GB, 0.50 MB/s\n" +
		"Cumulative stall: 00:01:2.500 H:M:S, 0.1 percent\n" +
		" Sum      7/0   204.54 MB   0.0      1.0     0.0      0.0       1.5      0.0       0.0   0.0      0.0      0.0      3.25              0.00         0    0.000       0      0       0.0       0.0\n" +
		"Flush(GB): cumulative 0.500, interval 0.000\n" +
		"Cumulative compaction: 1.50 GB write, 3.00 MB/s write, 1.00 GB read, 2.00 MB/s read, 3.3 seconds\n"
	c := rocksDumpCounters(dump)
	for name, want := range map[string]float64{CounterFlushBytes: 0.5 * (1 << 30), CounterCompactionBytes: 1 << 30,
		"compaction_read_bytes": 1 << 30, "bytes_written": 0.5 * (1 << 30), "wal_bytes": 0.25 * (1 << 30),
		CounterStallSeconds: 62.5, CounterCompactionSeconds: 3.25} {
		if c[name] != want {
			t.Errorf("%s = %v, want %v", name, c[name], want)
		}
	}
}

// BenchmarkRocksBinding measures what the binding costs per call, beside RocksDB's own work: a
// cgo call that does nothing, and a Get of a cached key through dbperf's one-call path and
// through grocksdb's three calls (docs/performance.md, "RocksDB beside db_bench"):
//
//	go test -tags rocksdb -run '^$' -bench RocksBinding ./internal/driver/kvdriver
func BenchmarkRocksBinding(b *testing.B) {
	eng, err := openRocksDB(b.TempDir(), Options{LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*rocksEngine)
	key, val := []byte("key0000000000000000"), bytes.Repeat([]byte("v"), 400)
	if err := e.Put(key, val); err != nil {
		b.Fatal(err)
	}
	b.Run("cgo-noop", func(b *testing.B) {
		for b.Loop() {
			cgoNoop()
		}
	})
	var n int
	onValue := func(v []byte) { n += len(v) }
	b.Run("get-dbperf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Get(key, onValue); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get-grocksdb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := e.db.GetPinned(e.ro, key)
			if err != nil {
				b.Fatal(err)
			}
			onValue(s.Data())
			s.Destroy()
		}
	})
	b.Run("put-dbperf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := e.Put(key, val); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("put-grocksdb-batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := e.Write(func(w Writer) error { return w.Set(key, val) }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRocksValueLengths: GetLen and MultiGetLen say what Get and MultiGet hand over, without
// the bytes: each value's length (an empty one too, and one beyond the pooled buffer), absent
// keys as such, and a batch too large for the binding as an error.
func TestRocksValueLengths(t *testing.T) {
	eng, err := openRocksDB(t.TempDir(), Options{LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*rocksEngine)
	sizes := map[string]int{"empty": 0, "small": 5, "block": 400, "large": 100 << 10}
	var keys [][]byte
	for k, n := range sizes {
		if err := e.Put([]byte(k), bytes.Repeat([]byte{'v'}, n)); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, []byte(k))
	}
	keys = append(keys, []byte("absent"))
	for _, k := range keys {
		n, found, err := e.GetLen(k)
		want, wantFound := sizes[string(k)]
		if err != nil || found != wantFound || n != want {
			t.Errorf("GetLen(%s) = %d, %v, %v; want %d, %v", k, n, found, err, want, wantFound)
		}
	}
	lens := make([]int, len(keys))
	found, err := e.MultiGetLen(keys, lens)
	if err != nil || found != len(sizes) {
		t.Fatalf("MultiGetLen found %d, %v; want %d", found, err, len(sizes))
	}
	for i, k := range keys {
		want, ok := sizes[string(k)]
		if !ok {
			want = -1
		}
		if lens[i] != want {
			t.Errorf("MultiGetLen: %s has length %d, want %d", k, lens[i], want)
		}
	}
	if _, err := e.MultiGetLen(make([][]byte, 65), make([]int, 65)); err == nil {
		t.Error("MultiGetLen of 65 keys: no error")
	}
}

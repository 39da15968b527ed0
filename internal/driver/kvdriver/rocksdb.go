//go:build rocksdb

package kvdriver

// RocksDB through cgo (github.com/linxGnu/grocksdb v1.7.14, the binding for RocksDB 7.8.3, against
// Debian's librocksdb-dev). Build with -tags rocksdb; without the tag rocksdb_disabled.go stands in.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/linxGnu/grocksdb"
)

func init() {
	driver.Register(driver.Kind{
		Name: "rocksdb", Usage: "rocksdb[:DIR]",
		Summary: "RocksDB LSM through cgo (librocksdb-dev), embedded; a temporary directory when DIR is omitted",
		Open: func(_ context.Context, s driver.Spec) (driver.Target, error) {
			return open(s, "rocksdb", func(path string) (Engine, error) { return openRocksDB(path, DefaultOptions()) })
		},
	})
	RegisterTuned("rocksdb", openRocksDB)
}

// rocksCompression maps a compression name to RocksDB's.
var rocksCompression = map[string]grocksdb.CompressionType{
	"none": grocksdb.NoCompression, "snappy": grocksdb.SnappyCompression,
	"lz4": grocksdb.LZ4Compression, "zstd": grocksdb.ZSTDCompression,
}

type rocksEngine struct {
	db       *grocksdb.DB
	opts     *grocksdb.Options
	table    *grocksdb.BlockBasedTableOptions
	cache    *grocksdb.Cache
	ro       *grocksdb.ReadOptions
	wo       *grocksdb.WriteOptions
	settings map[string]any
}

var (
	_ MultiGetter      = (*rocksEngine)(nil)
	_ ReverseScanner   = (*rocksEngine)(nil)
	_ Flusher          = (*rocksEngine)(nil)
	_ L0Compactor      = (*rocksEngine)(nil)
	_ CompactionWaiter = (*rocksEngine)(nil)
	_ Monitored        = (*rocksEngine)(nil)
)

// openRocksDB sets the options benchmark_compare.sh passes where dbperf has a say (leveled
// compaction with dynamic level bytes, bloom 10 bits, 8 KiB blocks, bytes_per_sync 1 MiB) and the
// caller's sizes. Statistics are on (the reference turns them off and parses its LOG instead):
// they give the flush and compaction bytes of the summary columns exactly.
func openRocksDB(path string, o Options) (Engine, error) {
	e := &rocksEngine{opts: grocksdb.NewDefaultOptions(), table: grocksdb.NewDefaultBlockBasedTableOptions()}
	opts, table := e.opts, e.table
	opts.SetCreateIfMissing(true)
	opts.SetInfoLogLevel(grocksdb.WarnInfoLogLevel)
	opts.SetKeepLogFileNum(2)
	cache := int64(8 << 20) // RocksDB's default block cache
	if o.CacheBytes > 0 {
		cache = o.CacheBytes
	}
	e.cache = grocksdb.NewLRUCache(uint64(cache))
	table.SetBlockCache(e.cache)
	table.SetBlockSize(8 << 10)
	table.SetFilterPolicy(grocksdb.NewBloomFilterFull(10))
	table.SetPinL0FilterAndIndexBlocksInCache(true)
	opts.SetBlockBasedTableFactory(table)
	memtable := int64(64 << 20)
	if o.MemtableBytes > 0 {
		memtable = o.MemtableBytes
	}
	opts.SetWriteBufferSize(uint64(memtable))
	jobs := 2
	if o.BackgroundJobs > 0 {
		jobs = o.BackgroundJobs
	}
	opts.SetMaxBackgroundJobs(jobs)
	compression := "snappy" // RocksDB's default
	if o.Compression != "" {
		c, ok := rocksCompression[o.Compression]
		if !ok {
			return nil, fmt.Errorf("rocksdb: unknown compression %q", o.Compression)
		}
		opts.SetCompression(c)
		compression = o.Compression
	}
	opts.SetLevelCompactionDynamicLevelBytes(true)
	opts.SetBytesPerSync(1 << 20)
	if o.DirectIO {
		opts.SetUseDirectReads(true)
		opts.SetUseDirectIOForFlushAndCompaction(true)
		opts.SetBytesPerSync(0)
	}
	opts.EnableStatistics()
	db, err := grocksdb.OpenDb(opts, path)
	if err != nil {
		e.destroyOptions()
		return nil, err
	}
	e.db = db
	e.ro = grocksdb.NewDefaultReadOptions()
	e.wo = grocksdb.NewDefaultWriteOptions()
	e.wo.SetSync(o.Sync)
	e.wo.DisableWAL(o.DisableWAL)
	e.settings = map[string]any{
		"setup": o.Setup, "sync_writes": o.Sync, "disable_wal": o.DisableWAL, "direct_io": o.DirectIO,
		"block_cache_bytes": cache, "block_cache": "LRU", "memtable_bytes": memtable,
		"max_background_jobs": jobs, "compression": compression, "block_size": 8 << 10,
		"bloom_bits_per_key": 10, "level_compaction_dynamic_level_bytes": true,
		"bytes_per_sync": map[bool]int{false: 1 << 20, true: 0}[o.DirectIO], "statistics": true,
		"pin_l0_filter_and_index_blocks_in_cache": true,
	}
	return e, nil
}

func (e *rocksEngine) destroyOptions() {
	e.opts.Destroy()
	e.table.Destroy()
	if e.cache != nil {
		e.cache.Destroy()
	}
}

func (e *rocksEngine) Write(fn func(w Writer) error) error {
	b := grocksdb.NewWriteBatch()
	defer b.Destroy()
	if err := fn(rocksWriter{b}); err != nil {
		return err
	}
	return e.db.Write(e.wo, b)
}

type rocksWriter struct{ b *grocksdb.WriteBatch }

func (w rocksWriter) Set(k, v []byte) error { w.b.Put(k, v); return nil }
func (w rocksWriter) Delete(k []byte) error { w.b.Delete(k); return nil }

func (e *rocksEngine) Get(key []byte, fn func([]byte)) (bool, error) {
	s, err := e.db.GetPinned(e.ro, key)
	if err != nil {
		return false, err
	}
	defer s.Destroy()
	if !s.Exists() {
		return false, nil
	}
	fn(s.Data())
	return true, nil
}

// MultiGet is RocksDB's batched MultiGet.
func (e *rocksEngine) MultiGet(keys [][]byte, fn func(i int, v []byte)) (int, error) {
	vals, err := e.db.MultiGet(e.ro, keys...)
	if err != nil {
		return 0, err
	}
	defer vals.Destroy()
	found := 0
	for i, v := range vals {
		if v.Exists() {
			found++
			fn(i, v.Data())
		}
	}
	return found, nil
}

func (e *rocksEngine) Scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	it := e.db.NewIterator(e.ro)
	defer it.Close()
	for it.Seek(lower); it.Valid(); it.Next() {
		k := it.Key().Data()
		if upper != nil && string(k) >= string(upper) {
			break
		}
		if !fn(k, it.Value().Data()) {
			break
		}
	}
	return it.Err()
}

// ScanReverse is SeekForPrev then Prev: the keys at or below start, descending.
func (e *rocksEngine) ScanReverse(start []byte, fn func(k, v []byte) bool) error {
	it := e.db.NewIterator(e.ro)
	defer it.Close()
	for it.SeekForPrev(start); it.Valid(); it.Prev() {
		if !fn(it.Key().Data(), it.Value().Data()) {
			break
		}
	}
	return it.Err()
}

func (e *rocksEngine) DropRange(lower, upper []byte) error {
	if upper == nil {
		upper = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	b := grocksdb.NewWriteBatch()
	defer b.Destroy()
	b.DeleteRange(lower, upper)
	return e.db.Write(e.wo, b)
}

func (e *rocksEngine) Flush(context.Context) (string, error) {
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	if err := e.db.Flush(fo); err != nil {
		return "", err
	}
	return "DB::Flush, waiting", nil
}

// CompactL0 compacts the key range of L0's files with CompactRange: grocksdb 1.7.14's C API has
// no CompactFiles (db_bench's compact0), so the levels below in that range are rewritten too.
func (e *rocksEngine) CompactL0(context.Context) (string, error) {
	var lo, hi []byte
	files := 0
	for _, f := range e.db.GetLiveFilesMetaData() {
		if f.Level != 0 {
			continue
		}
		files++
		if lo == nil || string(f.SmallestKey) < string(lo) {
			lo = f.SmallestKey
		}
		if hi == nil || string(f.LargestKey) > string(hi) {
			hi = f.LargestKey
		}
	}
	if files == 0 {
		return "L0 is empty: nothing to compact", nil
	}
	e.db.CompactRange(grocksdb.Range{Start: lo, Limit: hi})
	return fmt.Sprintf("CompactRange over the key range of %d L0 files, with the levels below (no CompactFiles in the C API)", files), nil
}

// WaitForCompaction polls RocksDB's properties until no flush or compaction runs or is pending
// (DB::WaitForCompact arrived in RocksDB 8.x, after this library).
func (e *rocksEngine) WaitForCompaction(ctx context.Context) (string, error) {
	start := time.Now()
	props := []string{"rocksdb.num-running-compactions", "rocksdb.num-running-flushes",
		"rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"}
	for {
		busy := false
		for _, p := range props {
			if v, ok := e.db.GetIntProperty(p); ok && v > 0 {
				busy = true
			}
		}
		if !busy {
			return fmt.Sprintf("no flush or compaction running or pending after %.1fs", time.Since(start).Seconds()), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (e *rocksEngine) Name() string { return "RocksDB" }

// Version is the library's, as it writes it into the OPTIONS file of the database it opened.
func (e *rocksEngine) Version() string {
	v := "unknown"
	files, _ := filepath.Glob(filepath.Join(e.db.Name(), "OPTIONS-*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if s, ok := strings.CutPrefix(strings.TrimSpace(line), "rocksdb_version="); ok {
				v = s
			}
		}
	}
	return v + " (grocksdb " + moduleVersion("github.com/linxGnu/grocksdb") + ")"
}

func (e *rocksEngine) Settings() map[string]any {
	s := make(map[string]any, len(e.settings))
	for k, v := range e.settings {
		s[k] = v
	}
	return s
}

func (e *rocksEngine) Close() error {
	e.db.Close()
	e.ro.Destroy()
	e.wo.Destroy()
	e.destroyOptions()
	return nil
}

func (e *rocksEngine) DiskSize() (int64, error) {
	var n uint64
	for _, p := range []string{"rocksdb.total-sst-files-size", "rocksdb.total-blob-file-size"} {
		v, _ := e.db.GetIntProperty(p)
		n += v
	}
	return int64(n), nil
}

// Counters are RocksDB's statistics tickers (running totals since open: flush_bytes,
// compaction_write_bytes, compaction_read_bytes, bytes_written, write_stall_seconds,
// block_cache_hits/misses) and properties (gauges: tables_bytes, blob_bytes, l0_files,
// compaction_debt_bytes, running_compactions).
func (e *rocksEngine) Counters() (map[string]float64, error) {
	t := rocksTickers(e.opts.GetStatisticsString())
	c := map[string]float64{
		CounterFlushBytes:        t["rocksdb.flush.write.bytes"],
		CounterCompactionBytes:   t["rocksdb.compact.write.bytes"],
		"compaction_read_bytes":  t["rocksdb.compact.read.bytes"],
		"bytes_written":          t["rocksdb.bytes.written"],
		"wal_bytes":              t["rocksdb.wal.bytes"],
		CounterStallSeconds:      t["rocksdb.stall.micros"] / 1e6,
		"block_cache_hits":       t["rocksdb.block.cache.hit"],
		"block_cache_misses":     t["rocksdb.block.cache.miss"],
		CounterCompactionSeconds: t["rocksdb.compaction.times.micros.sum"] / 1e6,
	}
	for name, prop := range map[string]string{
		CounterTablesBytes: "rocksdb.live-sst-files-size", CounterBlobBytes: "rocksdb.total-blob-file-size",
		"l0_files": "rocksdb.num-files-at-level0", "compaction_debt_bytes": "rocksdb.estimate-pending-compaction-bytes",
		"running_compactions": "rocksdb.num-running-compactions", "memtable_bytes": "rocksdb.cur-size-all-mem-tables",
		"block_cache_bytes": "rocksdb.block-cache-usage",
	} {
		if v, ok := e.db.GetIntProperty(prop); ok {
			c[name] = float64(v)
		}
	}
	return c, nil
}

// rocksTickers reads Statistics::ToString: "name COUNT : n" for tickers, and
// "name P50 : .. COUNT : n SUM : s" for histograms (as name.count and name.sum).
func rocksTickers(s string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		name := f[0]
		if len(f) == 4 && f[1] == "COUNT" {
			if v, err := strconv.ParseFloat(f[3], 64); err == nil {
				out[name] = v
			}
			continue
		}
		for i := 1; i+2 < len(f); i++ {
			if (f[i] == "COUNT" || f[i] == "SUM") && f[i+1] == ":" {
				if v, err := strconv.ParseFloat(f[i+2], 64); err == nil {
					out[name+"."+strings.ToLower(f[i])] = v
				}
			}
		}
	}
	return out
}

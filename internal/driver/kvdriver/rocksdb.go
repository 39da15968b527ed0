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
	"unsafe"

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
	cf       *grocksdb.ColumnFamilyHandle // the default column family, for the batched MultiGet
	opts     *grocksdb.Options
	table    *grocksdb.BlockBasedTableOptions
	cache    unsafe.Pointer // the block cache, a rocksdb_cache_t (rocksdb_shim.cc)
	ro       *grocksdb.ReadOptions
	wo       *grocksdb.WriteOptions
	fast     rocksHandles // the C handles of the hot path (rocksdb_fast.go)
	stats    bool         // statistics on: counters from tickers, else from the stats dump
	settings map[string]any
}

var (
	_ MultiGetter      = (*rocksEngine)(nil)
	_ ReverseScanner   = (*rocksEngine)(nil)
	_ Putter           = (*rocksEngine)(nil)
	_ LimitScanner     = (*rocksEngine)(nil)
	_ Flusher          = (*rocksEngine)(nil)
	_ L0Compactor      = (*rocksEngine)(nil)
	_ CompactionWaiter = (*rocksEngine)(nil)
	_ Monitored        = (*rocksEngine)(nil)
)

// openRocksDB opens RocksDB with o. With o.LSM set (the key-value workload) every option is the
// one benchmark.sh passes to db_bench, statistics off as there; without it (a target opened by
// name) the few options dbperf always set (leveled with dynamic level bytes, bloom 10 bits, 8 KiB
// blocks, bytes_per_sync 1 MiB), and statistics on for exact counters.
func openRocksDB(path string, o Options) (Engine, error) {
	e := &rocksEngine{opts: grocksdb.NewDefaultOptions(), table: grocksdb.NewDefaultBlockBasedTableOptions()}
	opts := e.opts
	opts.SetCreateIfMissing(true)
	opts.SetInfoLogLevel(grocksdb.WarnInfoLogLevel)
	opts.SetKeepLogFileNum(2)
	s, err := e.setOptions(o)
	if err != nil {
		e.destroyOptions()
		return nil, err
	}
	e.stats = !o.LSM.DBBenchDefaults
	if e.stats {
		opts.EnableStatistics()
	}
	s["statistics"] = e.stats
	db, cfs, err := grocksdb.OpenDbColumnFamilies(opts, path, []string{"default"}, []*grocksdb.Options{opts})
	if err != nil {
		e.destroyOptions()
		return nil, err
	}
	e.db, e.cf = db, cfs[0]
	e.ro = grocksdb.NewDefaultReadOptions()
	e.wo = grocksdb.NewDefaultWriteOptions()
	e.wo.SetSync(o.Sync)
	e.wo.DisableWAL(o.DisableWAL)
	e.fast = newRocksHandles(e, o.LSM.DBBenchDefaults)
	e.settings = s
	return e, nil
}

// setOptions sets the options and table options of o and returns what it set, for run.json.
func (e *rocksEngine) setOptions(o Options) (map[string]any, error) {
	opts, table, l := e.opts, e.table, o.LSM
	cache := int64(8 << 20) // RocksDB's default block cache
	if o.CacheBytes > 0 {
		cache = o.CacheBytes
	}
	shards, shardBits := "RocksDB's default", -1
	if l.CacheShardBits > 0 {
		shards, shardBits = strconv.Itoa(1<<l.CacheShardBits), l.CacheShardBits
	}
	e.cache = setLRUCache(table, cache, shardBits)
	block, bloom := orInt(l.BlockSize, 8<<10), orInt(l.BloomBitsPerKey, 10)
	table.SetBlockSize(block)
	table.SetFilterPolicy(grocksdb.NewBloomFilterFull(float64(bloom)))
	table.SetPinL0FilterAndIndexBlocksInCache(true)
	memtable := orInt64(o.MemtableBytes, 64<<20)
	opts.SetWriteBufferSize(uint64(memtable))
	jobs := orInt(o.BackgroundJobs, 2)
	opts.SetMaxBackgroundJobs(jobs)
	compression := "snappy" // RocksDB's default
	if o.Compression != "" {
		c, ok := rocksCompression[o.Compression]
		if !ok {
			return nil, fmt.Errorf("rocksdb: unknown compression %q", o.Compression)
		}
		opts.SetCompression(c) // on every level, as db_bench's min_level_to_compress -1 and 0
		compression = o.Compression
	}
	opts.SetLevelCompactionDynamicLevelBytes(true)
	bytesPerSync := orInt64(l.BytesPerSync, 1<<20)
	if o.DirectIO {
		opts.SetUseDirectReads(true)
		opts.SetUseDirectIOForFlushAndCompaction(true)
		bytesPerSync = 0
	}
	bytesPerSync = max(bytesPerSync, 0)
	opts.SetBytesPerSync(uint64(bytesPerSync))
	s := map[string]any{
		"setup": o.Setup, "sync_writes": o.Sync, "disable_wal": o.DisableWAL, "direct_io": o.DirectIO,
		"block_cache_bytes": cache, "block_cache": "LRU", "block_cache_high_pri_pool_ratio": 0, "block_cache_shards": shards,
		"write_buffer_size": memtable, "max_background_jobs": jobs, "compression": compression,
		"block_size": block, "bloom_bits_per_key": bloom, "level_compaction_dynamic_level_bytes": true,
		"bytes_per_sync": bytesPerSync, "pin_l0_filter_and_index_blocks_in_cache": true,
		"cache_index_and_filter_blocks": false, "max_open_files": -1, "verify_checksums": true,
		"binding_call_ns": bindingCallNs(),
	}
	e.setShape(l, s)
	if o.NoCompactions {
		opts.SetDisableAutoCompactions(true)
		s["disable_auto_compactions"] = true
	}
	if o.DirectIO {
		s["prepopulate_block_cache"] = "not in RocksDB 7.8.3's C API (benchmark.sh sets 1 with O_DIRECT)"
	}
	opts.SetBlockBasedTableFactory(table)
	return s, nil
}

// setShape sets the LSM's shape from l, where given, and db_bench's own defaults.
func (e *rocksEngine) setShape(l LSM, s map[string]any) {
	opts := e.opts
	set := func(name string, v int64, fn func()) {
		if v > 0 {
			fn()
			s[name] = v
		}
	}
	set("max_bytes_for_level_base", l.L1Bytes, func() { opts.SetMaxBytesForLevelBase(uint64(l.L1Bytes)) })
	set("target_file_size_base", l.TargetFileBytes, func() { opts.SetTargetFileSizeBase(uint64(l.TargetFileBytes)) })
	set("max_write_buffer_number", int64(l.MaxMemtables), func() { opts.SetMaxWriteBufferNumber(l.MaxMemtables) })
	// 8 levels even without l: RocksDB refuses to open a database with more levels than
	// num_levels, and the key-value workload's databases have the reference's 8.
	levels := orInt(l.NumLevels, 8)
	opts.SetNumLevels(levels)
	s["num_levels"] = levels
	set("level0_file_num_compaction_trigger", int64(l.L0CompactionTrigger), func() { opts.SetLevel0FileNumCompactionTrigger(l.L0CompactionTrigger) })
	set("level0_slowdown_writes_trigger", int64(l.L0SlowdownTrigger), func() { opts.SetLevel0SlowdownWritesTrigger(l.L0SlowdownTrigger) })
	set("level0_stop_writes_trigger", int64(l.L0StopTrigger), func() { opts.SetLevel0StopWritesTrigger(l.L0StopTrigger) })
	if l.LevelMultiplier > 0 {
		opts.SetMaxBytesForLevelMultiplier(l.LevelMultiplier)
		s["max_bytes_for_level_multiplier"] = l.LevelMultiplier
	}
	s["memtablerep"] = "skip_list"
	if l.VectorMemtable {
		opts.SetMemtableVectorRep()
		opts.SetAllowConcurrentMemtableWrites(false)
		s["memtablerep"], s["allow_concurrent_memtable_write"] = "vector", false
	}
	if l.DBBenchDefaults {
		opts.SetEnablePipelinedWrite(true)
		opts.SetTableCacheNumshardbits(4)
		opts.SetMaxSubcompactions(1)
		e.table.SetChecksum(4) // kXXH3
		e.table.SetFormatVersion(5)
		setDBBenchDefaults(opts, e.table)
		s["delayed_write_rate"], s["hard_pending_compaction_bytes_limit"] = 8<<20, int64(128)<<30
		s["index_shortening"], s["pin_top_level_index_and_filter"] = "kShortenSeparatorsAndSuccessor", false
		s["enable_pipelined_write"], s["table_cache_numshardbits"], s["subcompactions"] = true, 4, 1
		s["checksum"], s["format_version"], s["perf_level"] = "kXXH3", 5, "disabled (db_bench --perf_level=1)"
	}
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func orInt64(v, def int64) int64 {
	if v != 0 {
		return v
	}
	return def
}

func (e *rocksEngine) destroyOptions() {
	e.opts.Destroy()
	e.table.Destroy()
	if e.cache != nil {
		destroyCache(e.cache)
	}
}

// Write applies fn's changes in a write batch; a single put takes Put (rocksdb_fast.go).
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
	e.fast.close()
	e.cf.Destroy()
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

package kvdriver

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/dbperf/dbperf/internal/driver"
	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

func init() {
	driver.Register(driver.Kind{
		Name: "badger", Usage: "badger[:DIR]",
		Summary: "Badger v4 LSM with a value log (Dgraph), embedded; a temporary directory when DIR is omitted",
		Open: func(_ context.Context, s driver.Spec) (driver.Target, error) {
			return open(s, "badger", func(path string) (Engine, error) { return openBadger(path, DefaultOptions()) })
		},
	})
	RegisterTuned("badger", openBadger)
}

// badgerValueThreshold is set explicitly: values of at least this many bytes go to the value log
// (Badger's defining key-value separation); Badger v4's default (1 MiB) would keep every value of
// a benchmark in the LSM.
const badgerValueThreshold = 64

// badgerCompression maps a compression name to Badger's: Badger has no LZ4, so lz4 becomes
// Snappy, its fastest.
var badgerCompression = map[string]options.CompressionType{
	"none": options.None, "snappy": options.Snappy, "lz4": options.Snappy, "zstd": options.ZSTD,
}

// badgerEngine is Badger v4 with explicit options; transactions do not detect conflicts (each
// write is a blind put, as in db_bench).
type badgerEngine struct {
	db   *badger.DB
	opts badger.Options
	o    Options
}

var (
	_ ReverseScanner = (*badgerEngine)(nil)
	_ L0Compactor    = (*badgerEngine)(nil)
	_ Monitored      = (*badgerEngine)(nil)
	_ Putter         = (*badgerEngine)(nil)
)

func openBadger(path string, o Options) (Engine, error) {
	opts := badger.DefaultOptions(path).WithLogger(nil).WithSyncWrites(o.Sync).
		WithDetectConflicts(false).WithValueThreshold(badgerValueThreshold).WithMetricsEnabled(true)
	if o.CacheBytes > 0 {
		opts = opts.WithBlockCacheSize(o.CacheBytes)
	}
	if o.MemtableBytes > 0 {
		opts = opts.WithMemTableSize(o.MemtableBytes)
	}
	if o.BackgroundJobs > 0 {
		opts = opts.WithNumCompactors(max(2, o.BackgroundJobs)) // Badger needs at least 2
	}
	if o.Compression != "" {
		c, ok := badgerCompression[o.Compression]
		if !ok {
			return nil, fmt.Errorf("badger: unknown compression %q", o.Compression)
		}
		opts = opts.WithCompression(c)
	}
	db, err := badger.Open(opts)
	if err != nil {
		return nil, err
	}
	return &badgerEngine{db: db, opts: opts, o: o}, nil
}

func (b *badgerEngine) Write(fn func(w Writer) error) error {
	return b.db.Update(func(txn *badger.Txn) error { return fn(badgerWriter{txn}) })
}

type badgerWriter struct{ txn *badger.Txn }

// Set copies key and value: Badger keeps both until the transaction commits.
func (w badgerWriter) Set(k, v []byte) error {
	return w.txn.Set(append([]byte(nil), k...), append([]byte(nil), v...))
}
func (w badgerWriter) Delete(k []byte) error { return w.txn.Delete(append([]byte(nil), k...)) }

// Put writes one key in its own transaction, as a Write of one Set does, without the copies of
// key and value or the Writer: Badger references them until the transaction commits, and
// Update returns after the commit (the writes are in the memtable and the value log).
func (b *badgerEngine) Put(k, v []byte) error {
	return b.db.Update(func(txn *badger.Txn) error { return txn.Set(k, v) })
}

func (b *badgerEngine) Get(key []byte, fn func([]byte)) (bool, error) {
	found := false
	err := b.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return item.Value(func(v []byte) error { fn(v); return nil })
	})
	return found, err
}

func (b *badgerEngine) Scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	return b.scan(false, lower, func(k []byte) bool { return upper == nil || string(k) < string(upper) }, fn)
}

// ScanReverse seeks with a reverse iterator: Badger's Seek then lands on the largest key <= start.
func (b *badgerEngine) ScanReverse(start []byte, fn func(k, v []byte) bool) error {
	return b.scan(true, start, func([]byte) bool { return true }, fn)
}

func (b *badgerEngine) scan(reverse bool, seek []byte, in func(k []byte) bool, fn func(k, v []byte) bool) error {
	return b.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Reverse: reverse})
		defer it.Close()
		for it.Seek(seek); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			if !in(k) {
				return nil
			}
			more := true
			if err := item.Value(func(v []byte) error { more = fn(k, v); return nil }); err != nil {
				return err
			}
			if !more {
				return nil
			}
		}
		return nil
	})
}

func (b *badgerEngine) DropRange(lower, upper []byte) error {
	var keys [][]byte
	err := b.Scan(lower, upper, func(k, _ []byte) bool { keys = append(keys, append([]byte(nil), k...)); return true })
	if err != nil {
		return err
	}
	wb := b.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// CompactL0 runs Flatten: Badger has no call that compacts L0 alone; Flatten compacts every level
// into one, more than db_bench's compact0.
func (b *badgerEngine) CompactL0(context.Context) (string, error) {
	if err := b.db.Flatten(max(2, b.opts.NumCompactors)); err != nil {
		return "", err
	}
	return "DB.Flatten: every level compacted into one (Badger cannot compact L0 alone)", nil
}

func (b *badgerEngine) Name() string    { return "Badger" }
func (b *badgerEngine) Version() string { return moduleVersion("github.com/dgraph-io/badger/v4") }

func (b *badgerEngine) Settings() map[string]any {
	compression := map[options.CompressionType]string{options.None: "none", options.Snappy: "snappy", options.ZSTD: "zstd"}
	return map[string]any{
		"setup":             b.o.Setup,
		"sync_writes":       b.opts.SyncWrites,
		"disable_wal":       "not supported by Badger (its memtable log and value log are always written)",
		"direct_io":         "not supported by Badger",
		"block_cache_bytes": b.opts.BlockCacheSize,
		"index_cache_bytes": b.opts.IndexCacheSize,
		"memtable_bytes":    b.opts.MemTableSize,
		"value_threshold":   b.opts.ValueThreshold,
		"compression":       compression[b.opts.Compression],
		"num_compactors":    b.opts.NumCompactors,
		"level0_tables":     b.opts.NumLevelZeroTables,
		"level0_stall":      b.opts.NumLevelZeroTablesStall,
		"detect_conflicts":  b.opts.DetectConflicts,
	}
}

func (b *badgerEngine) Close() error { return b.db.Close() }

// badgerFiles sums the disk space of Badger's files by kind: tables (.sst), value log (.vlog) and
// memtable logs (.mem). Badger's own Size() is refreshed only once a minute, and its value log
// and memtable files are preallocated sparse files, so their length says nothing: the blocks
// allocated are counted.
func (b *badgerEngine) badgerFiles() (sst, vlog, mem int64, err error) {
	entries, err := os.ReadDir(b.opts.Dir)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed by a compaction meanwhile
		}
		size := fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			size = min(size, st.Blocks*512)
		}
		switch filepath.Ext(e.Name()) {
		case ".sst":
			sst += size
		case ".vlog":
			vlog += size
		case ".mem":
			mem += size
		}
	}
	return sst, vlog, mem, nil
}

func (b *badgerEngine) DiskSize() (int64, error) {
	sst, vlog, mem, err := b.badgerFiles()
	return sst + vlog + mem, err
}

// Counters are Badger's files by kind and its metrics. Badger keeps its metrics in process-wide
// expvars: running totals (flush_bytes = bytes written to L0, compaction_write_bytes,
// vlog_write_bytes, user_write_bytes, gets, puts) count every Badger opened by this process, so
// only their differences over a step mean anything.
func (b *badgerEngine) Counters() (map[string]float64, error) {
	sst, vlog, mem, err := b.badgerFiles()
	if err != nil {
		return nil, err
	}
	c := map[string]float64{
		CounterTablesBytes:   float64(sst),
		CounterBlobBytes:     float64(vlog),
		"memtable_log_bytes": float64(mem),
		CounterFlushBytes:    expvarInt("badger_write_bytes_l0"),
		"vlog_write_bytes":   expvarInt("badger_write_bytes_vlog"),
		"user_write_bytes":   expvarInt("badger_write_bytes_user"),
		"gets":               expvarInt("badger_get_num_user"),
		"puts":               expvarInt("badger_put_num_user"),
		"lsm_read_bytes":     expvarInt("badger_read_bytes_lsm"),
		"vlog_read_bytes":    expvarInt("badger_read_bytes_vlog"),
	}
	var compacted float64
	if m, ok := expvar.Get("badger_write_bytes_compaction").(*expvar.Map); ok {
		m.Do(func(kv expvar.KeyValue) {
			if i, ok := kv.Value.(*expvar.Int); ok {
				compacted += float64(i.Value())
			}
		})
	}
	c[CounterCompactionBytes] = compacted
	for _, l := range b.db.Levels() {
		if l.Level == 0 {
			c["l0_files"] = float64(l.NumTables)
		}
		c["tables"] += float64(l.NumTables)
	}
	if m := b.db.BlockCacheMetrics(); m != nil {
		c["block_cache_hits"], c["block_cache_misses"] = float64(m.Hits()), float64(m.Misses())
	}
	return c, nil
}

func expvarInt(name string) float64 {
	if v, ok := expvar.Get(name).(*expvar.Int); ok {
		return float64(v.Value())
	}
	return 0
}

package kvdriver

import (
	"context"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable/block"
)

func init() { RegisterTuned("pebble", openPebbleTuned) }

// pebbleTuned is Pebble opened with explicit Options: the engine of pebble.go with its write
// durability chosen, and the abilities the key-value steps look for.
type pebbleTuned struct {
	*pebbleEngine
	write       *pebble.WriteOptions
	o           Options
	compression string
	shape       map[string]any // what pebbleShape set
}

var (
	_ Putter           = (*pebbleTuned)(nil)
	_ ReverseScanner   = (*pebbleTuned)(nil)
	_ Flusher          = (*pebbleTuned)(nil)
	_ L0Compactor      = (*pebbleTuned)(nil)
	_ CompactionWaiter = (*pebbleTuned)(nil)
	_ Monitored        = (*pebbleTuned)(nil)
)

// pebbleCompression maps a compression name to Pebble's profiles: Pebble has no LZ4, so lz4
// (the reference's) becomes Pebble's "Fastest" profile, its own choice of fast compressor.
var pebbleCompression = map[string]*block.CompressionProfile{
	"none":   block.NoCompression,
	"snappy": block.SnappyCompression,
	"lz4":    block.FastestCompression,
	"zstd":   block.ZstdCompression,
}

func openPebbleTuned(path string, o Options) (Engine, error) {
	stalls := &writeStalls{}
	opts := &pebble.Options{Logger: quietLogger{}, EventListener: stalls.listener(), DisableWAL: o.DisableWAL}
	if o.CacheBytes > 0 {
		opts.CacheSize = o.CacheBytes
	}
	if o.MemtableBytes > 0 {
		opts.MemTableSize = uint64(o.MemtableBytes)
	}
	if jobs := o.BackgroundJobs; jobs > 0 {
		opts.CompactionConcurrencyRange = func() (int, int) { return 1, jobs }
	}
	shape := pebbleShape(opts, o.LSM)
	opts.DisableAutomaticCompactions = o.NoCompactions
	compression := "default"
	if o.Compression != "" {
		p, ok := pebbleCompression[o.Compression]
		if !ok {
			return nil, fmt.Errorf("pebble: unknown compression %q", o.Compression)
		}
		for i := range opts.Levels {
			opts.Levels[i].Compression = func() *block.CompressionProfile { return p }
		}
		compression = p.Name
	}
	opts.EnsureDefaults()
	db, err := pebble.Open(path, opts)
	if err != nil {
		return nil, err
	}
	w := pebble.NoSync
	if o.Sync {
		w = pebble.Sync
	}
	return &pebbleTuned{pebbleEngine: &pebbleEngine{db: db, opts: opts, stalls: stalls}, write: w, o: o,
		compression: compression, shape: shape}, nil
}

// pebbleShape sets what Pebble has of the reference's LSM options (before EnsureDefaults) and
// returns what it made of each, for run.json.
func pebbleShape(opts *pebble.Options, l LSM) map[string]any {
	s := map[string]any{}
	if l.BlockSize > 0 {
		for i := range opts.Levels {
			opts.Levels[i].BlockSize = l.BlockSize
		}
	}
	if l.BloomBitsPerKey > 0 {
		for i := range opts.Levels {
			opts.Levels[i].FilterPolicy = bloom.FilterPolicy(l.BloomBitsPerKey)
		}
		s["bloom_bits_per_key"] = l.BloomBitsPerKey
	}
	if l.L1Bytes > 0 {
		opts.LBaseMaxBytes = l.L1Bytes
	}
	if l.LevelMultiplier > 0 {
		opts.Experimental.LevelMultiplier = int(l.LevelMultiplier)
		s["level_multiplier"] = int(l.LevelMultiplier)
	}
	if l.TargetFileBytes > 0 { // RocksDB's target_file_size_multiplier is 1: every level alike
		for i := range opts.TargetFileSizes {
			opts.TargetFileSizes[i] = l.TargetFileBytes
		}
		s["target_file_size"] = l.TargetFileBytes
	}
	if l.MaxMemtables > 0 {
		opts.MemTableStopWritesThreshold = l.MaxMemtables
		s["memtable_stop_writes_threshold"] = l.MaxMemtables
	}
	if l.L0CompactionTrigger > 0 {
		opts.L0CompactionThreshold = l.L0CompactionTrigger
	}
	if l.L0StopTrigger > 0 {
		opts.L0StopWritesThreshold = l.L0StopTrigger
	}
	if l.BytesPerSync != 0 {
		opts.BytesPerSync = int(max(0, l.BytesPerSync))
		s["bytes_per_sync"] = opts.BytesPerSync
	}
	if l.NumLevels > 0 {
		s["num_levels"] = "7 (fixed in Pebble)"
	}
	if l.L0SlowdownTrigger > 0 {
		s["l0_slowdown_writes_trigger"] = "none in Pebble (no delayed writes; its stop threshold is set)"
	}
	if l.CacheShardBits > 0 {
		s["block_cache_shards"] = "Pebble's own (4 x GOMAXPROCS)"
	}
	if l.VectorMemtable {
		s["memtablerep"] = "skip list (Pebble has no vector memtable)"
	}
	return s
}

// Write commits with the chosen durability: synced, or written to the WAL (or not, with
// DisableWAL) without waiting for the disk.
func (p *pebbleTuned) Write(fn func(w Writer) error) error {
	b := p.db.NewBatch()
	defer b.Close()
	if err := fn(pebbleWriter{b}); err != nil {
		return err
	}
	return b.Commit(p.write)
}

// Put is DB.Set: a pooled batch, no closure.
func (p *pebbleTuned) Put(key, value []byte) error { return p.db.Set(key, value, p.write) }

func (p *pebbleTuned) ScanReverse(start []byte, fn func(k, v []byte) bool) error {
	it, err := p.db.NewIter(nil)
	if err != nil {
		return err
	}
	for valid := it.SeekLT(append(start[:len(start):len(start)], 0)); valid; valid = it.Prev() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		if !fn(it.Key(), v) {
			break
		}
	}
	return it.Close()
}

func (p *pebbleTuned) Flush(context.Context) (string, error) {
	if err := p.db.Flush(); err != nil {
		return "", err
	}
	return "flushed the memtables (DB.Flush)", nil
}

// CompactL0 compacts the key range of L0's files. Pebble has no call that compacts only L0's
// files (RocksDB's CompactFiles): DB.Compact rewrites that range on every level below too.
func (p *pebbleTuned) CompactL0(ctx context.Context) (string, error) {
	files := p.db.Metrics().Levels[0].TablesCount
	if files == 0 {
		return "L0 is empty: nothing to compact", nil
	}
	it, err := p.db.NewIter(nil)
	if err != nil {
		return "", err
	}
	var lo, hi []byte
	if it.First() {
		lo = append([]byte(nil), it.Key()...)
	}
	if it.Last() {
		hi = append(append([]byte(nil), it.Key()...), 0)
	}
	if err := it.Close(); err != nil || lo == nil {
		return "", err
	}
	if err := p.db.Compact(ctx, lo, hi, true); err != nil {
		return "", err
	}
	return fmt.Sprintf("DB.Compact over the key range: %d L0 files, with the levels below (Pebble cannot compact L0 alone)", files), nil
}

// WaitForCompaction polls Pebble's metrics until no flush or compaction has run or started for a
// second. Pebble has no WaitForCompact; its estimated debt can stay above zero while its picker
// sees nothing worth compacting, so the debt is reported, not waited for.
func (p *pebbleTuned) WaitForCompaction(ctx context.Context) (string, error) {
	start := time.Now()
	const quiet = time.Second
	lastCount, lastChange := int64(-1), time.Now()
	for {
		m := p.db.Metrics()
		busy := m.Compact.NumInProgress > 0 || m.Flush.NumInProgress > 0
		if count := m.Compact.Count + m.Flush.Count; busy || count != lastCount {
			lastCount, lastChange = count, time.Now()
		} else if time.Since(lastChange) >= quiet {
			return fmt.Sprintf("no flush or compaction for %v, after %.1fs; L0 %d files, debt %d bytes",
				quiet, time.Since(start).Seconds(), m.Levels[0].TablesCount, m.Compact.EstimatedDebt), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (p *pebbleTuned) Settings() map[string]any {
	s := p.pebbleEngine.Settings()
	s["sync_writes"] = p.o.Sync
	s["disable_wal"] = p.o.DisableWAL
	s["compression"] = p.compression
	s["direct_io"] = "not supported by Pebble"
	s["setup"] = p.o.Setup
	s["block_size"] = p.opts.Levels[0].BlockSize
	for k, v := range p.shape {
		s[k] = v
	}
	return s
}

// Close flushes first when the WAL is off: Pebble would otherwise drop the memtable's writes,
// which no log holds (RocksDB flushes them at shutdown by default).
func (p *pebbleTuned) Close() error {
	if p.o.DisableWAL {
		if err := p.db.Flush(); err != nil {
			p.db.Close()
			return fmt.Errorf("flushing the memtable before closing (the WAL is off): %w", err)
		}
	}
	return p.db.Close()
}

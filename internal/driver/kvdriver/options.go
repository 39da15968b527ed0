package kvdriver

import (
	"context"
	"fmt"
)

// Options are the engine options a workload sets explicitly, so that every engine of a comparison
// runs with stated settings rather than each library's defaults. A zero size keeps the engine's
// own default; each engine records what it used in Settings.
type Options struct {
	CacheBytes     int64  // block cache (Pebble, RocksDB, Badger), page cache (SQLite); bbolt has none
	MemtableBytes  int64  // write buffer of the LSMs
	Compression    string // none, snappy, lz4 or zstd; "" keeps the engine's default
	BackgroundJobs int    // flush and compaction threads of the LSMs
	Sync           bool   // fsync the log at every write (db_bench --sync)
	DisableWAL     bool   // write without a log where the engine can (db_bench --disable_wal)
	DirectIO       bool   // O_DIRECT reads and background writes where the engine supports it
	Setup          string // the named setup these options come from, for run.json
	LSM            LSM    // the LSM's shape and table format; zero fields keep the engine's defaults
	// NoCompactions opens the engine with automatic compactions off (RocksDB, Pebble): a check
	// between steps then leaves the LSM as the step left it, as db_bench's exit does.
	NoCompactions bool
}

// LSM are the options benchmark.sh passes to db_bench that shape an LSM (docs/kv.md lists each
// with the reference's line): RocksDB sets them all, Pebble what it has. Zero keeps the engine's
// default, so the Insert Benchmark and LinkBench, which set none, are unchanged.
type LSM struct {
	BlockSize           int     // bytes per data block
	BloomBitsPerKey     int     // full bloom filter
	CacheShardBits      int     // block cache shards = 2^bits; 0 keeps the default
	L1Bytes             int64   // max_bytes_for_level_base
	LevelMultiplier     float64 // max_bytes_for_level_multiplier
	TargetFileBytes     int64   // target_file_size_base
	MaxMemtables        int     // max_write_buffer_number
	NumLevels           int     // num_levels
	L0CompactionTrigger int     // level0_file_num_compaction_trigger
	L0SlowdownTrigger   int     // level0_slowdown_writes_trigger
	L0StopTrigger       int     // level0_stop_writes_trigger
	BytesPerSync        int64   // bytes_per_sync; -1 for 0 (O_DIRECT)
	VectorMemtable      bool    // fillseq: vector memtable, no concurrent memtable writes
	// DBBenchDefaults are db_bench's own defaults where they differ from the library's and
	// benchmark.sh passes nothing: pipelined writes, perf counters off, 16 table-cache shards.
	DBBenchDefaults bool
}

// DefaultOptions are what a target opened by name uses: the engine's defaults, every write synced
// (Engine.Write promises durable writes).
func DefaultOptions() Options { return Options{Sync: true} }

// Compressions are the values Options.Compression accepts.
var Compressions = []string{"none", "snappy", "lz4", "zstd"}

// Tuned opens an engine at path with explicit options.
type Tuned func(path string, o Options) (Engine, error)

// tuned are the engines that can be reopened with Options, by kind.
var tuned = map[string]Tuned{}

// RegisterTuned makes a kind reopenable with Options; each engine file calls it from init.
func RegisterTuned(kind string, open Tuned) { tuned[kind] = open }

// Reopen closes the engine and opens it again at the same path with o: its caches start empty,
// and its statistics count from zero, as when db_bench runs each step as a new process.
func (s *DB) Reopen(o Options) error {
	open, ok := tuned[s.kind]
	if !ok {
		return fmt.Errorf("%s cannot be reopened with explicit options", s.kind)
	}
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return errClosed
	}
	if err := s.Engine.Close(); err != nil {
		return fmt.Errorf("closing %s before reopening it: %w", s.kind, err)
	}
	eng, err := open(s.path, o)
	if err != nil {
		// Nothing is open now: Close must not close the engine a second time.
		s.Engine = closedEngine{s.Engine}
		return fmt.Errorf("cannot reopen %s at %s: %w", s.kind, s.path, err)
	}
	s.Engine = eng
	return nil
}

// closedEngine stands for an engine that failed to reopen: it answers with an error.
type closedEngine struct{ Engine }

func (closedEngine) Write(func(Writer) error) error                    { return errClosed }
func (closedEngine) Get([]byte, func([]byte)) (bool, error)            { return false, errClosed }
func (closedEngine) Scan([]byte, []byte, func(k, v []byte) bool) error { return errClosed }
func (closedEngine) DropRange([]byte, []byte) error                    { return errClosed }
func (closedEngine) Close() error                                      { return nil }

// The optional abilities a key-value workload looks for with a type assertion. An engine that
// lacks one says so, and the step that needs it is reported as not applicable rather than run as
// something else.

// MultiGetter reads a batch of keys in one call of the engine's own batched read (RocksDB's
// MultiGet, one SQL statement on SQLite). fn is called for each key found, with its index in
// keys; the value is valid only during the call.
type MultiGetter interface {
	MultiGet(keys [][]byte, fn func(i int, value []byte)) (found int, err error)
}

// Putter writes one key in one call, without a batch or a closure per put: RocksDB's Put is one
// cgo call where a batch is three (create, put, write) and a destroy.
type Putter interface {
	Put(key, value []byte) error
}

// LimitScanner reads at most n entries, so an engine that fetches entries ahead (RocksDB copies
// them out in one cgo call) fetches no more than the caller visits: forward from lower (below
// upper when it is not nil), or backward from start down.
type LimitScanner interface {
	ScanLimit(lower, upper []byte, n int, fn func(key, value []byte) bool) error
	ScanReverseLimit(start []byte, n int, fn func(key, value []byte) bool) error
}

// ReverseScanner calls fn for the keys at or below start, in descending order, until fn returns
// false (db_bench's Seek then Prev).
type ReverseScanner interface {
	ScanReverse(start []byte, fn func(key, value []byte) bool) error
}

// Flusher writes the memtable (or the write-ahead log) into the engine's persistent structure and
// returns what it did.
type Flusher interface {
	Flush(ctx context.Context) (string, error)
}

// L0Compactor compacts the files of L0 into the next level, as db_bench's compact0 does, or the
// nearest the engine offers; it returns what it did.
type L0Compactor interface {
	CompactL0(ctx context.Context) (string, error)
}

// CompactionWaiter waits until the engine has no compaction running or owed.
type CompactionWaiter interface {
	WaitForCompaction(ctx context.Context) (string, error)
}

// The counters (Monitored.Counters) the key-value workload's summary columns read. Every engine
// that keeps one of these reports it under this name; a missing name means the engine does not
// keep it. Running totals count from when the engine was opened.
const (
	CounterFlushBytes        = "flush_bytes"            // bytes written by memtable flushes
	CounterCompactionBytes   = "compaction_write_bytes" // bytes written by compactions
	CounterCompactionSeconds = "compaction_seconds"     // time spent in compactions
	CounterTablesBytes       = "tables_bytes"           // gauge: size of the LSM's tables (lsm_sz)
	CounterBlobBytes         = "blob_bytes"             // gauge: size of the value log or blob files
	CounterStallSeconds      = "write_stall_seconds"    // time writes were held back
	CounterStalls            = "write_stalls"           // times writes were held back
)

// OpenTuned opens a kind's engine at path with o as a DB the caller closes; the files stay. A
// key-value workload uses it for an engine whose target kind belongs to another driver (SQLite).
func OpenTuned(kind, path string, o Options) (*DB, error) {
	open, ok := tuned[kind]
	if !ok {
		return nil, fmt.Errorf("%s cannot be opened as a key-value engine", kind)
	}
	eng, err := open(path, o)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s at %s: %w", kind, path, err)
	}
	return &DB{Engine: eng, kind: kind, display: kind + ":" + path, path: path}, nil
}

// Package kv is the db_bench-style key-value benchmark: RocksDB's benchmark.sh steps (fillseq,
// revrange, readrandom, fwdrange, multireadrandom, overwritesome, flush_mt_l0, the three
// whilewriting steps, overwriteandwait) with the reference's keys, values and semantics, on any
// kvdriver engine (Pebble, RocksDB, Badger, bbolt) and on SQLite as a key-value table. Each step
// reopens the engine, as each db_bench step is a new process. See docs/kv.md.
package kv

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/workload"
)

// The steps, in the reference's order (benchmark_compare.sh:259-314).
const (
	FillSeq               = "fillseq"
	RevRange              = "revrange"
	ReadRandom            = "readrandom"
	FwdRange              = "fwdrange"
	MultiReadRandom       = "multireadrandom"
	OverwriteSome         = "overwritesome"
	FlushMTL0             = "flush_mt_l0"
	RevRangeWhileWriting  = "revrangewhilewriting"
	FwdRangeWhileWriting  = "fwdrangewhilewriting"
	ReadWhileWriting      = "readwhilewriting"
	OverwriteAndWait      = "overwriteandwait"
	defaultDistribution   = "uniform"
	zipfianDistribution   = "zipfian"
	revRangeKeys          = 100 // revrange seeks within the first 100 keys (benchmark_compare.sh:264-267)
	scanLength            = 10  // entries a range step visits per seek (benchmark.sh:172)
	multiGetBatch         = 10  // keys per multireadrandom batch (db_bench --batch_size)
	defaultMemtableBytes  = 32 << 20
	defaultBackgroundJobs = 8
)

// AllSteps are every step in the reference's order.
var AllSteps = []string{FillSeq, RevRange, ReadRandom, FwdRange, MultiReadRandom, OverwriteSome, FlushMTL0,
	RevRangeWhileWriting, FwdRangeWhileWriting, ReadWhileWriting, OverwriteAndWait}

// Setups are the named engine configurations of the published runs (mytools bench/rx2/x3.sh).
var Setups = []string{"byrx", "byos", "iodir"}

// Config is the benchmark's configuration. Defaults are small so a run takes seconds; the
// reference uses --keys 1000000 (more in published runs), --threads 16, --step-seconds 65.
type Config struct {
	Keys             int64   // keys loaded by fillseq: 0..Keys-1
	KeySize          int     // bytes: 8-byte big-endian key number padded with '0'
	ValueSize        int     // bytes of each value
	CompressionRatio float64 // the fraction of each value that is random
	Threads          int     // clients of the multi-threaded steps
	StepSeconds      float64 // length of the time-limited steps
	DrainSeconds     float64 // length of revrange, the reference's compaction-drain step
	Distribution     string  // uniform or zipfian: how random steps pick keys
	Sync             bool    // fsync every write
	DisableWAL       bool    // write without a log on every write step (fillseq always does)
	WriterMBps       float64 // the whilewriting writer's rate, MiB/s of key+value
	// WriterBurst releases the writer's puts a period at a time, as db_bench's rate limiter
	// refills its tokens every 100 ms; 0 spreads them evenly.
	WriterBurst time.Duration
	Setup       string // byrx, byos or iodir
	CacheBytes  int64  // overrides the setup's cache size when > 0
	Steps       []string
	Seed        uint64
	Arrival     workload.Arrival
	Retries     int
}

// DefaultConfig is the small default run: every step in a few seconds each.
func DefaultConfig() Config {
	return Config{Keys: 100000, KeySize: 20, ValueSize: 400, CompressionRatio: 0.5, Threads: 4,
		StepSeconds: 5, DrainSeconds: 5, Distribution: defaultDistribution, WriterMBps: 2, WriterBurst: 100 * time.Millisecond,
		Setup: "byrx", Steps: AllSteps}
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Keys < 1 {
		bad("--keys must be at least 1 (got %d)", c.Keys)
	}
	if c.KeySize < 8 || c.KeySize > 1<<16 {
		bad("--key-size must be from 8 (the key number) to 65536 bytes (got %d)", c.KeySize)
	}
	if c.ValueSize < 1 || c.ValueSize > 1<<20 {
		bad("--value-size must be from 1 to 1048576 bytes (got %d)", c.ValueSize)
	}
	if !(c.CompressionRatio > 0 && c.CompressionRatio <= 1) {
		bad("--compression-ratio must be in (0, 1] (got %g)", c.CompressionRatio)
	}
	if c.Threads < 1 || c.Threads > 4096 {
		bad("--threads must be from 1 to 4096 (got %d)", c.Threads)
	}
	if !(c.StepSeconds > 0) || !(c.DrainSeconds > 0) {
		bad("--step-seconds and --drain-seconds must be positive (got %g and %g)", c.StepSeconds, c.DrainSeconds)
	}
	if c.Distribution != defaultDistribution && c.Distribution != zipfianDistribution {
		bad("--distribution must be uniform or zipfian (got %q)", c.Distribution)
	}
	if c.WriterBurst < 0 || c.WriterBurst > time.Second {
		bad("--writer-burst must be between 0 (puts spread evenly) and 1s (got %v)", c.WriterBurst)
	}
	if !(c.WriterMBps > 0) {
		bad("--writer-mbps must be positive (got %g)", c.WriterMBps)
	}
	if !slices.Contains(Setups, c.Setup) {
		bad("--setup must be one of %s (got %q)", strings.Join(Setups, ", "), c.Setup)
	}
	if c.CacheBytes < 0 {
		bad("--cache-mb must not be negative")
	}
	if len(c.Steps) == 0 {
		bad("--steps is empty: give some of %s", strings.Join(AllSteps, ","))
	}
	for _, s := range c.Steps {
		if !slices.Contains(AllSteps, s) {
			bad("unknown step %q: the steps are %s", s, strings.Join(AllSteps, ","))
		}
	}
	if c.Retries < 0 {
		bad("--retries must not be negative")
	}
	return errors.Join(errs...)
}

// dataBytes is the size of the loaded keys and values, uncompressed.
func (c Config) dataBytes() int64 { return c.Keys * int64(c.KeySize+c.ValueSize) }

// EngineOptions are the engine options of a step under the configured setup:
//   - byrx: the cache holds all the data (twice its raw size, at least 64 MiB), no compression;
//   - byos: the cache holds 1/16 of the raw data (at least 1 MiB), no compression, so reads go to
//     the OS page cache, as the reference's 1 GiB cache against tens of GiB of data;
//   - iodir: as byos with lz4 and O_DIRECT where the engine has it.
//
// Every setup has the LSM shape benchmark_compare.sh gives db_bench (referenceLSM). fillseq
// always writes without the WAL into a vector memtable (the reference's fillseq_disable_wal).
func (c Config) EngineOptions(step string) kvdriver.Options {
	o := kvdriver.Options{MemtableBytes: defaultMemtableBytes, BackgroundJobs: defaultBackgroundJobs,
		Sync: c.Sync, DisableWAL: c.DisableWAL || step == FillSeq, Setup: c.Setup, Compression: "none",
		LSM: referenceLSM}
	o.LSM.VectorMemtable = step == FillSeq
	switch c.Setup {
	case "byrx":
		o.CacheBytes = max(64<<20, 2*c.dataBytes())
	case "byos", "iodir":
		o.CacheBytes = max(1<<20, c.dataBytes()/16)
	}
	if c.Setup == "iodir" {
		o.Compression, o.DirectIO = "lz4", true
		o.LSM.BytesPerSync = -1 // benchmark.sh:222-226: 0 under O_DIRECT
	}
	if c.CacheBytes > 0 {
		o.CacheBytes = c.CacheBytes
	}
	return o
}

// referenceLSM is what benchmark.sh passes to db_bench for leveled compaction with
// benchmark_compare.sh's defaults (docs/kv.md has each option's line).
var referenceLSM = kvdriver.LSM{BlockSize: 8 << 10, BloomBitsPerKey: 10, CacheShardBits: 6,
	L1Bytes: 128 << 20, LevelMultiplier: 8, TargetFileBytes: 32 << 20, MaxMemtables: 8, NumLevels: 8,
	L0CompactionTrigger: 4, L0SlowdownTrigger: 20, L0StopTrigger: 30, BytesPerSync: 1 << 20,
	DBBenchDefaults: true}

func (c Config) stepDuration() time.Duration {
	return time.Duration(c.StepSeconds * float64(time.Second))
}
func (c Config) drainDuration() time.Duration {
	return time.Duration(c.DrainSeconds * float64(time.Second))
}

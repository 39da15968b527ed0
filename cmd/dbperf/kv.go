package main

import (
	"fmt"
	"io"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/kv"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func runKVCmd() *cobra.Command {
	cfg := kv.DefaultConfig()
	var (
		rf      = runFlags{name: kv.Name, prefix: "kv"}
		steps   = cfg.Steps
		cacheMB int64
	)
	c := &cobra.Command{
		Use:   "kv",
		Short: "db_bench-style key-value steps: fillseq, revrange, readrandom, ... overwriteandwait",
		Long: `RocksDB's benchmark.sh steps, in its order and with its semantics, on Pebble, RocksDB, Badger,
bbolt and SQLite (a key-value table): fillseq (1 thread, key order, WAL off), revrange (the
reference's compaction-drain step: 1 thread, seeks within the first 100 keys), readrandom,
fwdrange, multireadrandom (batches of 10), overwritesome (keys/10 random puts), flush_mt_l0,
revrangewhilewriting, fwdrangewhilewriting, readwhilewriting (one extra writer at --writer-mbps)
and overwriteandwait. Each step reopens the engine. See docs/kv.md.

Defaults are small so a run takes about a minute; the reference uses --keys 1000000
--threads 16 --step-seconds 65 --drain-seconds 300. RocksDB needs a binary built with
-tags rocksdb (README).`,
		Example: `  dbperf run kv
  dbperf run kv --target rocksdb:/data/r --keys 10000000 --value-size 400 --threads 8 --step-seconds 300
  dbperf run kv --target pebble --target rocksdb --target badger --target bbolt --target sqlite --out runs/kv
  dbperf run kv --steps fillseq,readwhilewriting --arrival poisson --rate 200000`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg.Steps = steps
			cfg.CacheBytes = cacheMB << 20
			if err := rf.settle(c, &cfg.Arrival, &cfg.Seed, cfg.Validate); err != nil {
				return err
			}
			if err := output.checkStepOps(cfg.Steps, kv.StepOps); err != nil {
				return err
			}
			needsData := ""
			if cfg.Steps[0] != kv.FillSeq {
				needsData = cfg.Steps[0] + " reads keys that fillseq loads: run fillseq first (e.g. --steps fillseq," + cfg.Steps[0] + ")"
			}
			bind := func(t driver.Target) (workload.Workload, error) { return kv.New(cfg, t) }
			dirs, err := rf.launch(needsData, bind).run(c)
			for _, d := range dirs {
				printKVRows(c.OutOrStdout(), d)
			}
			return err
		},
	}
	f := c.Flags()
	rf.add(f, runSpec{Target: "pebble", TargetHelp: "pebble[:DIR], rocksdb[:DIR], badger[:DIR], bbolt[:FILE], sqlite[:FILE]"})
	f.StringSliceVar(&steps, "steps", steps, "steps to run, in order, comma-separated")
	addKVFlags(f, &cfg, &cacheMB)
	f.Float64Var(&cfg.StepSeconds, "step-seconds", cfg.StepSeconds, "length of each time-limited step (reference 65)")
	f.Float64Var(&cfg.DrainSeconds, "drain-seconds", cfg.DrainSeconds, "length of revrange, the compaction-drain step (reference 300)")
	return c
}

// addKVFlags adds the flags 'run kv' and 'search kv' share: the data, the clients and the
// engine's setup.
func addKVFlags(f *pflag.FlagSet, cfg *kv.Config, cacheMB *int64) {
	f.Int64Var(&cfg.Keys, "keys", cfg.Keys, "keys fillseq loads (db_bench --num)")
	f.IntVar(&cfg.KeySize, "key-size", cfg.KeySize, "bytes per key: 8-byte key number padded with '0'")
	f.IntVar(&cfg.ValueSize, "value-size", cfg.ValueSize, "bytes per value")
	f.Float64Var(&cfg.CompressionRatio, "compression-ratio", cfg.CompressionRatio, "fraction of each value that is random (db_bench --compression_ratio)")
	f.IntVar(&cfg.Threads, "threads", cfg.Threads, "clients of the multi-threaded steps (reference 16)")
	f.StringVar(&cfg.Distribution, "distribution", cfg.Distribution, "how random steps pick keys: uniform or zipfian (YCSB's, constant 0.99)")
	f.BoolVar(&cfg.Sync, "sync", cfg.Sync, "fsync the log at every write (reference: off)")
	f.BoolVar(&cfg.DisableWAL, "disable-wal", cfg.DisableWAL, "write without a log on every write step (fillseq always does)")
	f.Float64Var(&cfg.WriterMBps, "writer-mbps", cfg.WriterMBps, "the whilewriting steps' writer, MiB/s of key+value")
	f.DurationVar(&cfg.WriterBurst, "writer-burst", cfg.WriterBurst,
		"the writer's puts are released a period at a time, as db_bench's rate limiter; 0: evenly")
	f.StringVar(&cfg.Setup, "setup", cfg.Setup, "engine setup: byrx (data fits in the engine's cache), byos (in the OS page cache only), iodir (lz4, O_DIRECT where supported)")
	f.Int64Var(cacheMB, "cache-mb", 0, "engine cache size in MiB (default: the setup's)")
	f.IntVar(&cfg.Retries, "retries", cfg.Retries, "retries of a failed operation before the step fails")
}

// printKVRows prints a run's steps as the reference's summary rows, from its archive: the
// compact columns (kv.CompactReferenceColumns), or every column with --wide.
func printKVRows(w io.Writer, dir string) {
	meta, steps, err := archive.Read(dir)
	if err != nil || len(steps) == 0 {
		return
	}
	cols, which := kv.CompactReferenceColumns, "the reference's summary row per step, main columns (--wide: all)"
	if output.wide {
		cols, which = nil, "the reference's summary row per step"
	}
	fmt.Fprint(w, "\n"+wrapText(fmt.Sprintf("%s (%s): %s", meta.Name, meta.Target.Target, which), "", textWidth))
	for _, l := range kv.FormatReference(kv.ReferenceRows(meta, steps), cols) {
		fmt.Fprintln(w, l)
	}
}

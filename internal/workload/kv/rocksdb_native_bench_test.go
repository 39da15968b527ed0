//go:build rocksdb

package kv

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/runner"
)

// BenchmarkRocksNative splits dbperf's gap to db_bench on readrandom and multireadrandom: on
// one loaded database (1M keys of 20+400 bytes, byrx: the cache twice the data), in one process,
// it alternates db_bench's read loop in C++ (kvdriver.NativeReads: RocksDB alone), the same
// reads through the binding from a bare Go loop as the workload reads (each value's length:
// GetLen, MultiGetLen), the same with each value copied into Go (Get, MultiGet), the same as
// the first with a yield to Go's scheduler every 1,000 keys, and the step
// through dbperf's runner (workload, clock reads, histograms); then db_bench itself on the same
// files when it is on the PATH (its second pass, on a warm cache). Two threads, each locked to
// its OS thread, GOMAXPROCS one per CPU and one per thread, as `dbperf run kv` sets them for
// RocksDB. Each variant reads the same number of keys a round; the benchmark reports each one's
// median keys/s and the process's CPU µs a key, and the medians of the rounds' ratios.
// docs/performance.md ("The binding's cost, measured in one process"):
//
//	go test -tags rocksdb -run '^$' -bench RocksNative -benchtime 1x -timeout 30m ./internal/workload/kv
const (
	nativeKeys    = 1_000_000
	nativeThreads = 2
	nativeReads   = 2_000_000 // keys per variant and round
	nativeRounds  = 5
	// nativeYield is how many keys the yield variant reads between yields: a few ms, under the
	// 10 ms after which Go's sysmon takes the P of a goroutine in a cgo call that it has not
	// seen rescheduled (runtime/proc.go, retake).
	nativeYield = 1000
)

func BenchmarkRocksNative(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.Seed = nativeKeys, nativeThreads, 1
	dir := loadNative(b, cfg)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + nativeThreads))
	for _, step := range []string{ReadRandom, MultiReadRandom} {
		b.Run(step, func(b *testing.B) { compareNative(b, dir, cfg, step) })
	}
}

// nativeRun is one variant's keys per second and the process's CPU µs a key.
type nativeRun struct{ rate, cpu float64 }

// compareNative runs the rounds of one step and reports the medians and ratios.
func compareNative(b *testing.B, dir string, cfg Config, step string) {
	names := []string{"native", "binding", "copy", "yield", "dbperf"}
	runs := map[string][]nativeRun{}
	dbBench, _ := exec.LookPath("db_bench")
	for round := range nativeRounds {
		db := openNative(b, dir, cfg, step)
		do := map[string]func() float64{
			"native":  func() float64 { return nativeLoop(b, db, step, uint64(round)) },
			"binding": func() float64 { return bindingLoop(b, db, cfg, step, uint64(round), false, 0) },
			"copy":    func() float64 { return bindingLoop(b, db, cfg, step, uint64(round), true, 0) },
			"yield":   func() float64 { return bindingLoop(b, db, cfg, step, uint64(round), false, nativeYield) },
			"dbperf":  func() float64 { return runnerLoop(b, db, cfg, step) },
		}
		for i := range names { // a round's first variant rotates
			name := names[(i+round)%len(names)]
			runs[name] = append(runs[name], withCPU(do[name]))
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		if dbBench != "" {
			runs["db_bench"] = append(runs["db_bench"], nativeRun{rate: runDBBench(b, dbBench, dir, cfg, step, round)})
		}
	}
	for name, r := range runs {
		rates, cpus := make([]float64, len(r)), make([]float64, len(r))
		for i, x := range r {
			rates[i], cpus[i] = x.rate, x.cpu
		}
		b.Logf("%-8s keys/s %.0f, CPU µs/key %.2f", name, rates, cpus)
		b.ReportMetric(median(rates), name+"_keys/s")
		if name != "db_bench" {
			b.ReportMetric(median(cpus), name+"_cpu_us/key")
		}
	}
	ratio := func(num, den string) {
		if len(runs[den]) == 0 {
			return
		}
		var q []float64
		for i := range runs[num] {
			q = append(q, runs[num][i].rate/runs[den][i].rate)
		}
		b.Logf("%s/%s by round %.3f", num, den, q)
		b.ReportMetric(median(q), num+"/"+den)
	}
	ratio("binding", "native")
	ratio("copy", "native")
	ratio("yield", "binding")
	ratio("dbperf", "native")
	ratio("native", "db_bench")
	ratio("dbperf", "db_bench")
}

// withCPU runs a variant that returns keys/s and adds the process's CPU µs a key.
func withCPU(run func() float64) nativeRun {
	cpu0 := processCPU()
	rate := run()
	return nativeRun{rate: rate, cpu: (processCPU() - cpu0).Seconds() * 1e6 / nativeReads}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadNative loads the keys as fillseq does, then lets compaction finish, and closes.
func loadNative(b *testing.B, cfg Config) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "rocksdb")
	db, err := kvdriver.OpenTuned("rocksdb", dir, cfg.EngineOptions(FillSeq))
	if err != nil {
		b.Fatal(err)
	}
	vals := values{buf: valueBuffer(cfg.CompressionRatio, cfg.ValueSize, 1), size: cfg.ValueSize}
	var key []byte
	for n := range uint64(cfg.Keys) {
		key = appendKey(key[:0], n, cfg.KeySize)
		if err := db.Put(key, vals.next()); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Reopen(cfg.EngineOptions(ReadRandom)); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Engine.(kvdriver.CompactionWaiter).WaitForCompaction(context.Background()); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// openNative opens the database with the step's options and warms its block cache with a
// native pass of one read a key.
func openNative(b *testing.B, dir string, cfg Config, step string) *kvdriver.DB {
	db, err := kvdriver.OpenTuned("rocksdb", dir, cfg.EngineOptions(step))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Engine.(kvdriver.NativeReads).NativeGets(uint64(cfg.Keys), uint64(cfg.Keys), cfg.KeySize, 99); err != nil {
		b.Fatal(err)
	}
	return db
}

// onThreads runs fn on each of the threads, each locked to its OS thread, and returns the keys
// read a second.
func onThreads(b *testing.B, fn func(t int) error) float64 {
	var wg sync.WaitGroup
	errs := make([]error, nativeThreads)
	start := time.Now()
	for t := range nativeThreads {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			errs[t] = fn(t)
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return nativeReads / secs
}

// nativeLoop is db_bench's read loop in C++, one cgo call a thread.
func nativeLoop(b *testing.B, db *kvdriver.DB, step string, round uint64) float64 {
	nr := db.Engine.(kvdriver.NativeReads)
	per := uint64(nativeReads / nativeThreads)
	return onThreads(b, func(t int) error {
		seed := 1000*round + uint64(t)
		var err error
		if step == MultiReadRandom {
			_, err = nr.NativeMultiGets(per/multiGetBatch, multiGetBatch, nativeKeys, 20, seed)
		} else {
			_, err = nr.NativeGets(per, nativeKeys, 20, seed)
		}
		return err
	})
}

// bindingLoop is the same reads through the binding, from a bare Go loop: uniform keys from a
// Go random stream, the values' lengths as the workload reads them (GetLen, MultiGetLen), or,
// with copyValues, the values copied into Go (Get, MultiGet); with yieldEvery > 0, a
// runtime.Gosched every yieldEvery keys.
func bindingLoop(b *testing.B, db *kvdriver.DB, cfg Config, step string, round uint64, copyValues bool, yieldEvery int) float64 {
	eng := db.Engine.(interface {
		kvdriver.MultiGetter
		lenReader
		lenMultiReader
	})
	return onThreads(b, func(t int) error {
		rng := rand.New(rand.NewPCG(round, uint64(t)))
		n := 0
		onValue := func(v []byte) { n += len(v) }
		onBatch := func(_ int, v []byte) { n += len(v) }
		batch, lens := make([][]byte, multiGetBatch), make([]int, multiGetBatch)
		var key []byte
		var err error
		for i, next := 0, yieldEvery; i < nativeReads/nativeThreads && err == nil; {
			if yieldEvery > 0 && i >= next {
				runtime.Gosched()
				next += yieldEvery
			}
			if step == MultiReadRandom {
				for j := range batch {
					batch[j] = appendKey(batch[j][:0], rng.Uint64N(nativeKeys), cfg.KeySize)
				}
				if copyValues {
					_, err = eng.MultiGet(batch, onBatch)
				} else {
					_, err = eng.MultiGetLen(batch, lens)
				}
				i += multiGetBatch
				continue
			}
			key = appendKey(key[:0], rng.Uint64N(nativeKeys), cfg.KeySize)
			if copyValues {
				_, err = db.Get(key, onValue)
			} else {
				_, _, err = eng.GetLen(key)
			}
			i++
		}
		return err
	})
}

// runnerLoop is the step as `dbperf run kv` runs it, on the open database, for nativeReads keys.
func runnerLoop(b *testing.B, db *kvdriver.DB, cfg Config, step string) float64 {
	bench := &Bench{cfg: cfg, engine: &targetEngine{db: db}, vals: valueBuffer(cfg.CompressionRatio, cfg.ValueSize, 1),
		keys: uniform{nativeKeys}, warm: true, cur: db, opts: cfg.EngineOptions(step)}
	plan, err := bench.Plan(context.Background(), step)
	if err != nil {
		b.Fatal(err)
	}
	perOp := int64(1)
	if step == MultiReadRandom {
		perOp = multiGetBatch
	}
	plan.Step.Duration, plan.Step.LockOSThreads = 0, true
	for i := range plan.Step.Workers {
		plan.Step.Workers[i].Schedule = runner.ClosedLoop{Limit: nativeReads / nativeThreads / perOp}
	}
	res := runner.Run(context.Background(), plan.Step)
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	return float64(res.Total.Ops[plan.Main].Units) / res.End.Sub(res.Start).Seconds()
}

// runDBBench runs db_bench's step twice in one process on the database, with the flags
// scripts/kv-vs-dbbench.sh gives it, and returns the second pass's keys/s (a warm cache).
func runDBBench(b *testing.B, path, dir string, cfg Config, step string, round int) float64 {
	o := cfg.EngineOptions(step)
	args := []string{"--db=" + dir, "--wal_dir=" + dir, "--use_existing_db=1", "--threads=2",
		fmt.Sprintf("--num=%d", cfg.Keys), fmt.Sprintf("--key_size=%d", cfg.KeySize), fmt.Sprintf("--value_size=%d", cfg.ValueSize),
		fmt.Sprintf("--reads=%d", nativeReads/nativeThreads), fmt.Sprintf("--cache_size=%d", o.CacheBytes),
		fmt.Sprintf("--seed=%d", 1000+round), "--report_file=" + filepath.Join(b.TempDir(), "report.csv"),
		"--block_size=8192", "--cache_numshardbits=6", "--compression_max_dict_bytes=0", "--compression_ratio=0.5",
		"--compression_type=none", "--bytes_per_sync=1048576", "--write_buffer_size=33554432",
		"--target_file_size_base=33554432", "--max_bytes_for_level_base=134217728", "--verify_checksum=1",
		"--delete_obsolete_files_period_micros=62914560", "--max_bytes_for_level_multiplier=8", "--statistics=0",
		"--stats_per_interval=1", "--stats_interval_seconds=20", "--report_interval_seconds=1", "--histogram=1",
		"--memtablerep=skip_list", "--bloom_bits=10", "--open_files=-1", "--subcompactions=1", "--compaction_style=0",
		"--num_levels=8", "--min_level_to_compress=-1", "--level_compaction_dynamic_level_bytes=true",
		"--pin_l0_filter_and_index_blocks_in_cache=1", "--level0_file_num_compaction_trigger=4",
		"--level0_slowdown_writes_trigger=20", "--level0_stop_writes_trigger=30", "--max_background_jobs=8",
		"--max_write_buffer_number=8", "--benchmark_write_rate_limit=0",
		"--benchmarks=" + step + "," + step}
	if step == MultiReadRandom {
		args = append(args, "--batch_size=10", "--multiread_batched")
	}
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		b.Fatalf("db_bench: %v\n%s", err, out)
	}
	rate := 0.0
	for _, line := range bytes.Split(out, []byte("\n")) { // "readrandom : 4.6 micros/op 433642 ops/sec ..."
		f := bytes.Fields(line)
		if len(f) > 5 && string(f[0]) == step && string(f[1]) == ":" && string(f[5]) == "ops/sec" {
			rate, _ = strconv.ParseFloat(string(f[4]), 64)
		}
	}
	if rate == 0 {
		b.Fatalf("no %s ops/sec line in db_bench's output:\n%s", step, out)
	}
	return rate
}

// rocksVariant is the variant BenchmarkRocksVariant runs, for a profiler attached to it.
var rocksVariant = flag.String("rocks.variant", "binding", "BenchmarkRocksVariant's variant: native or binding")

// BenchmarkRocksVariant loads the database as BenchmarkRocksNative does and runs one variant's
// readrandom alone, 4 rounds of 4M keys (each round's rate logged), so that perf can sample it:
//
//	go test -c -tags rocksdb -o kv.test ./internal/workload/kv
//	./kv.test -test.run '^$' -test.bench RocksVariant -test.benchtime 1x -rocks.variant native &
//	sleep 25; perf record -F 1999 -p $! -o native.data -- sleep 20   # the same with binding
func BenchmarkRocksVariant(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.Seed = nativeKeys, nativeThreads, 1
	dir := loadNative(b, cfg)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + nativeThreads))
	db := openNative(b, dir, cfg, ReadRandom)
	defer db.Close()
	for round := range uint64(4) {
		var rate float64
		for range 2 {
			switch *rocksVariant {
			case "native":
				rate += nativeLoop(b, db, ReadRandom, round) / 2
			case "binding":
				rate += bindingLoop(b, db, cfg, ReadRandom, round, false, 0) / 2
			default:
				b.Fatalf("-rocks.variant %q: give native or binding", *rocksVariant)
			}
		}
		b.Logf("%s: %.0f keys/s", *rocksVariant, rate)
	}
}

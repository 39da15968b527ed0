package kv

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/runner"
)

// The client must not be the bottleneck: readrandom through dbperf (workload, runner, histograms)
// against a bare Go loop calling the engine directly, with the same keys, threads and cached
// data. The two alternate, round after round, so that a change in the machine's load hits both;
// the benchmark reports each one's median and their ratio. docs/performance.md has the figures:
//
//	go test -tags rocksdb -run '^$' -bench 'ReadRandom' -benchtime 1x ./internal/workload/kv

const (
	benchKeys    = 100000
	benchThreads = 4
	benchReads   = 1000000 // per round and variant
	benchRounds  = 5
)

// compareReadRandom alternates the dbperf and bare variants and reports their medians.
func compareReadRandom(b *testing.B, dbperf, bare func() float64) {
	var d, r []float64
	for i := 0; i < benchRounds; i++ {
		d = append(d, dbperf())
		r = append(r, bare())
	}
	md, mr := median(d), median(r)
	b.ReportMetric(md, "dbperf_reads/s")
	b.ReportMetric(mr, "bare_reads/s")
	b.ReportMetric(md/mr, "ratio")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// loadForBench fills a database of kind with benchKeys keys as fillseq does, and closes it.
func loadForBench(b *testing.B, kind string) (dir string, cfg Config) {
	b.Helper()
	cfg = DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.Seed = benchKeys, benchThreads, 1
	dir = filepath.Join(b.TempDir(), kind)
	db, err := kvdriver.OpenTuned(kind, dir, cfg.EngineOptions(FillSeq))
	if err != nil {
		b.Fatal(err)
	}
	vals := values{buf: valueBuffer(cfg.CompressionRatio, cfg.ValueSize, 1), size: cfg.ValueSize}
	var key []byte
	for n := uint64(0); n < benchKeys; n++ {
		key = appendKey(key[:0], n, cfg.KeySize)
		if err := db.Write(func(w kvdriver.Writer) error { return w.Set(key, vals.next()) }); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return dir, cfg
}

// benchDbperf runs benchReads reads of the readrandom step through the runner, split over the
// threads, and returns the reads per second.
func benchDbperf(b *testing.B, kind, dir string, cfg Config) float64 {
	db, err := kvdriver.OpenTuned(kind, dir, cfg.EngineOptions(ReadRandom))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bench := &Bench{cfg: cfg, engine: &targetEngine{db: db}, vals: valueBuffer(cfg.CompressionRatio, cfg.ValueSize, 1), keys: uniform{benchKeys}}
	plan, err := bench.Plan(context.Background(), ReadRandom)
	if err != nil {
		b.Fatal(err)
	}
	plan.Step.Duration = 0
	for i := range plan.Step.Workers { // a limit of 0 would run until a Duration
		plan.Step.Workers[i].Schedule = runner.ClosedLoop{Limit: benchReads / benchThreads}
	}
	res := runner.Run(context.Background(), plan.Step)
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	return float64(res.Total.Ops[plan.Main].Units) / res.End.Sub(res.Start).Seconds()
}

// bareLoop runs benchReads calls of get split over the threads, each thread with its own random
// stream of uniform keys, as the readrandom step's clients, and returns the reads per second.
func bareLoop(b *testing.B, cfg Config, get func(key []byte) error) float64 {
	var wg sync.WaitGroup
	errs := make(chan error, benchThreads)
	start := time.Now()
	for t := 0; t < benchThreads; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(t)))
			var key []byte
			for i := 0; i < benchReads/benchThreads; i++ {
				key = appendKey(key[:0], rng.Uint64N(benchKeys), cfg.KeySize)
				if err := get(key); err != nil {
					errs <- err
					return
				}
			}
		}(t)
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return float64(benchReads/benchThreads*benchThreads) / secs
}

func BenchmarkReadRandomPebble(b *testing.B) {
	dir, cfg := loadForBench(b, "pebble")
	compareReadRandom(b, func() float64 { return benchDbperf(b, "pebble", dir, cfg) },
		func() float64 { return bareEngine(b, "pebble", dir, cfg) })
}

// bareEngine opens the engine with the step's options, as dbperf does, and calls its Get in a
// bare loop: the difference to benchDbperf is the workload, the runner and the histograms.
func bareEngine(b *testing.B, kind, dir string, cfg Config) float64 {
	db, err := kvdriver.OpenTuned(kind, dir, cfg.EngineOptions(ReadRandom))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	eng, n := db.Engine, 0
	onValue := func(v []byte) { n += len(v) }
	return bareLoop(b, cfg, func(key []byte) error {
		_, err := eng.Get(key, onValue)
		return err
	})
}

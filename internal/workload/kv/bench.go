package kv

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/workload"
)

// Bench is the key-value benchmark bound to one engine.
type Bench struct {
	cfg    Config
	engine engineHandle
	vals   []byte     // the shared value buffer
	keys   keyChooser // random steps' key choice over [0, Keys)
	last   *stepState // the step that ran last, for Verify
	opts   kvdriver.Options
	// warm is set by a search: its trials of one step share the open engine (cur, opened with
	// opts), so that a trial's warm-up warms the caches its measured part reads from.
	warm bool
	cur  *kvdriver.DB
}

var _ workload.Workload = (*Bench)(nil)

// engineHandle gives each step a freshly opened engine.
type engineHandle interface {
	// open (re)opens the engine for a step with o.
	open(o kvdriver.Options) (*kvdriver.DB, error)
	// forCheck is the engine for a check after a step; release after it.
	forCheck(o kvdriver.Options) (*kvdriver.DB, error)
	release() error
}

// New binds the benchmark to an opened target: a kvdriver engine, or SQLite (sqldriver's target
// kind), whose file this package opens as a key-value table.
func New(cfg Config, t driver.Target) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg, vals: valueBuffer(cfg.CompressionRatio, cfg.ValueSize, cfg.Seed)}
	switch t := t.(type) {
	case *kvdriver.DB:
		b.engine = &targetEngine{db: t}
	case *sqldriver.SQLite:
		path, _ := t.Info(context.Background()).Settings["path"].(string)
		if path == "" {
			return nil, errors.New("the sqlite target has no file path")
		}
		b.engine = &sqliteFile{path: path}
	default:
		return nil, fmt.Errorf("the key-value benchmark runs on embedded engines (pebble, rocksdb, badger, bbolt, sqlite), not on %s", t.Info(context.Background()).Kind)
	}
	if cfg.Distribution == zipfianDistribution {
		b.keys = newZipfian(uint64(cfg.Keys), true)
	} else {
		b.keys = uniform{uint64(cfg.Keys)}
	}
	return b, nil
}

// Steps implements workload.Workload.
func (b *Bench) Steps() []string { return b.cfg.Steps }

// Settings implements workload.Workload: the flags and the engine options of the setup (each
// engine records what it made of them in the target's settings).
func (b *Bench) Settings() map[string]any {
	return map[string]any{
		"keys": b.cfg.Keys, "key_size": b.cfg.KeySize, "value_size": b.cfg.ValueSize,
		"compression_ratio": b.cfg.CompressionRatio, "threads": b.cfg.Threads,
		"step_seconds": b.cfg.StepSeconds, "drain_seconds": b.cfg.DrainSeconds,
		"distribution": b.cfg.Distribution, "zipfian_constant": zipfTheta, "sync": b.cfg.Sync,
		"disable_wal": b.cfg.DisableWAL, "writer_mbps": b.cfg.WriterMBps, "writer_burst": b.cfg.WriterBurst.String(), "setup": b.cfg.Setup,
		"engine_options": b.cfg.EngineOptions(ReadRandom), "steps": b.cfg.Steps,
		"arrival": b.cfg.Arrival.String(), "retries": b.cfg.Retries,
		"scan_length": scanLength, "multiget_batch": multiGetBatch, "revrange_keys": revRangeKeys,
	}
}

// Plan implements workload.Workload: it reopens the engine with the step's options (a search's
// next trial of the same step keeps it open), then builds the step.
func (b *Bench) Plan(_ context.Context, step string) (*workload.StepPlan, error) {
	opts := b.cfg.EngineOptions(step)
	db := b.cur
	if !b.warm || db == nil || opts != b.opts {
		var err error
		if db, err = b.engine.open(opts); err != nil {
			b.cur = nil
			return nil, err
		}
	}
	b.opts, b.cur = opts, db
	st := &stepState{name: step, b: b, db: db}
	if m, ok := db.Engine.(kvdriver.Monitored); ok {
		st.before, _ = m.Counters()
	}
	b.last = st
	plan, err := st.plan()
	if err != nil {
		b.cur = nil
		b.engine.release()
		return nil, err
	}
	plan.Close = b.engine.release
	if b.warm {
		plan.Close = func() error { return nil } // the next trial reads from it; Close releases it
	}
	return plan, nil
}

// Close releases the engine a search kept open between its trials.
func (b *Bench) Close() error {
	b.cur = nil
	return b.engine.release()
}

// Verify implements workload.Workload: the checks of docs/kv.md.
func (b *Bench) Verify(_ context.Context, step string) ([]string, error) {
	st := b.last
	if st == nil || st.name != step {
		return nil, fmt.Errorf("no record of step %s", step)
	}
	problems := st.clientProblems()
	switch step {
	case FillSeq, OverwriteSome, OverwriteAndWait, FlushMTL0:
		db, err := b.engine.forCheck(b.opts)
		if err != nil {
			return nil, err
		}
		b.cur = nil // SQLite's check opened the file anew: the next step opens it again
		defer b.engine.release()
		p, err := checkAllKeys(db, b.cfg.Keys, b.cfg.KeySize)
		if err != nil {
			return nil, err
		}
		problems = append(problems, p...)
	}
	return problems, nil
}

// checkAllKeys scans the whole key space: it must hold exactly the keys 0..n-1, in order.
func checkAllKeys(db *kvdriver.DB, n int64, keySize int) ([]string, error) {
	var count int64
	var problem string
	err := db.Scan(nil, nil, func(k, _ []byte) bool {
		if len(k) != keySize || int64(keyNumber(k)) != count {
			problem = fmt.Sprintf("key %d of the scan is %x, expected key number %d of %d bytes", count, k, count, keySize)
			return false
		}
		count++
		return true
	})
	if err != nil {
		return nil, err
	}
	if problem != "" {
		return []string{problem}, nil
	}
	if count != n {
		return []string{fmt.Sprintf("the engine holds %d keys, expected %d (fillseq loads --keys; overwrites keep the count)", count, n)}, nil
	}
	return nil, nil
}

// stepSeed is a random stream's seed for a step's client: never the same stream twice in a run.
func stepSeed(step string, client int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(step))
	return h.Sum64() ^ uint64(client)*0x9E3779B97F4A7C15
}

// targetEngine is a kvdriver target: reopened in place for each step.
type targetEngine struct{ db *kvdriver.DB }

func (t *targetEngine) open(o kvdriver.Options) (*kvdriver.DB, error) { return t.db, t.db.Reopen(o) }

// forCheck reopens the engine with compactions off: db_bench ends a step by closing the
// database, and compaction left pending then runs in the next step (the reference's revrange
// drains it); a check on the open engine would give it time to run first and leave another LSM
// (L0 files below the trigger that no step compacts).
func (t *targetEngine) forCheck(o kvdriver.Options) (*kvdriver.DB, error) {
	o.NoCompactions = true
	return t.db, t.db.Reopen(o)
}
func (t *targetEngine) release() error { return nil }

// sqliteFile is SQLite's file opened as a key-value table: open for a step or a check, closed
// after each (the sqldriver target keeps its own idle connections).
type sqliteFile struct {
	path string
	db   *kvdriver.DB
}

func (s *sqliteFile) open(o kvdriver.Options) (*kvdriver.DB, error) {
	if err := s.release(); err != nil {
		return nil, err
	}
	db, err := kvdriver.OpenTuned("sqlite", filepath.Clean(s.path), o)
	s.db = db
	return db, err
}

func (s *sqliteFile) forCheck(o kvdriver.Options) (*kvdriver.DB, error) { return s.open(o) }

func (s *sqliteFile) release() error {
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

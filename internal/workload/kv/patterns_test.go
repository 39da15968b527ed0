package kv_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/workload/keyorder"
	"github.com/dbperf/dbperf/internal/workload/kv"
	"github.com/dgraph-io/badger/v4"
)

// TestInsertPatternsAsDeclared runs the writing steps on Badger one at a time and reads every
// key back with its version (Badger's commit timestamp: one per put, in commit order): the keys
// each step put, in that order, must have the pattern the workload declares for it.
func TestInsertPatternsAsDeclared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	cfg := kv.DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.StepSeconds, cfg.Seed = 4000, 3, 0.3, 7
	var before [][]byte
	var since uint64 // the highest version before the step
	for _, step := range []string{kv.FillSeq, kv.OverwriteSome, kv.ReadWhileWriting} {
		cfg.Steps = []string{step}
		declared := runStep(t, dir, cfg)
		pats := declared.StepPatterns(step)
		if len(pats) != 1 {
			t.Fatalf("%s declares %d patterns, want 1 (the key)", step, len(pats))
		}
		sample := keyorder.Sample[[]byte]{Compare: bytes.Compare, Before: before}
		top := since
		readVersions(t, dir, func(key []byte, version uint64) {
			if version > since {
				sample.Inserts = append(sample.Inserts, keyorder.Insert[[]byte]{Key: key, Commit: int64(version)})
				top = max(top, version)
			} else {
				before = append(before, key)
			}
		})
		since = top
		res, err := keyorder.Infer(sample)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		t.Logf("%s: %v", step, res)
		if got, _ := res.Streams.Code(); got != pats[0].Pattern {
			t.Errorf("%s put keys %s, declared %s: %v", step, got, pats[0].Pattern, res)
		}
	}
}

// runStep runs the configured steps on the Badger database in dir and returns the declaration.
func runStep(t *testing.T, dir string, cfg kv.Config) archive.Figures {
	t.Helper()
	spec, err := driver.Parse("badger:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := driver.Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b, err := kv.New(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := archive.Create(filepath.Join(t.TempDir(), "run"), archive.Run{Name: "run", Workload: kv.Name, Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&session.Session{Workload: b, Dir: d, Out: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b.Figures()
}

// readVersions calls fn with every live version of every key in the Badger database in dir.
func readVersions(t *testing.T, dir string, fn func(key []byte, version uint64)) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.AllVersions, opts.PrefetchValues = true, false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if item := it.Item(); !item.IsDeletedOrExpired() {
				fn(item.KeyCopy(nil), item.Version())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

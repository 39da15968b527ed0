package kvdriver

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dbperf/dbperf/internal/driver"
)

func init() {
	driver.Register(driver.Kind{
		Name: "pebble", Usage: "pebble[:DIR]",
		Summary: "Pebble LSM (CockroachDB), embedded; a temporary directory when DIR is omitted",
		Open: func(_ context.Context, s driver.Spec) (driver.Target, error) {
			return open(s, "pebble", openPebble)
		},
	})
}

// pebbleEngine is Pebble with its default options; every write is synced (WAL fsync), like a
// durable commit on the SQL targets.
type pebbleEngine struct {
	db     *pebble.DB
	opts   *pebble.Options
	stalls *writeStalls // counted by an event listener, for the monitor (monitor.go)
}

func openPebble(path string) (Engine, error) {
	stalls := &writeStalls{}
	opts := &pebble.Options{Logger: quietLogger{}, EventListener: stalls.listener()}
	opts.EnsureDefaults()
	db, err := pebble.Open(path, opts)
	if err != nil {
		return nil, err
	}
	return &pebbleEngine{db: db, opts: opts, stalls: stalls}, nil
}

func (p *pebbleEngine) Write(fn func(w Writer) error) error {
	b := p.db.NewBatch()
	defer b.Close()
	if err := fn(pebbleWriter{b}); err != nil {
		return err
	}
	return b.Commit(pebble.Sync)
}

type pebbleWriter struct{ b *pebble.Batch }

func (w pebbleWriter) Set(k, v []byte) error { return w.b.Set(k, v, nil) }
func (w pebbleWriter) Delete(k []byte) error { return w.b.Delete(k, nil) }

func (p *pebbleEngine) Get(key []byte, fn func([]byte)) (bool, error) {
	v, closer, err := p.db.Get(key)
	if err == pebble.ErrNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	fn(v)
	return true, closer.Close()
}

func (p *pebbleEngine) Scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for valid := it.First(); valid; valid = it.Next() {
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

func (p *pebbleEngine) DropRange(lower, upper []byte) error {
	return p.db.DeleteRange(lower, upper, pebble.Sync)
}

// Settle flushes the memtable and compacts until L0 is empty and no compaction is owed, like
// the reference's "flush memtable and L0" for LSMs.
func (p *pebbleEngine) Settle(ctx context.Context) (string, error) {
	if err := p.db.Flush(); err != nil {
		return "", err
	}
	m := p.db.Metrics()
	l0 := m.Levels[0].TablesCount
	if l0 > 0 {
		// Compact the whole key space: L0 goes down into the lower levels.
		if err := p.db.Compact(ctx, []byte{0}, []byte{0xff, 0xff, 0xff, 0xff}, true); err != nil {
			return "", err
		}
	}
	for {
		m = p.db.Metrics()
		if m.Compact.NumInProgress == 0 && m.Compact.EstimatedDebt == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Sprintf("flushed the memtable; compacted %d L0 files; compaction debt 0", l0), nil
}

func (p *pebbleEngine) Name() string    { return "Pebble" }
func (p *pebbleEngine) Version() string { return moduleVersion("github.com/cockroachdb/pebble/v2") }

func (p *pebbleEngine) Settings() map[string]any {
	lo, hi := p.opts.CompactionConcurrencyRange()
	return map[string]any{
		"sync_writes":              true,
		"block_cache_bytes":        p.opts.CacheSize,
		"memtable_bytes":           p.opts.MemTableSize,
		"l0_compaction_threshold":  p.opts.L0CompactionThreshold,
		"l0_stop_writes_threshold": p.opts.L0StopWritesThreshold,
		"lbase_max_bytes":          p.opts.LBaseMaxBytes,
		"compaction_concurrency":   fmt.Sprintf("%d..%d", lo, hi),
		"format_major_version":     p.db.FormatMajorVersion().String(),
	}
}

func (p *pebbleEngine) Close() error { return p.db.Close() }

// quietLogger drops Pebble's informational messages (they would interleave with the live
// lines) and keeps errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pebble: "+format+"\n", args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pebble: "+format+"\n", args...)
	os.Exit(1)
}

// moduleVersion is the version of a Go module linked into this binary.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

package kvdriver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// What the monitor samples on a key-value store: the engine runs in this process, its data is
// at the target's path, and each engine reports its own size and statistics.

var (
	_ Monitored = (*pebbleEngine)(nil)
	_ Monitored = (*boltEngine)(nil)
)

// Monitored is an optional ability of an engine: what the monitor samples from it.
type Monitored interface {
	// DiskSize is the database's size on disk as the engine accounts for it, in bytes.
	DiskSize() (int64, error)
	// Counters are the engine's statistics, by stable names; see monitor.Counters.
	Counters() (map[string]float64, error)
}

var errClosed = errors.New("the store is closed")

// DBMSProcesses implements monitor.Processes: the engine is this process.
func (s *DB) DBMSProcesses(context.Context) ([]int, bool, error) {
	return []int{os.Getpid()}, true, nil
}

// DataDir implements monitor.DataDir: Pebble's directory, or the directory of bbolt's file.
func (s *DB) DataDir(context.Context) (string, error) {
	path, err := filepath.Abs(s.path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return path, nil
	}
	return filepath.Dir(path), nil
}

// monitored runs fn on the engine unless the store is closed or the engine reports nothing.
func (s *DB) monitored(fn func(m Monitored) error) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return errClosed
	}
	m, ok := s.Engine.(Monitored)
	if !ok {
		return errors.New(s.Engine.Name() + " reports no statistics")
	}
	return fn(m)
}

// DatabaseSize implements monitor.Size.
func (s *DB) DatabaseSize(context.Context) (n int64, err error) {
	err = s.monitored(func(m Monitored) error {
		n, err = m.DiskSize()
		return err
	})
	return n, err
}

// DBMSCounters implements monitor.Counters.
func (s *DB) DBMSCounters(context.Context) (c map[string]float64, err error) {
	err = s.monitored(func(m Monitored) error {
		c, err = m.Counters()
		return err
	})
	return c, err
}

// DiskSize is every file Pebble counts as its own: WAL, sstables (live, obsolete and zombie),
// blob files, MANIFEST and OPTIONS.
func (p *pebbleEngine) DiskSize() (int64, error) {
	return int64(p.db.Metrics().DiskSpaceUsage()), nil
}

// Counters are Pebble's Metrics. Running totals: flush_*, compaction_* (except _in_progress and
// _debt_bytes), wal_bytes_*, ingested_bytes, bytes_in, block_cache_hits/misses,
// file_cache_hits/misses, write_stalls*, write_stall_seconds. The others are gauges.
func (p *pebbleEngine) Counters() (map[string]float64, error) {
	m := p.db.Metrics()
	total := m.Total()
	var flushed, compactedRead, compactedWritten, moved, ingested uint64
	for i := range m.Levels {
		l := &m.Levels[i]
		flushed += l.TableBytesFlushed + l.BlobBytesFlushed
		compactedRead += l.TableBytesRead
		compactedWritten += l.TableBytesCompacted + l.BlobBytesCompacted
		moved += l.TableBytesMoved
		ingested += l.TableBytesIngested
	}
	l0 := &m.Levels[0]
	c := map[string]float64{
		"flush_count":  float64(m.Flush.Count),
		"flush_bytes":  float64(flushed),
		"flush_tables": float64(l0.TablesFlushed),

		"compaction_count":       float64(m.Compact.Count),
		"compaction_read_bytes":  float64(compactedRead),
		"compaction_write_bytes": float64(compactedWritten),
		"compaction_moved_bytes": float64(moved),
		"compaction_seconds":     m.Compact.Duration.Seconds(),
		"compaction_in_progress": float64(m.Compact.NumInProgress),
		"compaction_debt_bytes":  float64(m.Compact.EstimatedDebt),

		"wal_bytes_written": float64(m.WAL.BytesWritten), // physical, with record headers
		"wal_bytes_in":      float64(m.WAL.BytesIn),      // logical: the batches
		"wal_files":         float64(m.WAL.Files),
		"ingested_bytes":    float64(ingested),
		"bytes_in":          float64(total.TableBytesIn), // WAL written + ingested: write-amp's denominator
		"write_amp":         total.WriteAmp(),
		"read_amp":          float64(m.ReadAmp()),

		"l0_files":     float64(l0.TablesCount),
		"l0_sublevels": float64(l0.Sublevels),
		"l0_bytes":     float64(l0.TablesSize),
		"tables":       float64(total.TablesCount),
		"tables_bytes": float64(total.TablesSize),

		"memtable_bytes": float64(m.MemTable.Size),
		"memtable_count": float64(m.MemTable.Count),

		"block_cache_bytes":  float64(m.BlockCache.Size),
		"block_cache_hits":   float64(m.BlockCache.Hits),
		"block_cache_misses": float64(m.BlockCache.Misses),
		"file_cache_hits":    float64(m.FileCache.Hits),
		"file_cache_misses":  float64(m.FileCache.Misses),

		"disk_usage_bytes": float64(m.DiskSpaceUsage()),
	}
	p.stalls.addTo(c)
	return c, nil
}

// writeStalls counts Pebble's write stalls (writes held back because the memtables are full or
// L0 has too many sublevels) from its event listener. A stall lasts from the first writer held
// back to the last one released; its time so far is counted while it lasts, so that a long stall
// shows in every interval it spans rather than all in the one where it ends.
type writeStalls struct {
	mu       sync.Mutex
	count    int64            // stalls begun
	byReason map[string]int64 // stalls begun, by the reason of the first writer held back
	waits    int64            // writers held back (each stalled commit begins and ends once)
	stalled  int              // writers held back now
	since    time.Time        // when the current stall began
	total    time.Duration    // length of the stalls that have ended
}

// stallReasons are the keys of writeStalls.byReason, from Pebble's reasons.
var stallReasons = []struct{ key, match string }{
	{"write_stalls_memtable", "memtable"},
	{"write_stalls_l0", "L0"},
}

func (w *writeStalls) listener() *pebble.EventListener {
	return &pebble.EventListener{
		WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.waits++
			w.stalled++
			if w.stalled > 1 {
				return
			}
			w.count++
			w.since = time.Now()
			if w.byReason == nil {
				w.byReason = map[string]int64{}
			}
			for _, r := range stallReasons {
				if strings.Contains(info.Reason, r.match) {
					w.byReason[r.key]++
					break
				}
			}
		},
		WriteStallEnd: func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.stalled == 0 {
				return
			}
			w.stalled--
			if w.stalled == 0 {
				w.total += time.Since(w.since)
			}
		},
	}
}

func (w *writeStalls) addTo(c map[string]float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.total
	if w.stalled > 0 {
		d += time.Since(w.since)
	}
	c["write_stalls"] = float64(w.count)
	c["write_stall_seconds"] = d.Seconds()
	c["write_stall_waits"] = float64(w.waits)
	c["write_stalled_now"] = float64(w.stalled)
	for _, r := range stallReasons {
		c[r.key] = float64(w.byReason[r.key])
	}
}

// DiskSize is the size of bbolt's file: it grows in steps ahead of the pages in use (free_pages
// and pending_pages in Counters are the pages not holding data).
func (e *boltEngine) DiskSize() (int64, error) {
	fi, err := os.Stat(e.db.Path())
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Counters are bbolt's Stats. Running totals: read_txs and every TxStats figure (page_allocs,
// page_alloc_bytes, cursors, nodes, node_derefs, rebalances, rebalance_seconds, splits, spills,
// spill_seconds, writes, write_seconds), which bbolt adds when a transaction ends. Gauges:
// open_read_txs, free_pages, pending_pages, free_alloc_bytes, freelist_inuse_bytes.
func (e *boltEngine) Counters() (map[string]float64, error) {
	s := e.db.Stats()
	t := &s.TxStats
	return map[string]float64{
		"read_txs":             float64(s.TxN),
		"open_read_txs":        float64(s.OpenTxN),
		"free_pages":           float64(s.FreePageN),
		"pending_pages":        float64(s.PendingPageN),
		"free_alloc_bytes":     float64(s.FreeAlloc),
		"freelist_inuse_bytes": float64(s.FreelistInuse),

		"page_allocs":       float64(t.GetPageCount()),
		"page_alloc_bytes":  float64(t.GetPageAlloc()),
		"cursors":           float64(t.GetCursorCount()),
		"nodes":             float64(t.GetNodeCount()),
		"node_derefs":       float64(t.GetNodeDeref()),
		"rebalances":        float64(t.GetRebalance()),
		"rebalance_seconds": t.GetRebalanceTime().Seconds(),
		"splits":            float64(t.GetSplit()),
		"spills":            float64(t.GetSpill()),
		"spill_seconds":     t.GetSpillTime().Seconds(),
		"writes":            float64(t.GetWrite()),
		"write_seconds":     t.GetWriteTime().Seconds(),
	}, nil
}

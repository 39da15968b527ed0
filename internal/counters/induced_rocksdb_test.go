//go:build rocksdb

package counters_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
)

// TestInducedFlushRocksDB: a forced flush of RocksDB's memtable (DB::Flush, waiting) shows as
// its flush tickers: bytes flushed (rocksdb.flush.write.bytes, the curated flush_bytes) and the
// flush histogram's count.
func TestInducedFlushRocksDB(t *testing.T) {
	tg := open(t, "rocksdb:"+filepath.Join(t.TempDir(), "db"))
	db := tg.(*kvdriver.DB)
	var n int64
	load := func(context.Context) error {
		return db.Write(func(w kvdriver.Writer) error {
			for range 20 {
				n++
				if err := w.Set(kvdriver.AppendInt(nil, n), make([]byte, 100)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	want := []string{"rocksdb.flush.write.bytes", "flush_bytes", "rocksdb.db.flush.micros.count"}
	before := counter(t, tg, "rocksdb.flush.write.bytes")
	moved := induced(t, tg, archive.Target{Kind: "rocksdb", Engine: "RocksDB"}, load,
		func() error {
			_, err := db.Engine.(interface {
				Flush(context.Context) (string, error)
			}).Flush(context.Background())
			return err
		},
		func() bool { return counter(t, tg, "rocksdb.flush.write.bytes") > before })
	if !named(moved, want...) {
		t.Errorf("a flush: the counters that moved do not name it: %v", names(moved))
	}
}

//go:build rocksdb

package kv

import (
	"testing"

	"github.com/linxGnu/grocksdb"
)

func BenchmarkReadRandomRocksDB(b *testing.B) {
	dir, cfg := loadForBench(b, "rocksdb")
	bare := func() float64 {
		// The table options of kvdriver's RocksDB under the byrx setup.
		o := cfg.EngineOptions(ReadRandom)
		cache := grocksdb.NewLRUCache(uint64(o.CacheBytes))
		defer cache.Destroy()
		table := grocksdb.NewDefaultBlockBasedTableOptions()
		defer table.Destroy()
		table.SetBlockCache(cache)
		table.SetBlockSize(8 << 10)
		table.SetFilterPolicy(grocksdb.NewBloomFilterFull(10))
		table.SetPinL0FilterAndIndexBlocksInCache(true)
		opts := grocksdb.NewDefaultOptions()
		defer opts.Destroy()
		opts.SetBlockBasedTableFactory(table)
		opts.EnableStatistics() // as kvdriver's, so both pay for the same tickers
		db, err := grocksdb.OpenDb(opts, dir)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		ro := grocksdb.NewDefaultReadOptions()
		defer ro.Destroy()
		return bareLoop(b, cfg, func(key []byte) error {
			s, err := db.GetPinned(ro, key)
			if err != nil {
				return err
			}
			s.Destroy()
			return nil
		})
	}
	compareReadRandom(b, func() float64 { return benchDbperf(b, "rocksdb", dir, cfg) }, bare)
}

//go:build rocksdb

package kv

import "testing"

func BenchmarkReadRandomRocksDB(b *testing.B) {
	dir, cfg := loadForBench(b, "rocksdb")
	compareReadRandom(b, func() float64 { return benchDbperf(b, "rocksdb", dir, cfg) },
		func() float64 { return bareEngine(b, "rocksdb", dir, cfg) })
}

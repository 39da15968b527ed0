//go:build rocksdb

package kv_test

// withRocksDB: this test binary has the RocksDB engine (built with -tags rocksdb).
const withRocksDB = true

//go:build !rocksdb

package kv_test

// withRocksDB: this test binary has no RocksDB engine (built without -tags rocksdb).
const withRocksDB = false

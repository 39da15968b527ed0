//go:build rocksdb

package ycsbdb_test

import (
	"path/filepath"
	"testing"
)

// TestWorkloadsOnRocksDB runs workloads a to f on RocksDB (built with -tags rocksdb, as
// scripts/test.sh's tagged go test line does) with the checks of TestWorkloadsOnEveryTarget.
func TestWorkloadsOnRocksDB(t *testing.T) {
	runWorkloads(t, "rocksdb:"+filepath.Join(t.TempDir(), "ycsb"))
}

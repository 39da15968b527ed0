//go:build rocksdb

package kvdriver

// db_bench's readrandom and multireadrandom read loops in C++ (rocksdb_shim.cc), one cgo call
// for a whole run, on the handles the engine's Get and MultiGet use: BenchmarkRocksNative
// (internal/workload/kv) sets them beside the same reads through the binding, in one process on
// one database, to split dbperf's gap to db_bench into RocksDB's part and the binding's.

/*
#cgo LDFLAGS: -lrocksdb
#include <stdint.h>
#include "rocksdb/c.h"

int64_t dbperf_native_gets(rocksdb_t* db, const rocksdb_readoptions_t* ro, uint64_t n, uint64_t num,
		size_t key_size, uint64_t seed, uint64_t* bytes, char** err);
int64_t dbperf_native_multi_gets(rocksdb_t* db, const rocksdb_readoptions_t* ro, uint64_t n, size_t batch,
		uint64_t num, size_t key_size, uint64_t seed, char** err);
*/
import "C"

import "errors"

// NativeReads is the ability of an engine to run db_bench's read loops natively: RocksDB's.
type NativeReads interface {
	// NativeGets does n Gets of keys drawn as db_bench's readrandom draws them (seeded with seed,
	// uniform over num keys of keySize bytes) and returns the keys found.
	NativeGets(n, num uint64, keySize int, seed uint64) (int64, error)
	// NativeMultiGets does n batched MultiGets of batch such keys each and returns the keys found.
	NativeMultiGets(n uint64, batch int, num uint64, keySize int, seed uint64) (int64, error)
}

var _ NativeReads = (*rocksEngine)(nil)

// errNativeKey: db_bench's keys start with the key number's 8 bytes.
var errNativeKey = errors.New("rocksdb: native reads need keys of at least 8 bytes")

func (e *rocksEngine) NativeGets(n, num uint64, keySize int, seed uint64) (int64, error) {
	if keySize < 8 || num == 0 {
		return 0, errNativeKey
	}
	var bytes C.uint64_t
	var cErr *C.char
	found := C.dbperf_native_gets(e.fast.db, e.fast.ro, C.uint64_t(n), C.uint64_t(num), C.size_t(keySize),
		C.uint64_t(seed), &bytes, &cErr)
	if found < 0 {
		return 0, cError(cErr)
	}
	return int64(found), nil
}

func (e *rocksEngine) NativeMultiGets(n uint64, batch int, num uint64, keySize int, seed uint64) (int64, error) {
	if keySize < 8 || num == 0 {
		return 0, errNativeKey
	}
	if batch < 1 {
		return 0, errors.New("rocksdb: a native MultiGet batch needs at least one key")
	}
	var cErr *C.char
	found := C.dbperf_native_multi_gets(e.fast.db, e.fast.ro, C.uint64_t(n), C.size_t(batch), C.uint64_t(num),
		C.size_t(keySize), C.uint64_t(seed), &cErr)
	if found < 0 {
		return 0, cError(cErr)
	}
	return int64(found), nil
}

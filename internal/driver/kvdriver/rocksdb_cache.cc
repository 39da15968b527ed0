//go:build rocksdb

// RocksDB 7.8's C API makes an LRU cache only with the library's default high-priority pool
// (high_pri_pool_ratio 0.5, include/rocksdb/cache.h), where db_bench builds its block cache with
// --cache_high_pri_pool_ratio, default 0 (tools/db_bench_tool.cc): one C++ call makes the cache
// the reference uses, wrapped as the C API wraps its own (db/c.cc's rocksdb_cache_t), so that
// rocksdb_block_based_options_set_block_cache and rocksdb_cache_destroy take it.

#include <memory>
#include "rocksdb/cache.h"
#include "rocksdb/c.h"

struct rocksdb_cache_t {
  std::shared_ptr<rocksdb::Cache> rep;
};

extern "C" rocksdb_cache_t* dbperf_lru_cache(size_t capacity, int shard_bits, double high_pri_pool_ratio) {
  auto* c = new rocksdb_cache_t;
  c->rep = rocksdb::NewLRUCache(capacity, shard_bits, false, high_pri_pool_ratio);
  return c;
}

// dbperf_cache_options copies the cache's printable options (its capacity, shard bits and pool
// ratios) into buf, NUL-terminated, and returns their full length.
extern "C" size_t dbperf_cache_options(rocksdb_cache_t* c, char* buf, size_t cap) {
  std::string s = c->rep->GetPrintableOptions();
  if (cap > 0) {
    size_t n = s.size() < cap - 1 ? s.size() : cap - 1;
    s.copy(buf, n);
    buf[n] = '\0';
  }
  return s.size();
}

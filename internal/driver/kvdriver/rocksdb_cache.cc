//go:build rocksdb

// RocksDB 7.8's C API makes an LRU cache only with the library's default high-priority pool
// (high_pri_pool_ratio 0.5, include/rocksdb/cache.h), where db_bench builds its block cache with
// --cache_high_pri_pool_ratio, default 0 (tools/db_bench_tool.cc): one C++ call makes the cache
// the reference uses, wrapped as the C API wraps its own (db/c.cc's rocksdb_cache_t), so that
// rocksdb_block_based_options_set_block_cache and rocksdb_cache_destroy take it.

#include <memory>
#include "rocksdb/cache.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
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

// The C API's wrappers of the options (db/c.cc), to set what it has no setter for.
struct rocksdb_options_t {
  rocksdb::Options rep;
};
struct rocksdb_block_based_table_options_t {
  rocksdb::BlockBasedTableOptions rep;
};

// dbperf_dbbench_defaults sets the defaults of db_bench 7.8.3's flags that differ from the
// library's and that the C API cannot set: --delayed_write_rate 8 MiB/s,
// --hard_pending_compaction_bytes_limit 128 GiB, --index_shortening_mode 2
// (kShortenSeparatorsAndSuccessor) and --pin_top_level_index_and_filter false.
extern "C" void dbperf_dbbench_defaults(rocksdb_options_t* o, rocksdb_block_based_table_options_t* t) {
  o->rep.delayed_write_rate = 8 << 20;
  o->rep.hard_pending_compaction_bytes_limit = 128ull << 30;
  t->rep.index_shortening = rocksdb::BlockBasedTableOptions::IndexShorteningMode::kShortenSeparatorsAndSuccessor;
  t->rep.pin_top_level_index_and_filter = false;
}

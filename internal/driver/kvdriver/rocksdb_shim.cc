//go:build rocksdb

// What RocksDB 7.8's C API cannot do, or does with an allocation per call that db_bench's C++
// calls do not make, done in C++ against the same library:
//   - the block cache db_bench makes: the C API's LRU cache has the library's high-priority
//     pool (high_pri_pool_ratio 0.5, include/rocksdb/cache.h), db_bench's
//     --cache_high_pri_pool_ratio defaults to 0 (tools/db_bench_tool.cc);
//   - four options whose db_bench defaults differ from the library's and have no C setter;
//   - Get and MultiGet into PinnableSlices the caller owns, where rocksdb_get_pinned and
//     rocksdb_batched_multi_get_cf allocate one per key and call;
//   - db_bench's read loops, native, for BenchmarkRocksNative (at the end).
// The C API's handles are wrapped as db/c.cc wraps them (its rocksdb_cache_t and options
// structs), or read through their first member (the DB, ReadOptions and column family handle).

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>
#include "rocksdb/cache.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/db.h"
#include "rocksdb/perf_level.h"
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

// The handles' first members (db/c.cc: rocksdb_t { DB* rep; }, rocksdb_readoptions_t
// { ReadOptions rep; ... }, rocksdb_column_family_handle_t { ColumnFamilyHandle* rep; }).
static rocksdb::DB* db_of(rocksdb_t* d) { return *reinterpret_cast<rocksdb::DB**>(d); }
static const rocksdb::ReadOptions& ro_of(const rocksdb_readoptions_t* r) {
  return *reinterpret_cast<const rocksdb::ReadOptions*>(r);
}
static rocksdb::ColumnFamilyHandle* cf_of(rocksdb_column_family_handle_t* c) {
  return *reinterpret_cast<rocksdb::ColumnFamilyHandle**>(c);
}

static char* error_text(const rocksdb::Status& s) { return strdup(s.ToString().c_str()); }

// dbperf_cpp_get reads key into a PinnableSlice on the stack, as db_bench's readrandom does,
// and copies the value into buf when it fits (*n is its length either way; cap 0 copies
// nothing): 1 found, 0 absent, -1 on error (*err is malloc'd).
extern "C" int dbperf_cpp_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, const char* k, size_t klen,
                              char* buf, size_t cap, size_t* n, char** err) {
  rocksdb::DB* d = db_of(db);
  rocksdb::PinnableSlice v;
  rocksdb::Status s = d->Get(ro_of(ro), d->DefaultColumnFamily(), rocksdb::Slice(k, klen), &v);
  if (s.IsNotFound()) return 0;
  if (!s.ok()) {
    *err = error_text(s);
    return -1;
  }
  *n = v.size();
  if (v.size() > 0 && v.size() <= cap) memcpy(buf, v.data(), v.size());
  return 1;
}

// dbperf_cpp_multi_get reads n keys (back to back in keys, lengths in klens; n <= 64) with the
// batched MultiGet into the calling thread's own PinnableSlices (db_bench keeps one vector a
// thread) and copies the values found back to back into buf while they fit (cap 0: none);
// vlens[i] is a value's length or (size_t)-1 when absent, *used the bytes all values need. It
// returns the keys found, or -1 on error (*err is malloc'd).
extern "C" int dbperf_cpp_multi_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, rocksdb_column_family_handle_t* cf,
                                    size_t n, const char* keys, const size_t* klens, char* buf, size_t cap,
                                    size_t* vlens, size_t* used, char** err) {
  static thread_local rocksdb::PinnableSlice values[64];
  rocksdb::Slice ks[64];
  rocksdb::Status st[64];
  if (n > 64) {
    *err = strdup("dbperf_cpp_multi_get: more than 64 keys in a batch");
    return -1;
  }
  size_t off = 0;
  for (size_t i = 0; i < n; i++) {
    ks[i] = rocksdb::Slice(keys + off, klens[i]);
    off += klens[i];
  }
  db_of(db)->MultiGet(ro_of(ro), cf_of(cf), n, ks, values, st, false);
  int found = 0;
  *used = 0;
  for (size_t i = 0; i < n; i++) {
    vlens[i] = (size_t)-1;
    if (st[i].ok()) {
      size_t vl = values[i].size();
      if (vl > 0 && *used + vl <= cap) memcpy(buf + *used, values[i].data(), vl);
      *used += vl;
      vlens[i] = vl;
      found++;
    } else if (!st[i].IsNotFound() && *err == nullptr) {
      *err = error_text(st[i]);
    }
    values[i].Reset();
  }
  return *err != nullptr ? -1 : found;
}

// The native loops of BenchmarkRocksNative (rocksdb_native.go): db_bench's readrandom and
// multireadrandom --multiread_batched read loops (tools/db_bench_tool.cc 7.8.3, ReadRandom and
// MultiReadRandom) without their clock reads and histogram, on the handles dbperf's Get uses, so
// that the benchmark can set RocksDB's own cost in this process beside the binding's. Keys are
// drawn as db_bench's GetRandomKey (Random64, a std::mt19937_64, modulo num) and made as its
// GenerateKeyFromInt (8 bytes big-endian, then '0' up to key_size; key_size >= 8).
static void native_key(uint64_t v, char* key, size_t key_size) {
  for (int i = 0; i < 8; i++) key[i] = (char)((v >> ((7 - i) * 8)) & 0xff);
  memset(key + 8, '0', key_size - 8);
}

// dbperf_native_gets does n Gets into one PinnableSlice, reset before each read, and returns the
// keys found (*bytes: their keys' and values' bytes), or -1 on error (*err is malloc'd).
extern "C" int64_t dbperf_native_gets(rocksdb_t* db, const rocksdb_readoptions_t* ro, uint64_t n, uint64_t num,
                                      size_t key_size, uint64_t seed, uint64_t* bytes, char** err) {
  rocksdb::SetPerfLevel(rocksdb::kDisable); // db_bench's --perf_level=1
  rocksdb::DB* d = db_of(db);
  const rocksdb::ReadOptions& opts = ro_of(ro);
  std::mt19937_64 rng(seed);
  std::string buf(key_size, '0');
  rocksdb::Slice key(buf.data(), key_size);
  rocksdb::PinnableSlice v;
  int64_t found = 0;
  *bytes = 0;
  for (uint64_t i = 0; i < n; i++) {
    native_key(rng() % num, &buf[0], key_size);
    v.Reset();
    rocksdb::Status s = d->Get(opts, d->DefaultColumnFamily(), key, &v);
    if (s.ok()) {
      found++;
      *bytes += key.size() + v.size();
    } else if (!s.IsNotFound()) {
      *err = error_text(s);
      return -1;
    }
  }
  return found;
}

// dbperf_native_multi_gets does n batched MultiGets of batch keys each and returns the keys found,
// or -1 on error (*err is malloc'd).
extern "C" int64_t dbperf_native_multi_gets(rocksdb_t* db, const rocksdb_readoptions_t* ro, uint64_t n, size_t batch,
                                            uint64_t num, size_t key_size, uint64_t seed, char** err) {
  rocksdb::SetPerfLevel(rocksdb::kDisable);
  rocksdb::DB* d = db_of(db);
  const rocksdb::ReadOptions& opts = ro_of(ro);
  std::mt19937_64 rng(seed);
  std::vector<std::string> bufs(batch, std::string(key_size, '0'));
  std::vector<rocksdb::Slice> keys;
  for (auto& b : bufs) keys.emplace_back(b.data(), key_size);
  std::vector<rocksdb::PinnableSlice> values(batch);
  std::vector<rocksdb::Status> st(batch);
  int64_t found = 0;
  for (uint64_t i = 0; i < n; i++) {
    for (size_t j = 0; j < batch; j++) native_key(rng() % num, &bufs[j][0], key_size);
    d->MultiGet(opts, d->DefaultColumnFamily(), batch, keys.data(), values.data(), st.data());
    for (size_t j = 0; j < batch; j++) {
      if (st[j].ok()) {
        found++;
      } else if (!st[j].IsNotFound()) {
        *err = error_text(st[j]);
        return -1;
      }
      st[j] = rocksdb::Status::OK();
      values[j].Reset();
    }
  }
  return found;
}

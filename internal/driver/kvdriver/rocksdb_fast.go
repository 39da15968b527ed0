//go:build rocksdb

package kvdriver

// The hot path: each Get, Put, MultiGet and bounded scan is one cgo call into a small C function
// here, which calls RocksDB's C API (or, for Get and MultiGet, its C++ API in rocksdb_shim.cc,
// which needs no allocation per key) as often as the operation needs and copies the results into
// a Go buffer (GetLen and MultiGetLen: only the values' lengths, as the read steps count them).
// grocksdb's own calls cost more transitions: a Get is three (get_pinned, value,
// destroy), a put through a batch four, a scan five per entry (valid, key, value, next and the
// iterator's create and destroy), and its MultiGet is the unbatched rocksdb_multi_get with a C
// allocation per key. docs/performance.md ("RocksDB beside db_bench") has the figures.

/*
#cgo LDFLAGS: -lrocksdb
#cgo noescape dbperf_get
#cgo nocallback dbperf_get
#cgo noescape dbperf_put
#cgo nocallback dbperf_put
#cgo noescape dbperf_multi_get
#cgo nocallback dbperf_multi_get
#cgo noescape dbperf_scan
#cgo nocallback dbperf_scan
#cgo nocallback dbperf_noop
#include <stdlib.h>
#include <string.h>
#include "rocksdb/c.h"

rocksdb_cache_t* dbperf_lru_cache(size_t capacity, int shard_bits, double high_pri_pool_ratio);
size_t dbperf_cache_options(rocksdb_cache_t* c, char* buf, size_t cap);
void dbperf_dbbench_defaults(rocksdb_options_t* o, rocksdb_block_based_table_options_t* t);
int dbperf_cpp_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, const char* k, size_t klen,
		char* buf, size_t cap, size_t* n, char** err);
int dbperf_cpp_multi_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, rocksdb_column_family_handle_t* cf,
		size_t n, const char* keys, const size_t* klens, char* buf, size_t cap, size_t* vlens, size_t* used,
		char** err);

// dbperf_res is every helper's answer, returned by value: an out-parameter for the error would
// be a pointer to a pointer, which cgo checks on every call.
typedef struct {
	int rc;
	size_t n;
	char* err;
	rocksdb_iterator_t* it;
} dbperf_res;

// db_bench runs with perf counters off (--perf_level=1); the library's default counts, per
// thread. Each thread that calls in turns them off once.
static __thread int dbperf_perf_off;
static inline void dbperf_thread(int off) {
	if (off && !dbperf_perf_off) {
		rocksdb_set_perf_level(1);
		dbperf_perf_off = 1;
	}
}

// dbperf_get: rc 1 and the value copied into buf when it fits (n is its length either way),
// 0 when the key is absent, -1 on error; the read is C++'s, into a PinnableSlice on the stack
// (rocksdb_shim.cc), as db_bench's.
static dbperf_res dbperf_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, int perf_off,
		const char* k, size_t klen, char* buf, size_t cap) {
	dbperf_res r = {0, 0, NULL, NULL};
	dbperf_thread(perf_off);
	r.rc = dbperf_cpp_get(db, ro, k, klen, buf, cap, &r.n, &r.err);
	return r;
}

static dbperf_res dbperf_put(rocksdb_t* db, const rocksdb_writeoptions_t* wo, int perf_off,
		const char* k, size_t klen, const char* v, size_t vlen) {
	dbperf_res r = {0, 0, NULL, NULL};
	dbperf_thread(perf_off);
	rocksdb_put(db, wo, k, klen, v, vlen, &r.err);
	if (r.err != NULL) r.rc = -1;
	return r;
}

// dbperf_multi_get reads n keys (back to back in keys, lengths in klens) with the batched
// MultiGet (rocksdb_shim.cc) and copies the values found back to back into buf; vlens[i] is a
// value's length, or (size_t)-1 when absent. rc is the keys found, -1 on error, -2 when buf is
// too small (n is the size needed). cap 0 asks for the lengths only.
static dbperf_res dbperf_multi_get(rocksdb_t* db, const rocksdb_readoptions_t* ro,
		rocksdb_column_family_handle_t* cf, int perf_off, size_t n, const char* keys,
		const size_t* klens, char* buf, size_t cap, size_t* vlens) {
	dbperf_res r = {0, 0, NULL, NULL};
	dbperf_thread(perf_off);
	size_t used = 0;
	r.rc = dbperf_cpp_multi_get(db, ro, cf, n, keys, klens, buf, cap, vlens, &used, &r.err);
	if (r.rc >= 0 && cap > 0 && used > cap) {
		r.n = used;
		r.rc = -2;
	}
	return r;
}

// dbperf_scan creates an iterator and seeks (it == NULL: forward Seek, or SeekForPrev when
// reverse), or goes on with it, then copies up to want entries into buf (key, value, back to
// back; lens[2i], lens[2i+1] their lengths), stepping after each, stopping at the first key at
// or above upper (forward, when ulen > 0). rc is the entries copied, or -1 on error. r.it is
// the iterator when entries are left that did not fit into buf (none did: rc 0, n the bytes
// needed), or that the caller wants after want (keep); call again with it. Else the iterator is
// destroyed and r.it is NULL.
static dbperf_res dbperf_scan(rocksdb_t* db, const rocksdb_readoptions_t* ro, rocksdb_iterator_t* it,
		int perf_off, int reverse, const char* seek, size_t slen, const char* upper, size_t ulen,
		int want, int keep, char* buf, size_t cap, size_t* lens) {
	dbperf_res r = {0, 0, NULL, NULL};
	dbperf_thread(perf_off);
	if (it == NULL) {
		it = rocksdb_create_iterator(db, ro);
		if (reverse) rocksdb_iter_seek_for_prev(it, seek, slen);
		else if (slen > 0) rocksdb_iter_seek(it, seek, slen);
		else rocksdb_iter_seek_to_first(it);
	}
	int n = 0;
	size_t used = 0;
	while (n < want && rocksdb_iter_valid(it)) {
		size_t kl, vl;
		const char* k = rocksdb_iter_key(it, &kl);
		if (!reverse && ulen > 0) {
			int c = memcmp(k, upper, kl < ulen ? kl : ulen);
			if (c > 0 || (c == 0 && kl >= ulen)) break;
		}
		const char* v = rocksdb_iter_value(it, &vl);
		if (used + kl + vl > cap) {
			r.n = kl + vl; // with rc 0: not even one entry fits
			r.rc = n;
			r.it = it;
			return r;
		}
		memcpy(buf + used, k, kl);
		memcpy(buf + used + kl, v, vl);
		used += kl + vl;
		lens[2 * n] = kl;
		lens[2 * n + 1] = vl;
		n++;
		if (reverse) rocksdb_iter_prev(it); else rocksdb_iter_next(it);
	}
	r.rc = n;
	if (n == want && keep && rocksdb_iter_valid(it)) {
		r.it = it;
		return r;
	}
	rocksdb_iter_get_error(it, &r.err);
	rocksdb_iter_destroy(it);
	if (r.err != NULL) r.rc = -1;
	return r;
}

static void dbperf_iter_destroy(rocksdb_iterator_t* it) { rocksdb_iter_destroy(it); }

// dbperf_noop measures a cgo transition alone (BenchmarkRocksBinding).
static void dbperf_noop(void) {}
*/
import "C"

import (
	"errors"
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// rocksHandles are the C handles behind grocksdb's objects. grocksdb v1.7.14 keeps each one as
// its object's first field (db.go:23-24, options_read.go:24-25, options_write.go:8-9,
// cf_handle.go:8-9) and has no accessor; TestRocksHandles checks that they are what they seem.
type rocksHandles struct {
	db      *C.rocksdb_t
	ro      *C.rocksdb_readoptions_t
	wo      *C.rocksdb_writeoptions_t
	cf      *C.rocksdb_column_family_handle_t
	perfOff C.int
}

// firstField reads the C pointer a grocksdb object keeps first.
func firstField[T any](p *T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(p)) }

func newRocksHandles(e *rocksEngine, perfOff bool) rocksHandles {
	h := rocksHandles{db: (*C.rocksdb_t)(firstField(e.db)), ro: (*C.rocksdb_readoptions_t)(firstField(e.ro)),
		wo: (*C.rocksdb_writeoptions_t)(firstField(e.wo)), cf: (*C.rocksdb_column_family_handle_t)(firstField(e.cf))}
	if perfOff {
		h.perfOff = 1
	}
	return h
}

func (h *rocksHandles) close() { *h = rocksHandles{} }

// setLRUCache makes the block cache as db_bench does, with no high-priority pool
// (rocksdb_shim.cc), and sets it on table; destroyCache frees it once the database is closed.
func setLRUCache(table *grocksdb.BlockBasedTableOptions, capacity int64, shardBits int) unsafe.Pointer {
	c := C.dbperf_lru_cache(C.size_t(capacity), C.int(shardBits), 0)
	C.rocksdb_block_based_options_set_block_cache((*C.rocksdb_block_based_table_options_t)(firstField(table)), c)
	return unsafe.Pointer(c)
}

// setDBBenchDefaults sets what db_bench's flags default to where the library's defaults differ
// and the C API has no setter (rocksdb_shim.cc).
func setDBBenchDefaults(opts *grocksdb.Options, table *grocksdb.BlockBasedTableOptions) {
	C.dbperf_dbbench_defaults((*C.rocksdb_options_t)(firstField(opts)),
		(*C.rocksdb_block_based_table_options_t)(firstField(table)))
}

func destroyCache(c unsafe.Pointer) { C.rocksdb_cache_destroy((*C.rocksdb_cache_t)(c)) }

// cacheUsage is the bytes the block cache holds.
func cacheUsage(c unsafe.Pointer) int64 {
	return int64(C.rocksdb_cache_get_usage((*C.rocksdb_cache_t)(c)))
}

// cacheOptions is the block cache's own account of its options (Cache::GetPrintableOptions).
func cacheOptions(c unsafe.Pointer) string {
	buf := make([]byte, 4096)
	n := int(C.dbperf_cache_options((*C.rocksdb_cache_t)(c), cbytes(buf), C.size_t(len(buf))))
	return string(buf[:min(n, len(buf)-1)])
}

// cgoNoop is one cgo call that does nothing: the transition's own cost.
func cgoNoop() { C.dbperf_noop() }

// bindingCallNs is what one call through the binding costs on this machine: the least of three
// batches of 20,000 empty cgo calls, in ns a call, measured once a process (the engine reopens
// for every step). Each Get, Put, MultiGet batch and scan chunk is one such call, so a reader of
// run.json can set it beside the step's CPU per op.
var bindingCallNs = sync.OnceValue(func() float64 {
	const calls = 20000
	best := time.Duration(math.MaxInt64)
	for range 3 {
		t0 := time.Now()
		for range calls {
			C.dbperf_noop()
		}
		best = min(best, time.Since(t0))
	}
	return math.Round(float64(best)/calls*10) / 10
})

// scratch is a client's buffers for one call, pooled: the engine is shared by every client.
type scratch struct {
	buf  []byte
	keys []byte
	lens [2 * scanChunk]C.size_t
}

// scanChunk is how many entries a scan without a limit copies per cgo call.
const scanChunk = 64

var scratchPool = sync.Pool{New: func() any { return &scratch{buf: make([]byte, 64<<10)} }}

func cbytes(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(unsafe.SliceData(b)))
}

func cError(cErr *C.char) error {
	if cErr == nil {
		return nil
	}
	err := errors.New(C.GoString(cErr))
	C.free(unsafe.Pointer(cErr))
	return err
}

// Get is one cgo call: the value is copied out of the pinned block into a pooled buffer.
func (e *rocksEngine) Get(key []byte, fn func([]byte)) (bool, error) {
	h := &e.fast
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	for {
		r := C.dbperf_get(h.db, h.ro, h.perfOff, cbytes(key), C.size_t(len(key)), cbytes(s.buf), C.size_t(len(s.buf)))
		switch {
		case r.rc < 0:
			return false, cError(r.err)
		case r.rc == 0:
			return false, nil
		case int(r.n) > len(s.buf):
			s.buf = make([]byte, 2*int(r.n)) // read again: a value this large is rare
			continue
		}
		fn(s.buf[:r.n])
		return true, nil
	}
}

// GetLen is Get without the value's bytes: one cgo call returns its length, and the value stays
// pinned in RocksDB's block cache, as db_bench's readrandom leaves it (a Go engine's Get hands
// over a view of its memory, with no copy either).
func (e *rocksEngine) GetLen(key []byte) (int, bool, error) {
	h := &e.fast
	r := C.dbperf_get(h.db, h.ro, h.perfOff, cbytes(key), C.size_t(len(key)), nil, 0)
	if r.rc < 0 {
		return 0, false, cError(r.err)
	}
	return int(r.n), r.rc == 1, nil
}

// Put is one rocksdb_put: RocksDB makes the one-entry batch itself.
func (e *rocksEngine) Put(key, value []byte) error {
	h := &e.fast
	if r := C.dbperf_put(h.db, h.wo, h.perfOff, cbytes(key), C.size_t(len(key)), cbytes(value), C.size_t(len(value))); r.rc < 0 {
		return cError(r.err)
	}
	return nil
}

// packKeys puts keys end to end in s.keys, their lengths in klens, for one MultiGet call of at
// most len(klens) keys.
func (s *scratch) packKeys(keys [][]byte, klens *[64]C.size_t) error {
	if len(keys) > len(klens) {
		return errors.New("rocksdb: a MultiGet batch holds at most 64 keys")
	}
	s.keys = s.keys[:0]
	for i, k := range keys {
		s.keys = append(s.keys, k...)
		klens[i] = C.size_t(len(k))
	}
	return nil
}

// MultiGet is RocksDB's batched MultiGet (db_bench --multiread_batched) in one cgo call.
func (e *rocksEngine) MultiGet(keys [][]byte, fn func(i int, v []byte)) (int, error) {
	h := &e.fast
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	var klens, vlens [64]C.size_t
	if err := s.packKeys(keys, &klens); err != nil {
		return 0, err
	}
	for {
		r := C.dbperf_multi_get(h.db, h.ro, h.cf, h.perfOff, C.size_t(len(keys)), cbytes(s.keys), &klens[0],
			cbytes(s.buf), C.size_t(len(s.buf)), &vlens[0])
		if r.rc == -2 {
			s.buf = make([]byte, 2*int(r.n))
			continue
		}
		if r.rc < 0 {
			return 0, cError(r.err)
		}
		off := 0
		for i := range keys {
			if vlens[i] == ^C.size_t(0) {
				continue
			}
			n := int(vlens[i])
			fn(i, s.buf[off:off+n])
			off += n
		}
		return int(r.rc), nil
	}
}

// MultiGetLen is MultiGet without the values' bytes: lens[i] is key i's value length, or -1 when
// it is absent (lens holds at least len(keys)).
func (e *rocksEngine) MultiGetLen(keys [][]byte, lens []int) (int, error) {
	h := &e.fast
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	var klens, vlens [64]C.size_t
	if err := s.packKeys(keys, &klens); err != nil {
		return 0, err
	}
	r := C.dbperf_multi_get(h.db, h.ro, h.cf, h.perfOff, C.size_t(len(keys)), cbytes(s.keys), &klens[0], nil, 0, &vlens[0])
	if r.rc < 0 {
		return 0, cError(r.err)
	}
	for i := range keys {
		lens[i] = -1
		if vlens[i] != ^C.size_t(0) {
			lens[i] = int(vlens[i])
		}
	}
	return int(r.rc), nil
}

func (e *rocksEngine) Scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	return e.scan(false, lower, upper, -1, fn)
}

// ScanReverse is SeekForPrev then Prev: the keys at or below start, descending.
func (e *rocksEngine) ScanReverse(start []byte, fn func(k, v []byte) bool) error {
	return e.scan(true, start, nil, -1, fn)
}

func (e *rocksEngine) ScanLimit(lower, upper []byte, n int, fn func(k, v []byte) bool) error {
	return e.scan(false, lower, upper, n, fn)
}

func (e *rocksEngine) ScanReverseLimit(start []byte, n int, fn func(k, v []byte) bool) error {
	return e.scan(true, start, nil, n, fn)
}

// scan visits up to limit entries (all for a negative limit), a chunk per cgo call: the
// iterator is created, sought, read and destroyed in one call when they fit in the buffer.
func (e *rocksEngine) scan(reverse bool, seek, upper []byte, limit int, fn func(k, v []byte) bool) error {
	h := &e.fast
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	var it *C.rocksdb_iterator_t
	rev := C.int(0)
	if reverse {
		rev = 1
	}
	for limit != 0 {
		want := scanChunk
		if limit > 0 && limit < want {
			want = limit
		}
		keep := C.int(0)
		if limit < 0 || limit > want {
			keep = 1
		}
		r := C.dbperf_scan(h.db, h.ro, it, h.perfOff, rev, cbytes(seek), C.size_t(len(seek)), cbytes(upper),
			C.size_t(len(upper)), C.int(want), keep, cbytes(s.buf), C.size_t(len(s.buf)), &s.lens[0])
		it = r.it
		n := int(r.rc)
		if n < 0 {
			return cError(r.err)
		}
		if n == 0 && it != nil { // one entry larger than the buffer
			s.buf = make([]byte, 2*int(r.n))
			continue
		}
		off := 0
		for i := 0; i < n; i++ {
			kl, vl := int(s.lens[2*i]), int(s.lens[2*i+1])
			if !fn(s.buf[off:off+kl], s.buf[off+kl:off+kl+vl]) {
				limit = 0
				break
			}
			off += kl + vl
		}
		if limit > 0 {
			limit = max(0, limit-n)
		}
		if it == nil {
			return nil
		}
	}
	if it != nil {
		C.dbperf_iter_destroy(it)
	}
	return nil
}

//go:build rocksdb

package kv

import (
	"bytes"
	"context"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
)

// TestRocksReadsCountLengths: on RocksDB the read steps take only the values' lengths (GetLen,
// MultiGetLen) and count exactly the keys found and the bytes of their keys and values, as Get
// would: half the key space is absent and every value has its own length.
func TestRocksReadsCountLengths(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.Seed = 20, 1, 1
	db, err := kvdriver.OpenTuned("rocksdb", t.TempDir(), cfg.EngineOptions(ReadRandom))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	valueLen := func(n uint64) int { return int(n) * 37 } // key 0's value is empty
	for n := uint64(0); n < 10; n++ {                     // keys 10-19 are absent
		if err := db.Put(appendKey(nil, n, cfg.KeySize), bytes.Repeat([]byte{'v'}, valueLen(n))); err != nil {
			t.Fatal(err)
		}
	}
	b := &Bench{cfg: cfg, engine: &targetEngine{db: db}, keys: uniform{uint64(cfg.Keys)},
		vals: valueBuffer(cfg.CompressionRatio, cfg.ValueSize, 1)}
	for _, step := range []string{ReadRandom, MultiReadRandom} {
		st := &stepState{name: step, b: b, db: db}
		c := st.newClient(0)
		do := st.getOp(c)
		if step == MultiReadRandom {
			do = st.multiGetOp(c, db.Engine.(kvdriver.MultiGetter))
		}
		var found, size int64
		for range 30 {
			if _, _, err := do(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			nums := c.nums
			if step == ReadRandom {
				nums = []uint64{c.keyNum}
			}
			for _, n := range nums {
				if n < 10 {
					found++
					size += int64(cfg.KeySize + valueLen(n))
				}
			}
		}
		if c.found != found || c.bytes != size || found == 0 || found == c.ops {
			t.Errorf("%s: %d of %d keys found, %d bytes; want %d found (some, not all), %d bytes",
				step, c.found, c.ops, c.bytes, found, size)
		}
	}
}

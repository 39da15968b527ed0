//go:build rocksdb

package kvdriver

import (
	"encoding/binary"
	"testing"
)

// dbBenchKey is key number n as db_bench makes it: 8 bytes big-endian, then '0' up to size.
func dbBenchKey(n uint64, size int) []byte {
	k := binary.BigEndian.AppendUint64(nil, n)
	for len(k) < size {
		k = append(k, '0')
	}
	return k
}

// TestRocksNativeReads: the native loops read the keys db_bench would (its key format, numbers
// below num), find what is there and nothing else, and refuse keys too short for the format.
func TestRocksNativeReads(t *testing.T) {
	eng, err := openRocksDB(t.TempDir(), Options{LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*rocksEngine)
	for _, n := range []uint64{0, 1, 3} { // keys 0, 1 and 3 of 20 bytes; 2 is absent
		if err := e.Put(dbBenchKey(n, 20), []byte("value")); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := e.NativeGets(100, 2, 20, 7); got != 100 || err != nil {
		t.Errorf("NativeGets over keys 0 and 1 (both there) found %d of 100, err %v", got, err)
	}
	if got, err := e.NativeMultiGets(10, 10, 2, 20, 7); got != 100 || err != nil {
		t.Errorf("NativeMultiGets over keys 0 and 1 found %d of 100, err %v", got, err)
	}
	// Over keys 0-3, key 2 is absent: some reads miss, and the same seed misses as often twice.
	a, errA := e.NativeGets(1000, 4, 20, 7)
	b, errB := e.NativeGets(1000, 4, 20, 7)
	if errA != nil || errB != nil || a <= 0 || a >= 1000 || a != b {
		t.Errorf("NativeGets over keys 0-3 found %d and %d of 1000 (%v, %v): want the same count, some misses", a, b, errA, errB)
	}
	m, err := e.NativeMultiGets(100, 10, 4, 20, 7)
	if err != nil || m <= 0 || m >= 1000 {
		t.Errorf("NativeMultiGets over keys 0-3 found %d of 1000 (%v): want some misses", m, err)
	}
	// Keys of 24 bytes are other keys than those of 20: none is there.
	if got, err := e.NativeGets(100, 2, 24, 7); got != 0 || err != nil {
		t.Errorf("NativeGets of 24-byte keys found %d, err %v: want none", got, err)
	}
	if _, err := e.NativeGets(1, 2, 4, 7); err == nil {
		t.Error("NativeGets of 4-byte keys: no error")
	}
	if _, err := e.NativeMultiGets(1, 0, 2, 20, 7); err == nil {
		t.Error("NativeMultiGets of empty batches: no error")
	}
}

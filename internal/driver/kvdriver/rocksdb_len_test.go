//go:build rocksdb

package kvdriver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// GetLen and MultiGetLen: the contracts TestRocksValueLengths leaves out
// (values read from a table rather than the memtable, tombstones, duplicate keys, a batch of
// none and of exactly 64, read errors, pinned blocks released).

func lenKey(i int) []byte { return []byte(fmt.Sprintf("key%05d", i)) }

func lenVal(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, (i*37)%900) }

// lenRocks opens RocksDB at dir with n keys written and flushed into a table, key 3 deleted
// after the flush (a tombstone in the memtable over a value in the table).
func lenRocks(t *testing.T, dir string, n int) *rocksEngine {
	t.Helper()
	eng, err := openRocksDB(dir, Options{Compression: "none", LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	e := eng.(*rocksEngine)
	for i := range n {
		if err := e.Put(lenKey(i), lenVal(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRocksLenEdges: lengths read from a table agree with Get, a deleted key is absent
// (not its old length), and a batch with duplicate keys, with none, and with exactly 64 keys
// answers per key. Pinned blocks are released after every call: the block cache holds no
// pinned bytes afterwards.
func TestRocksLenEdges(t *testing.T) {
	e := lenRocks(t, t.TempDir(), 2000)
	defer e.Close()
	pinned0, _ := e.db.GetIntProperty("rocksdb.block-cache-pinned-usage")
	if err := e.Write(func(w Writer) error { return w.Delete(lenKey(3)) }); err != nil {
		t.Fatal(err)
	}
	want := func(k []byte) int { // Get's answer as a length, -1 when absent
		n := -1
		if found, err := e.Get(k, func(v []byte) { n = len(v) }); err != nil || (!found && n != -1) {
			t.Fatalf("Get(%s): %v, %v", k, found, err)
		}
		return n
	}
	for _, i := range []int{0, 1, 3, 27, 1999, 2000} {
		n, found, err := e.GetLen(lenKey(i))
		w := want(lenKey(i))
		if err != nil || found != (w >= 0) || (found && n != w) {
			t.Errorf("GetLen(%s) = %d, %v, %v; Get says length %d", lenKey(i), n, found, err, w)
		}
	}
	batches := map[string][][]byte{
		"duplicates": {lenKey(5), lenKey(5), lenKey(3), lenKey(3), []byte("absent"), []byte("absent"), lenKey(0), lenKey(5)},
		"none":       {},
	}
	var full [][]byte
	for i := range 64 {
		full = append(full, lenKey(i*31))
	}
	batches["64 keys"] = full
	for name, keys := range batches {
		lens := make([]int, len(keys))
		found, err := e.MultiGetLen(keys, lens)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		wantFound := 0
		for i, k := range keys {
			w := want(k)
			if lens[i] != w {
				t.Errorf("%s: key %d (%s) length %d, Get says %d", name, i, k, lens[i], w)
			}
			if w >= 0 {
				wantFound++
			}
		}
		if found != wantFound {
			t.Errorf("%s: found %d, want %d", name, found, wantFound)
		}
	}
	for range 1000 {
		e.GetLen(lenKey(7))
		e.MultiGetLen(full, make([]int, 64))
	}
	// The control: a block pinned by grocksdb's own PinnableSlice shows until it is destroyed.
	h, err := e.db.GetPinned(e.ro, lenKey(1500))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := e.db.GetIntProperty("rocksdb.block-cache-pinned-usage"); p <= pinned0 {
		t.Errorf("pinned usage %d with a block pinned, %d before: the property does not show pins", p, pinned0)
	}
	h.Destroy()
	if p, ok := e.db.GetIntProperty("rocksdb.block-cache-pinned-usage"); !ok || p != pinned0 {
		t.Errorf("block cache pinned usage %d (%v) after the reads, %d before: a PinnableSlice was not reset", p, ok, pinned0)
	}
}

// TestRocksLenCorruption: a table block that fails its checksum is an error from GetLen
// and MultiGetLen, as from grocksdb's own Get, never a miss.
func TestRocksLenCorruption(t *testing.T) {
	dir := t.TempDir()
	e := lenRocks(t, dir, 2000)
	e.Close()
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(ssts) != 1 {
		t.Fatalf("%d tables, want 1", len(ssts))
	}
	b, err := os.ReadFile(ssts[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < 200; i++ { // inside the first data block (key00000's)
		b[i] ^= 0xff
	}
	if err := os.WriteFile(ssts[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := openRocksDB(dir, Options{Compression: "none", LSM: LSM{DBBenchDefaults: true}})
	if err != nil {
		t.Fatal(err)
	}
	e = eng.(*rocksEngine)
	defer e.Close()
	k := lenKey(1)
	if _, err := e.db.Get(e.ro, k); err == nil {
		t.Fatal("grocksdb's Get of a key in the corrupted block: no error; the corruption missed the block")
	}
	if n, found, err := e.GetLen(k); err == nil {
		t.Errorf("GetLen of a key in a corrupted block = %d, %v, no error", n, found)
	}
	lens := make([]int, 3)
	if found, err := e.MultiGetLen([][]byte{lenKey(1999), k, []byte("absent")}, lens); err == nil {
		t.Errorf("MultiGetLen with a key in a corrupted block: found %d, lengths %v, no error", found, lens)
	}
	// Each failed read hands over a malloc'd error text (over 100 bytes): freed, 100,000 of
	// them leave the process's resident memory where it was; kept, they would add 17 MB.
	rss := func() int64 {
		debug.FreeOSMemory() // the Go errors made from the texts are garbage, not a leak
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			t.Skip("no /proc/self/statm")
		}
		var size, res int64
		fmt.Sscan(string(b), &size, &res)
		return res * int64(os.Getpagesize())
	}
	keys := [][]byte{k}
	for range 2000 { // warm: RocksDB's and malloc's own buffers
		e.GetLen(k)
		e.MultiGetLen(keys, lens)
	}
	before := rss()
	for range 50000 {
		e.GetLen(k)
		e.MultiGetLen(keys, lens)
	}
	_, _, gerr := e.GetLen(k)
	grew := rss() - before
	t.Logf("error text %d bytes; resident memory grew %d KiB", len(gerr.Error()), grew>>10)
	if grew > 8<<20 {
		t.Errorf("resident memory grew %d KiB over 100,000 failed reads: the error texts leak", grew>>10)
	}
}

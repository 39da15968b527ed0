package kvdriver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
)

// TestReopen: every tuned engine keeps its writes across a reopen with other options (also
// without a WAL), scans in both directions, and records the options it was given.
func TestReopen(t *testing.T) {
	kinds := []string{"pebble", "badger", "bbolt", "sqlite"}
	if _, ok := tuned["rocksdb"]; ok {
		kinds = append(kinds, "rocksdb")
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			o := Options{DisableWAL: true, CacheBytes: 8 << 20, MemtableBytes: 4 << 20, Compression: "lz4", Setup: "test"}
			db, err := OpenTuned(kind, filepath.Join(t.TempDir(), "db"), o)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, k := range []string{"a", "b", "c"} {
				if err := db.Write(func(w Writer) error { return w.Set([]byte(k), []byte("v"+k)) }); err != nil {
					t.Fatal(err)
				}
			}
			o.DisableWAL, o.Sync = false, true
			if err := db.Reopen(o); err != nil {
				t.Fatal(err)
			}
			var fwd, rev []string
			if err := db.Scan(nil, nil, func(k, _ []byte) bool { fwd = append(fwd, string(k)); return true }); err != nil {
				t.Fatal(err)
			}
			rs, ok := db.Engine.(ReverseScanner)
			if !ok {
				t.Fatal("no reverse scans")
			}
			if err := rs.ScanReverse([]byte("bb"), func(k, _ []byte) bool { rev = append(rev, string(k)); return true }); err != nil {
				t.Fatal(err)
			}
			if strings.Join(fwd, "") != "abc" || strings.Join(rev, "") != "ba" {
				t.Fatalf("after reopen: forward %v, reverse from bb %v", fwd, rev)
			}
			if s := db.Engine.Settings(); s["setup"] != "test" || s["sync_writes"] != true {
				t.Errorf("settings do not record the options: %v", s)
			}
			if mg, ok := db.Engine.(MultiGetter); ok && kind == "rocksdb" {
				keys := [][]byte{[]byte("a"), []byte("x"), []byte("c")}
				if n, err := mg.MultiGet(keys, func(int, []byte) {}); err != nil || n != 2 {
					t.Errorf("MultiGet found %d (%v), want 2", n, err)
				}
			}
		})
	}
}

// TestRocksDBWithoutTag: a binary built without the tag lists rocksdb and says how to get it.
func TestRocksDBWithoutTag(t *testing.T) {
	if _, ok := tuned["rocksdb"]; ok {
		t.Skip("built with -tags rocksdb")
	}
	_, err := driver.Open(context.Background(), driver.Spec{Kind: "rocksdb"})
	if err == nil || !strings.Contains(err.Error(), "-tags rocksdb") {
		t.Fatalf("opening rocksdb without the tag: %v", err)
	}
}

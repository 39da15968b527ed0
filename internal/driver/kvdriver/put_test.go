package kvdriver

import (
	"path/filepath"
	"testing"
)

// TestPutKeepsNoBuffer: bbolt's and Badger's Put hand the caller's key and value to the engine
// without copies, which is right only if the engine keeps no reference once Put returns: the
// workload overwrites both buffers for the next put. Each put here is followed by a scribble
// over its buffers; every key must then still read back its own value.
func TestPutKeepsNoBuffer(t *testing.T) {
	for _, kind := range []string{"bbolt", "badger"} {
		t.Run(kind, func(t *testing.T) {
			db, err := OpenTuned(kind, filepath.Join(t.TempDir(), "db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, ok := db.Engine.(Putter); !ok {
				t.Fatalf("%s has no Put: every put goes through a Write and its copies", kind)
			}
			key, val := make([]byte, 8), make([]byte, 100) // 100 bytes: past Badger's value threshold
			for i := range 200 {
				fill(key, byte(i))
				fill(val, byte(i))
				if err := db.Put(key, val); err != nil {
					t.Fatal(err)
				}
				fill(key, 0xff)
				fill(val, 0xff)
			}
			for i := range 200 {
				fill(key, byte(i))
				var got []byte
				found, err := db.Get(key, func(v []byte) { got = append(got[:0], v...) })
				if err != nil || !found {
					t.Fatalf("key %d: found %v, %v", i, found, err)
				}
				if len(got) != len(val) || got[0] != byte(i) || got[len(got)-1] != byte(i) {
					t.Fatalf("key %d reads %d bytes starting %#x, want %d bytes of %#x", i, len(got), got[0], len(val), i)
				}
			}
			fill(key, 0xff)
			if found, err := db.Get(key, func([]byte) {}); err != nil || found {
				t.Fatalf("the scribbled key was stored: found %v, %v", found, err)
			}
		})
	}
}

func fill(b []byte, c byte) {
	for i := range b {
		b[i] = c
	}
}

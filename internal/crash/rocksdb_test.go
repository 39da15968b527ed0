//go:build rocksdb

package crash

import "testing"

// RocksDB (built with the rocksdb tag): a synced write survives SIGKILL, an unsynced one does
// not survive a power cut.
func TestRocksDBProcessAndPower(t *testing.T) {
	f := crashTest(t, "rocksdb", "process", 1, map[string]string{"sync": "true"}, nil)
	if f.Promise != Durable || f.Summary.Broken {
		t.Fatalf("%s: %s", f.Promise, f.Summary.Verdict)
	}
	f = crashTest(t, "rocksdb", "power", 1, map[string]string{"sync": "false"}, powerLayer(t))
	if f.Promise != Control || f.Summary.Broken {
		t.Fatalf("%s: %s", f.Promise, f.Summary.Verdict)
	}
}

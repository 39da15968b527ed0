package kvdriver

import (
	bolt "go.etcd.io/bbolt"
)

func init() { RegisterTuned("bbolt", openBboltTuned) }

// boltTuned is bbolt opened with explicit Options. bbolt has no log, cache, compression or
// background work: Sync decides whether each write transaction is fsynced, and the rest are
// recorded as not applicable.
type boltTuned struct {
	*boltEngine
	o Options
}

var (
	_ ReverseScanner = (*boltTuned)(nil)
	_ Monitored      = (*boltTuned)(nil)
)

func openBboltTuned(path string, o Options) (Engine, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: !o.Sync, NoFreelistSync: false})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &boltTuned{boltEngine: &boltEngine{db: db}, o: o}, nil
}

func (e *boltTuned) ScanReverse(start []byte, fn func(k, v []byte) bool) error {
	return e.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		k, v := c.Seek(start)
		switch {
		case k == nil:
			k, v = c.Last()
		case string(k) != string(start):
			k, v = c.Prev()
		}
		for ; k != nil; k, v = c.Prev() {
			if !fn(k, v) {
				break
			}
		}
		return nil
	})
}

func (e *boltTuned) Settings() map[string]any {
	s := e.boltEngine.Settings()
	s["sync_writes"] = e.o.Sync
	s["setup"] = e.o.Setup
	s["disable_wal"] = "not applicable: bbolt has no log (copy-on-write pages)"
	s["cache"] = "none: bbolt reads through the OS page cache (mmap)"
	s["compression"] = "not supported by bbolt"
	s["direct_io"] = "not supported by bbolt"
	return s
}

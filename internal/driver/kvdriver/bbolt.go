package kvdriver

import (
	"bytes"
	"context"

	"github.com/dbperf/dbperf/internal/driver"
	bolt "go.etcd.io/bbolt"
)

func init() {
	driver.Register(driver.Kind{
		Name: "bbolt", Usage: "bbolt[:FILE]",
		Summary: "bbolt copy-on-write B+tree (etcd), embedded; a temporary file when FILE is omitted",
		Open: func(_ context.Context, s driver.Spec) (driver.Target, error) {
			return open(s, "bbolt.db", openBbolt)
		},
	})
}

// bucket holds every key: one ordered key space, like the other engines.
var bucket = []byte("dbperf")

// boltEngine is bbolt with its default options: each write transaction is fsynced, and writes are
// serialized (bbolt has a single writer).
type boltEngine struct{ db *bolt.DB }

var _ Putter = (*boltEngine)(nil)

func openBbolt(path string) (Engine, error) {
	db, err := bolt.Open(path, 0o600, nil)
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
	return &boltEngine{db: db}, nil
}

func (e *boltEngine) Write(fn func(w Writer) error) error {
	return e.db.Update(func(tx *bolt.Tx) error { return fn(boltWriter{tx.Bucket(bucket)}) })
}

type boltWriter struct{ b *bolt.Bucket }

// Set copies key and value: bbolt references both until the transaction commits, and the table
// layer reuses its buffers from one Set to the next.
func (w boltWriter) Set(k, v []byte) error {
	return w.b.Put(append([]byte(nil), k...), append([]byte(nil), v...))
}
func (w boltWriter) Delete(k []byte) error { return w.b.Delete(k) }

// Put writes one key in its own read-write transaction, as a Write of one Set does, without
// the copies of key and value (two allocations a put) or the Writer: bbolt references them until
// the transaction commits, and Put returns after the commit.
func (e *boltEngine) Put(k, v []byte) error {
	return e.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(k, v) })
}

func (e *boltEngine) Get(key []byte, fn func([]byte)) (bool, error) {
	found := false
	err := e.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucket).Get(key); v != nil {
			found = true
			fn(v)
		}
		return nil
	})
	return found, err
}

func (e *boltEngine) Scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	return e.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		for k, v := c.Seek(lower); k != nil && (upper == nil || bytes.Compare(k, upper) < 0); k, v = c.Next() {
			if !fn(k, v) {
				break
			}
		}
		return nil
	})
}

func (e *boltEngine) DropRange(lower, upper []byte) error {
	return e.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		for k, _ := c.Seek(lower); k != nil && (upper == nil || bytes.Compare(k, upper) < 0); k, _ = c.Seek(lower) {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *boltEngine) Name() string    { return "bbolt" }
func (e *boltEngine) Version() string { return moduleVersion("go.etcd.io/bbolt") }

func (e *boltEngine) Settings() map[string]any {
	return map[string]any{
		"sync_writes": !e.db.NoSync,
		"page_size":   e.db.Info().PageSize,
		"freelist":    string(e.db.FreelistType),
	}
}

func (e *boltEngine) Close() error { return e.db.Close() }

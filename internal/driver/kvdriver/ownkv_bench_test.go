package kvdriver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	bolt "go.etcd.io/bbolt"
)

// The hot path of bbolt and Badger against the least each engine's API lets a caller do for the
// same operation: a Get in its own read transaction, a put in its own write transaction. The
// difference is what this package adds per operation (docs/performance.md "bbolt and Badger
// beside their own tools"). Variants run side by side in alternating blocks, so that a change in
// a shared machine's load hits all of them; each reports its wall and process CPU time a call:
//
//	go test -run '^$' -bench 'BboltOps|BadgerOps' -count 5 ./internal/driver/kvdriver

const (
	opsBenchKeys  = 10000
	opsBenchBlock = 500 // calls of one variant before the next variant's
)

// opsBenchKey is key n of 20 bytes in buf's memory.
func opsBenchKey(buf []byte, n uint64) []byte {
	if cap(buf) < 20 {
		buf = make([]byte, 20)
	}
	buf = buf[:20]
	clear(buf[:12])
	binary.BigEndian.PutUint64(buf[12:], n)
	return buf
}

// variant is one way of doing an operation: do(i) is its i-th call.
type variant struct {
	name string
	do   func(i uint64) error
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sideBySide runs the variants in alternating blocks of opsBenchBlock calls, b.N blocks each,
// in an order that turns round by round (the first block of a round costs more), and reports each one's wall and CPU nanoseconds a call. CPU is the process's: what Badger's
// writer goroutine does for a put counts, another process on the machine does not.
func sideBySide(b *testing.B, vs ...variant) {
	wall, cpu := make([]time.Duration, len(vs)), make([]time.Duration, len(vs))
	calls := uint64(0)
	for round := 0; b.Loop(); round++ {
		for k := range vs { // each round starts with the next variant: none is always first
			j := (round + k) % len(vs)
			v := vs[j]
			t, c := time.Now(), cpuNow()
			for i := calls; i < calls+opsBenchBlock; i++ {
				if err := v.do(i); err != nil {
					b.Fatalf("%s: %v", v.name, err)
				}
			}
			wall[j] += time.Since(t)
			cpu[j] += cpuNow() - c
		}
		calls += opsBenchBlock
	}
	for j, v := range vs {
		b.ReportMetric(float64(wall[j].Nanoseconds())/float64(calls), v.name+"-ns/op")
		b.ReportMetric(float64(cpu[j].Nanoseconds())/float64(calls), v.name+"-cpu-ns/op")
	}
	b.ReportMetric(0, "ns/op") // the sum of the variants: not a figure of any
}

// benchOps loads opsBenchKeys keys of 20+400 bytes through db, then runs the reads and the
// writes side by side: dbperf's path through the DB, and the engine's own calls (bare). Keys
// are visited with a stride, in no order the engine could profit from; the puts overwrite the
// loaded keys, so that the database keeps its size.
// afterGets runs between the two.
func benchOps(b *testing.B, db *DB, gets []variant, afterGets func(), barePut func(key, val []byte) error) {
	val := bytes.Repeat([]byte("v"), 400)
	var key []byte
	for n := uint64(0); n < opsBenchKeys; n++ {
		if err := db.Put(opsBenchKey(key, n), val); err != nil {
			b.Fatal(err)
		}
	}
	keyOf := func(i uint64) []byte { key = opsBenchKey(key, i*7919%opsBenchKeys); return key }
	var size int
	onValue := func(v []byte) { size += len(v) }
	dbperfGet := variant{"dbperf", func(i uint64) error {
		found, err := db.Get(keyOf(i), onValue)
		if err == nil && !found {
			err = errors.New("key not found")
		}
		return err
	}}
	b.Run("get", func(b *testing.B) { sideBySide(b, append([]variant{dbperfGet}, gets...)...) })
	afterGets()
	// write is the path of every put before the engine had a Put (Putter): a Write of one Set;
	// batch100 puts 100 keys a Write (a call in 100 writes them), what a transaction costs.
	b.Run("put", func(b *testing.B) {
		sideBySide(b,
			variant{"dbperf", func(i uint64) error { return db.Put(keyOf(i), val) }},
			variant{"write", func(i uint64) error {
				k := keyOf(i)
				return db.Write(func(w Writer) error { return w.Set(k, val) })
			}},
			variant{"bare", func(i uint64) error { return barePut(keyOf(i), val) }},
			variant{"batch100", func(i uint64) error {
				if i%100 != 0 {
					return nil
				}
				return db.Write(func(w Writer) error {
					for j := i; j < i+100; j++ {
						if err := w.Set(keyOf(j), val); err != nil {
							return err
						}
					}
					return nil
				})
			}})
	})
	b.Run("allocs", func(b *testing.B) {
		for _, v := range []struct {
			name string
			do   func() error
		}{
			{"get-dbperf", func() error { return dbperfGet.do(1) }},
			{"get-bare", func() error { return gets[0].do(1) }},
			{"put-dbperf", func() error { return db.Put(keyOf(1), val) }},
			{"put-write", func() error {
				k := keyOf(1)
				return db.Write(func(w Writer) error { return w.Set(k, val) })
			}},
			{"put-bare", func() error { return barePut(keyOf(1), val) }},
		} {
			b.ReportMetric(testing.AllocsPerRun(100, func() {
				if err := v.do(); err != nil {
					b.Fatal(err)
				}
			}), v.name+"-allocs/op")
		}
	})
}

func BenchmarkBboltOps(b *testing.B) {
	db, err := OpenTuned("bbolt", b.TempDir()+"/f.db", Options{}) // no fsync: the CPU path
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bdb := db.Engine.(*boltTuned).db
	var key []byte
	bareGet := func(i uint64) error {
		key = opsBenchKey(key, i*7919%opsBenchKeys)
		return bdb.View(func(tx *bolt.Tx) error {
			if tx.Bucket(bucket).Get(key) == nil {
				return errors.New("key not found")
			}
			return nil
		})
	}
	// What bbolt bench's reads do instead: every Get in one long read transaction, and
	// (its "rnd" reads of keys written in order) in key order; view-empty is a transaction alone.
	// The long transaction ends before the puts: a write that grows the file waits for it.
	var tx *bolt.Tx
	var bk *bolt.Bucket
	oneTxn := func(stride uint64) func(i uint64) error {
		return func(i uint64) error {
			if tx == nil {
				var err error
				if tx, err = bdb.Begin(false); err != nil {
					return err
				}
				bk = tx.Bucket(bucket)
			}
			key = opsBenchKey(key, i*stride%opsBenchKeys)
			if bk.Get(key) == nil {
				return errors.New("key not found")
			}
			return nil
		}
	}
	gets := []variant{{"bare", bareGet}, {"one-txn", oneTxn(7919)}, {"one-txn-seq", oneTxn(1)},
		{"view-empty", func(uint64) error { return bdb.View(func(*bolt.Tx) error { return nil }) }}}
	endTxn := func() {
		if tx != nil {
			if err := tx.Rollback(); err != nil {
				b.Fatal(err)
			}
			tx = nil
		}
	}
	defer endTxn()
	benchOps(b, db, gets, endTxn, func(key, val []byte) error {
		return bdb.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(key, val) })
	})
}

func BenchmarkBadgerOps(b *testing.B) {
	db, err := OpenTuned("badger", b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bdb := db.Engine.(*badgerEngine).db
	var key []byte
	size := 0
	bareGet := func(i uint64) error {
		key = opsBenchKey(key, i*7919%opsBenchKeys)
		return bdb.View(func(txn *badger.Txn) error {
			item, err := txn.Get(key)
			if err != nil {
				return err
			}
			return item.Value(func(v []byte) error { size += len(v); return nil })
		})
	}
	benchOps(b, db, []variant{{"bare", bareGet}}, func() {}, func(key, val []byte) error {
		return bdb.Update(func(txn *badger.Txn) error { return txn.Set(key, val) })
	})
}

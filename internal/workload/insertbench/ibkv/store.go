// Package ibkv runs the Insert Benchmark on ordered key-value engines (kvdriver: Pebble, bbolt,
// any engine added there) through a "table over KV" layout: a table and each of its secondary
// indexes are key spaces, as MyRocks keeps tables on RocksDB. Inserts write the row and its
// index entries in one atomic batch and read nothing, so an LSM does index maintenance without
// reads; a B-tree pays for the random index inserts with page reads, which is what the Insert
// Benchmark is about.
package ibkv

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// Store is the Insert Benchmark's tables on one opened key-value target.
type Store struct {
	db *kvdriver.DB

	// indexedCache remembers which tables have their secondary indexes, so that inserts do not
	// read the flag from the engine on every statement. It is why a target is bound once.
	indexedCache sync.Map // table -> bool
}

var (
	_ ib.Store   = (*Store)(nil)
	_ ib.Settler = (*Store)(nil)
)

// Bind returns the Insert Benchmark's store on an opened key-value target, whatever its engine;
// false when t is not one. Bind a target once: the store caches which tables are indexed.
func Bind(t driver.Target) (ib.Store, bool) {
	db, ok := t.(*kvdriver.DB)
	if !ok {
		return nil, false
	}
	return &Store{db: db}, true
}

// Settle implements insertbench.Settler: the engine's flush and compaction, if it has them.
func (s *Store) Settle(ctx context.Context, tables []string, _ time.Time, _ float64) (string, error) {
	return s.db.Settle(ctx, tables)
}

func metaKey(table string) []byte { return append(append([]byte(nil), metaPrefix...), table...) }

// CreateTables implements insertbench.Store.
func (s *Store) CreateTables(_ context.Context, tables []string) error {
	for _, t := range tables {
		p := tablePrefix(t)
		if err := s.db.DropRange(p, kvdriver.PrefixEnd(p)); err != nil {
			return err
		}
		if err := s.db.Write(func(w kvdriver.Writer) error { return w.Delete(metaKey(t)) }); err != nil {
			return err
		}
		s.indexedCache.Store(t, false)
	}
	return nil
}

// indexed reports whether a table has its secondary indexes.
func (s *Store) indexed(table string) (bool, error) {
	if v, ok := s.indexedCache.Load(table); ok {
		return v.(bool), nil
	}
	found, err := s.db.Get(metaKey(table), func([]byte) {})
	if err == nil {
		s.indexedCache.Store(table, found)
	}
	return found, err
}

// CreateIndexes implements insertbench.Store: it reads the table in key order and writes the
// three index entries of each row, in batches, then marks the table indexed.
func (s *Store) CreateIndexes(ctx context.Context, table string) error {
	const batchRows = 1000
	var rows []ib.Row
	var buf []byte
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := s.db.Write(func(w kvdriver.Writer) error {
			for i := range rows {
				for idx := range ib.NumIndexes {
					buf = indexKey(buf, table, idx, rows[i].IndexKey(idx), rows[i].ID)
					if err := w.Set(buf, nil); err != nil {
						return err
					}
				}
			}
			return nil
		})
		rows = rows[:0]
		return err
	}
	lower := spacePrefix(table, spacePK)
	var scanErr error
	// Collect keys' columns in a batch; Scan's buffers are only valid during the callback, and
	// the indexed columns are all fixed-width integers, so copying them is enough.
	var from []byte = lower
	for {
		n := 0
		var last []byte
		err := s.db.Scan(from, kvdriver.PrefixEnd(lower), func(k, v []byte) bool {
			var r ib.Row
			if scanErr = decodeRow(k, v, &r); scanErr != nil {
				return false
			}
			r.Data = nil
			rows = append(rows, r)
			n++
			last = append(last[:0], k...)
			return n < batchRows
		})
		if err == nil {
			err = scanErr
		}
		if err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		if n < batchRows {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		from = append(append([]byte(nil), last...), 0) // the next key after last; not last's buffer, which the next scan rewrites
	}
	if err := s.db.Write(func(w kvdriver.Writer) error { return w.Set(metaKey(table), []byte("indexed")) }); err != nil {
		return err
	}
	s.indexedCache.Store(table, true)
	return nil
}

// Stats implements insertbench.Store by scanning every key space. Each index entry must point at
// a row whose columns it repeats; the first 10000 entries of each index are checked.
func (s *Store) Stats(_ context.Context, table string) (ib.TableStats, error) {
	var st ib.TableStats
	pk := spacePrefix(table, spacePK)
	first := true
	err := s.db.Scan(pk, kvdriver.PrefixEnd(pk), func(k, _ []byte) bool {
		id := kvdriver.ReadInt(k[len(k)-8:])
		if first {
			st.MinID, first = id, false
		}
		st.MaxID = id
		st.Rows++
		return true
	})
	if err != nil {
		return st, err
	}
	indexed, err := s.indexed(table)
	if err != nil || !indexed {
		return st, err
	}
	const checked = 10000
	st.IndexRows = make([]int64, ib.NumIndexes)
	var key []byte
	for idx := range ib.NumIndexes {
		p := spacePrefix(table, spaceIndex+byte(idx))
		var n int64
		var probs []string
		err := s.db.Scan(p, kvdriver.PrefixEnd(p), func(k, _ []byte) bool {
			n++
			if n > checked || len(probs) >= 5 {
				return true
			}
			cols, id, err := decodeIndexKey(k, len(p))
			if err != nil {
				probs = append(probs, err.Error())
				return true
			}
			key = pkKey(key, table, id)
			var row ib.Row
			found, gerr := s.db.Get(key, func(v []byte) { _ = decodeRow(key, v, &row) })
			switch {
			case gerr != nil:
				probs = append(probs, gerr.Error())
			case !found:
				probs = append(probs, fmt.Sprintf("index %s has an entry for id %d, which has no row", idx, id))
			case row.IndexKey(idx) != cols:
				probs = append(probs, fmt.Sprintf("index %s entry %v for id %d does not match the row's %v", idx, cols, id, row.IndexKey(idx)))
			}
			return true
		})
		if err != nil {
			return st, err
		}
		st.IndexRows[idx] = n
		st.Problems = append(st.Problems, probs...)
	}
	return st, nil
}

// Connect implements insertbench.Store. Engines are safe for concurrent use, so a connection is
// just per-client buffers.
func (s *Store) Connect(context.Context) (ib.Conn, error) { return &conn{s: s}, nil }

type conn struct {
	s        *Store
	key, val []byte
	idxKey   []byte
	rows     []ib.Row
}

// Insert writes each row and, once the table is indexed, its three index entries, in one batch.
func (c *conn) Insert(_ context.Context, table string, rows []ib.Row) error {
	indexed, err := c.s.indexed(table)
	if err != nil {
		return err
	}
	return c.s.db.Write(func(w kvdriver.Writer) error {
		for i := range rows {
			r := &rows[i]
			c.key = pkKey(c.key, table, r.ID)
			c.val = rowValue(c.val, r)
			if err := w.Set(c.key, c.val); err != nil {
				return err
			}
			if !indexed {
				continue
			}
			for idx := range ib.NumIndexes {
				c.idxKey = indexKey(c.idxKey, table, idx, r.IndexKey(idx), r.ID)
				if err := w.Set(c.idxKey, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// DeleteOldest reads the rows in [from, to) in key order (their index entries must go too, as
// in MyRocks) and deletes them and their index entries in one batch.
func (c *conn) DeleteOldest(_ context.Context, table string, from, to int64) (int64, error) {
	indexed, err := c.s.indexed(table)
	if err != nil {
		return 0, err
	}
	lower := pkKey(nil, table, from)
	upper := pkKey(nil, table, to)
	c.rows = c.rows[:0]
	var derr error
	err = c.s.db.Scan(lower, upper, func(k, v []byte) bool {
		var r ib.Row
		if derr = decodeRow(k, v, &r); derr != nil {
			return false
		}
		r.Data = nil
		c.rows = append(c.rows, r)
		return true
	})
	if err == nil {
		err = derr
	}
	if err != nil || len(c.rows) == 0 {
		return 0, err
	}
	err = c.s.db.Write(func(w kvdriver.Writer) error {
		for i := range c.rows {
			r := &c.rows[i]
			c.key = pkKey(c.key, table, r.ID)
			if err := w.Delete(c.key); err != nil {
				return err
			}
			if !indexed {
				continue
			}
			for idx := range ib.NumIndexes {
				c.idxKey = indexKey(c.idxKey, table, idx, r.IndexKey(idx), r.ID)
				if err := w.Delete(c.idxKey); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int64(len(c.rows)), nil
}

// RangeQuery seeks the index to x (x+1 for ">") and reads RowsPerQuery entries.
func (c *conn) RangeQuery(_ context.Context, table string, idx ib.Index, x int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	p := spacePrefix(table, spaceIndex+byte(idx))
	start := x
	if idx.Strict() {
		start++
	}
	c.key = kvdriver.AppendInt(append(c.key[:0], p...), start)
	n0 := len(out)
	var derr error
	err := c.s.db.Scan(c.key, kvdriver.PrefixEnd(p), func(k, _ []byte) bool {
		cols, _, err := decodeIndexKey(k, len(p))
		if err != nil {
			derr = err
			return false
		}
		out = append(out, ib.IndexRow(cols))
		return len(out)-n0 < ib.RowsPerQuery
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// PointQuery gets each id's row by primary key.
func (c *conn) PointQuery(_ context.Context, table string, ids []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue // IN (...) returns a row once however often its id is listed
		}
		seen[id] = true
		c.key = pkKey(c.key, table, id)
		var r ib.Row
		var derr error
		found, err := c.s.db.Get(c.key, func(v []byte) {
			if derr = decodeRow(c.key, v, &r); derr == nil {
				r.Data = append([]byte(nil), r.Data...)
			}
		})
		if err == nil {
			err = derr
		}
		if err != nil {
			return out, err
		}
		if found {
			out = append(out, ib.PointRow{ID: r.ID, Product: r.Product, Data: r.Data})
		}
	}
	return out, nil
}

func (c *conn) Close() error { return nil }

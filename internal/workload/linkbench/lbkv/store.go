package lbkv

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// Store is LinkBench's tables on one opened key-value target.
type Store struct {
	db    *kvdriver.DB
	seed  maphash.Seed
	locks [4096]sync.Mutex // by id1 (links and counts) or node id: the layout's row locks
}

var (
	_ lb.Store        = (*Store)(nil)
	_ lb.Settler      = (*Store)(nil)
	_ lb.LinkKeyOrder = (*Store)(nil)
)

// LinkTypeFirst implements linkbench.LinkKeyOrder: the layout's link key is (id1, link_type, id2).
func (s *Store) LinkTypeFirst() bool { return false }

// Bind returns LinkBench's store on an opened key-value target; false when t is not one.
func Bind(t driver.Target) (lb.Store, bool) {
	db, ok := t.(*kvdriver.DB)
	if !ok {
		return nil, false
	}
	return &Store{db: db, seed: maphash.MakeSeed()}, true
}

func (s *Store) lock(space byte, id int64) *sync.Mutex {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteByte(space)
	var b [8]byte
	for i := range b {
		b[i] = byte(id >> (8 * i))
	}
	h.Write(b[:])
	return &s.locks[h.Sum64()%uint64(len(s.locks))]
}

// Settle implements linkbench.Settler: the engine's flush and compaction, if it has them.
func (s *Store) Settle(ctx context.Context, tables []string) (string, error) {
	return s.db.Settle(ctx, tables)
}

// CreateTables implements linkbench.Store: it empties the four key spaces.
func (s *Store) CreateTables(context.Context) error {
	for _, p := range [][]byte{linkSpace, indexSpace, countSpace, nodeSpace} {
		if err := s.db.DropRange(p, kvdriver.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return nil
}

// Connect implements linkbench.Store.
func (s *Store) Connect(context.Context) (lb.Conn, error) { return &Conn{s: s}, nil }

// scan calls fn for each key of space in order until fn fails; ctx ends it too.
func (s *Store) scan(ctx context.Context, lower, upper []byte, fn func(k, v []byte) error) error {
	var ferr error
	err := s.db.Scan(lower, upper, func(k, v []byte) bool {
		if ferr = ctx.Err(); ferr == nil {
			ferr = fn(k, v)
		}
		return ferr == nil
	})
	return errors.Join(err, ferr)
}

func (s *Store) scanSpace(ctx context.Context, p []byte, fn func(k, v []byte) error) error {
	return s.scan(ctx, p, kvdriver.PrefixEnd(p), fn)
}

// ScanLinks implements linkbench.Store.
func (s *Store) ScanLinks(ctx context.Context, fn func(lb.Link) error) error {
	return s.scanSpace(ctx, linkSpace, func(k, v []byte) error {
		var l lb.Link
		decodeLink(k, v, &l)
		return fn(l)
	})
}

// ScanCounts implements linkbench.Store.
func (s *Store) ScanCounts(ctx context.Context, fn func(lb.Count) error) error {
	return s.scanSpace(ctx, countSpace, func(k, v []byte) error {
		var c lb.Count
		decodeCount(k, v, &c)
		return fn(c)
	})
}

// ScanVisible implements linkbench.Store from linktable itself (not the index), so that an
// index out of step with the table shows as a count mismatch of the request checks.
func (s *Store) ScanVisible(ctx context.Context, fn func(id1, linkType, n int64) error) error {
	var id1, lt, n int64
	err := s.scanSpace(ctx, linkSpace, func(k, v []byte) error {
		if v[0] != byte(lb.VisibilityDefault) {
			return nil
		}
		k = k[len(linkSpace):]
		a, b := kvdriver.ReadInt(k), kvdriver.ReadInt(k[8:])
		if n > 0 && (a != id1 || b != lt) {
			if err := fn(id1, lt, n); err != nil {
				return err
			}
			n = 0
		}
		id1, lt = a, b
		n++
		return nil
	})
	if err == nil && n > 0 {
		err = fn(id1, lt, n)
	}
	return err
}

// ScanNodes implements linkbench.Store.
func (s *Store) ScanNodes(ctx context.Context, fn func(lb.Node) error) error {
	return s.scanSpace(ctx, nodeSpace, func(k, v []byte) error {
		var n lb.Node
		decodeNode(k, v, &n)
		return fn(n)
	})
}

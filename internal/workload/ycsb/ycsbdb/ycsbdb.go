// Package ycsbdb binds YCSB's usertable to dbperf's targets: the key-value engines directly
// (a record is one value under its key, its fields length-prefixed, as YCSB's RocksDB binding
// keeps a record), and the SQL targets as YCSB's JDBC binding lays the table out and queries it
// (jdbc/README.md:35-51; DefaultDBFlavor.java:34-104).
package ycsbdb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
)

// For returns YCSB's store on an opened target, SQL statements prepared (ForMode's default).
func For(t driver.Target) (ycsb.Store, error) { return ForMode(t, "") }

// ForMode returns YCSB's store on an opened target whose SQL statements go as mode says
// (ycsb.QuerySimple, QueryExtended, QueryPrepared; "" is prepared). A key-value engine runs no
// SQL, so it refuses any mode given.
func ForMode(t driver.Target, mode string) (ycsb.Store, error) {
	sqlMode := mode
	if sqlMode == "" {
		sqlMode = ycsb.QueryPrepared
	}
	switch tg := t.(type) {
	case *kvdriver.DB:
		if mode != "" {
			return nil, fmt.Errorf("--query-mode applies to SQL targets only: %s is a key-value engine, which YCSB drives with gets, puts and scans, not SQL", t.Info(context.Background()).Target)
		}
		return &kvStore{db: tg}, nil
	case *sqldriver.Postgres:
		return &pgStore{t: tg, mode: sqlMode}, nil
	case *sqldriver.MySQL:
		return &dbStore{db: tg.DB(), conn: tg.Conn, dialect: "mysql", engine: tg.Engine(), mode: sqlMode}, nil
	case *sqldriver.SQLite:
		return &dbStore{db: tg.DB(), conn: tg.Conn, dialect: "sqlite", mode: sqlMode}, nil
	}
	return nil, fmt.Errorf("target %s cannot run YCSB", t.Info(context.Background()).Target)
}

// prefix keeps usertable's records apart from any other key space of the engine.
var prefix = []byte("usertable/")

// kvStore is a key-value engine.
type kvStore struct{ db *kvdriver.DB }

// Create implements ycsb.Store: the key space needs no creating, only emptying for a whole load.
func (s *kvStore) Create(ctx context.Context, fields int, drop bool) error {
	if !drop {
		return nil
	}
	return s.db.DropRange(prefix, kvdriver.PrefixEnd(prefix))
}

func (s *kvStore) CountKeys(_ context.Context, keys []string) (int64, error) {
	var n int64
	k := make([]byte, 0, 64)
	for _, key := range keys {
		k = append(append(k[:0], prefix...), key...)
		found, err := s.db.Get(k, func([]byte) {})
		if err != nil {
			return n, err
		}
		if found {
			n++
		}
	}
	return n, nil
}

func (s *kvStore) Connect(context.Context, int) (ycsb.Conn, error) { return &kvConn{db: s.db}, nil }

func (s *kvStore) Count(context.Context) (int64, error) {
	var n int64
	err := s.db.Scan(prefix, kvdriver.PrefixEnd(prefix), func(k, v []byte) bool { n++; return true })
	return n, err
}

type kvConn struct {
	db  *kvdriver.DB
	key []byte
	val []byte
}

func (c *kvConn) k(key string) []byte {
	c.key = append(append(c.key[:0], prefix...), key...)
	return c.key
}

// encode writes the fields, each as a uvarint length and its bytes.
func encode(dst []byte, values [][]byte) []byte {
	dst = dst[:0]
	for _, v := range values {
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
	}
	return dst
}

// decode splits a record into its fields.
func decode(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return nil, errors.New("a malformed record")
		}
		out = append(out, append([]byte(nil), b[w:w+int(n)]...))
		b = b[w+int(n):]
	}
	return out, nil
}

func (c *kvConn) Insert(_ context.Context, key string, values [][]byte) error {
	c.val = encode(c.val, values)
	return c.db.Write(func(w kvdriver.Writer) error { return w.Set(c.k(key), c.val) })
}

// Read reads the record; one field or all, the engine reads the whole value either way.
func (c *kvConn) Read(_ context.Context, key string, field int) (bool, error) {
	return c.db.Get(c.k(key), func([]byte) {})
}

// Update reads the record, replaces the fields and writes it back, as YCSB's RocksDB binding
// does (no lock: concurrent updates of one record may lose one, as there).
func (c *kvConn) Update(_ context.Context, key string, fields []int, values [][]byte) error {
	var rec [][]byte
	var derr error
	found, err := c.db.Get(c.k(key), func(v []byte) { rec, derr = decode(v) })
	if err != nil || derr != nil {
		return errors.Join(err, derr)
	}
	if !found {
		return nil // YCSB's NOT_FOUND: nothing written
	}
	for i, f := range fields {
		if f < len(rec) {
			rec[f] = values[i]
		}
	}
	c.val = encode(c.val, rec)
	return c.db.Write(func(w kvdriver.Writer) error { return w.Set(c.k(key), c.val) })
}

func (c *kvConn) Scan(_ context.Context, start string, n int) (int, error) {
	read := 0
	err := c.db.Scan(c.k(start), kvdriver.PrefixEnd(prefix), func(k, v []byte) bool {
		read++
		return read < n
	})
	return read, err
}

func (c *kvConn) Close() error { return nil }

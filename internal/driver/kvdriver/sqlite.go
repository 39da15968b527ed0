package kvdriver

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// SQLite as a key-value engine: one table kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID, so the
// table is a B-tree ordered by key, as the other engines' key spaces are. The "sqlite" target kind
// belongs to sqldriver; a key-value workload opens this engine on that target's file with
// OpenTuned("sqlite", ...).

func init() { RegisterTuned("sqlite", openSQLiteKV) }

type sqliteEngine struct {
	db        *sql.DB
	o         Options
	pragmas   map[string]string
	put, get  *sql.Stmt
	multiGet  *sql.Stmt // for batches of multiGetSize keys
	multiSize int
}

var (
	_ MultiGetter    = (*sqliteEngine)(nil)
	_ ReverseScanner = (*sqliteEngine)(nil)
	_ Flusher        = (*sqliteEngine)(nil)
	_ Monitored      = (*sqliteEngine)(nil)
)

// multiGetSize is the batch size whose statement is prepared once (db_bench's multiread batch).
const multiGetSize = 10

// openSQLiteKV opens the file with WAL journaling. Sync maps to synchronous=FULL (fsync at every
// commit); otherwise NORMAL (the WAL is written at commit and synced at checkpoints, as RocksDB's
// sync=0). SQLite's WAL is its journal and cannot be left out while other connections use the
// file in WAL mode, so DisableWAL maps to synchronous=OFF. Compression and O_DIRECT do not exist.
func openSQLiteKV(path string, o Options) (Engine, error) {
	sync := "NORMAL"
	switch {
	case o.DisableWAL:
		sync = "OFF"
	case o.Sync:
		sync = "FULL"
	}
	pragmas := map[string]string{"journal_mode": "WAL", "synchronous": sync, "busy_timeout": "600000"}
	if o.CacheBytes > 0 {
		pragmas["cache_size"] = fmt.Sprint(-o.CacheBytes / 1024) // negative: KiB per connection
	}
	q := url.Values{}
	for k, v := range pragmas {
		q.Add("_pragma", k+"("+v+")")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(256)
	e := &sqliteEngine{db: db, o: o, pragmas: pragmas, multiSize: multiGetSize}
	if err := e.prepare(); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

func (e *sqliteEngine) prepare() error {
	if _, err := e.db.Exec("CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID"); err != nil {
		return err
	}
	var err error
	if e.put, err = e.db.Prepare("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)"); err != nil {
		return err
	}
	if e.get, err = e.db.Prepare("SELECT v FROM kv WHERE k = ?"); err != nil {
		return err
	}
	in := strings.TrimSuffix(strings.Repeat("?,", e.multiSize), ",")
	e.multiGet, err = e.db.Prepare("SELECT k, v FROM kv WHERE k IN (" + in + ")")
	return err
}

// Write runs a single change as one autocommit statement, and several in one transaction.
func (e *sqliteEngine) Write(fn func(w Writer) error) error {
	var b sqliteBatch
	if err := fn(&b); err != nil {
		return err
	}
	if len(b.ops) == 1 && b.ops[0].v != nil {
		_, err := e.put.Exec(b.ops[0].k, b.ops[0].v)
		return err
	}
	ctx := context.Background()
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// IMMEDIATE takes the write lock at once: two deferred transactions upgrading would fail.
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	for _, op := range b.ops {
		if op.v == nil {
			_, err = conn.ExecContext(ctx, "DELETE FROM kv WHERE k = ?", op.k)
		} else {
			_, err = conn.ExecContext(ctx, "INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", op.k, op.v)
		}
		if err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}

// sqliteBatch keeps copies: the caller may reuse its buffers after Set returns.
type sqliteBatch struct{ ops []struct{ k, v []byte } }

func (b *sqliteBatch) Set(k, v []byte) error {
	b.ops = append(b.ops, struct{ k, v []byte }{append([]byte(nil), k...), append([]byte{}, v...)})
	return nil
}

func (b *sqliteBatch) Delete(k []byte) error {
	b.ops = append(b.ops, struct{ k, v []byte }{append([]byte(nil), k...), nil})
	return nil
}

func (e *sqliteEngine) Get(key []byte, fn func([]byte)) (bool, error) {
	var v []byte
	err := e.get.QueryRow(key).Scan(&v)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	fn(v)
	return true, nil
}

// MultiGet is one SELECT ... WHERE k IN (...) for a batch of multiGetSize keys, else one Get each.
func (e *sqliteEngine) MultiGet(keys [][]byte, fn func(i int, v []byte)) (int, error) {
	if len(keys) != e.multiSize {
		return 0, fmt.Errorf("sqlite: MultiGet takes batches of %d keys (got %d)", e.multiSize, len(keys))
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := e.multiGet.Query(args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	found := 0
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return found, err
		}
		for i := range keys { // a key drawn twice in a batch is one row, found for both
			if string(keys[i]) == string(k) {
				fn(i, v)
				found++
			}
		}
	}
	return found, rows.Err()
}

// Scan binds a nil lower bound as the empty key: SQL's NULL would compare as unknown.
func (e *sqliteEngine) Scan(lower, upper []byte, fn func(k, v []byte) bool) error {
	if lower == nil {
		lower = []byte{}
	}
	if upper == nil {
		return e.scan(fn, "SELECT k, v FROM kv WHERE k >= ? ORDER BY k", lower)
	}
	return e.scan(fn, "SELECT k, v FROM kv WHERE k >= ? AND k < ? ORDER BY k", lower, upper)
}

func (e *sqliteEngine) ScanReverse(start []byte, fn func(k, v []byte) bool) error {
	return e.scan(fn, "SELECT k, v FROM kv WHERE k <= ? ORDER BY k DESC", start)
}

func (e *sqliteEngine) scan(fn func(k, v []byte) bool, query string, args ...any) error {
	rows, err := e.db.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		if !fn(k, v) {
			break
		}
	}
	return rows.Err()
}

func (e *sqliteEngine) DropRange(lower, upper []byte) error {
	if lower == nil {
		lower = []byte{}
	}
	if upper == nil {
		_, err := e.db.Exec("DELETE FROM kv WHERE k >= ?", lower)
		return err
	}
	_, err := e.db.Exec("DELETE FROM kv WHERE k >= ? AND k < ?", lower, upper)
	return err
}

// Flush checkpoints the WAL into the database file: SQLite's nearest to a memtable flush.
func (e *sqliteEngine) Flush(ctx context.Context) (string, error) {
	var busy, logPages, moved int
	if err := e.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logPages, &moved); err != nil {
		return "", err
	}
	return fmt.Sprintf("PRAGMA wal_checkpoint(TRUNCATE): %d WAL pages, %d moved into the database", logPages, moved), nil
}

func (e *sqliteEngine) Name() string { return "SQLite" }

func (e *sqliteEngine) Version() string {
	var v string
	if err := e.db.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

func (e *sqliteEngine) Settings() map[string]any {
	s := map[string]any{
		"setup":       e.o.Setup,
		"layout":      "kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID",
		"driver":      "modernc.org/sqlite",
		"sync_writes": e.o.Sync,
		"disable_wal": map[bool]string{true: "synchronous=OFF (SQLite's WAL stays: it is its journal)", false: "no"}[e.o.DisableWAL],
		"compression": "not supported by SQLite",
		"direct_io":   "not supported by SQLite",
	}
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "cache_size"} {
		var v string
		if e.db.QueryRow("PRAGMA "+p).Scan(&v) == nil {
			s[p] = v
		}
	}
	return s
}

func (e *sqliteEngine) Close() error { return e.db.Close() }

// DiskSize is the database file and its WAL.
func (e *sqliteEngine) DiskSize() (int64, error) {
	var n int64
	var file string
	if err := e.db.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		return 0, err
	}
	for _, f := range []string{file, file + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}

// Counters are SQLite's page counts (gauges): pages in the file, free pages, and the WAL's size.
func (e *sqliteEngine) Counters() (map[string]float64, error) {
	var pages, free, size int64
	if err := e.db.QueryRow("SELECT page_count, freelist_count, page_size FROM pragma_page_count, pragma_freelist_count, pragma_page_size").Scan(&pages, &free, &size); err != nil {
		return nil, err
	}
	return map[string]float64{"pages": float64(pages), "free_pages": float64(free), "page_bytes": float64(size),
		CounterTablesBytes: float64(pages * size)}, nil
}

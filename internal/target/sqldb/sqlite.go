package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/dbperf/dbperf/internal/target"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

func init() {
	target.Register(target.Kind{
		Name: "sqlite", Usage: "sqlite[:FILE]",
		Summary: "SQLite (embedded, the default), WAL journal, synchronous=FULL; a temporary file when FILE is omitted",
		Open:    openSQLite,
	})
}

// sqlitePragmas make commits durable (WAL + synchronous=FULL, like the other targets' synced
// commits) and let writers wait for each other instead of failing with SQLITE_BUSY.
var sqlitePragmas = []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(600000)"}

// SQLite is a SQLite target. Each client role gets its own connection from the pool.
type SQLite struct {
	spec    target.Spec
	path    string
	tempDir string
	db      *sql.DB
}

var (
	_ ib.Store      = (*SQLite)(nil)
	_ ib.Settler    = (*SQLite)(nil)
	_ target.Target = (*SQLite)(nil)
)

func openSQLite(ctx context.Context, s target.Spec) (target.Target, error) {
	st := &SQLite{spec: s, path: s.Path}
	if st.path == "" {
		dir, err := os.MkdirTemp("", "dbperf-sqlite-")
		if err != nil {
			return nil, err
		}
		st.tempDir, st.path = dir, filepath.Join(dir, "dbperf.sqlite")
	} else if dir := filepath.Dir(st.path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("cannot open sqlite database %s: directory %s does not exist", st.path, dir)
		}
	}
	q := url.Values{}
	for _, p := range sqlitePragmas {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+st.path+"?"+q.Encode())
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		st.cleanup()
		return nil, fmt.Errorf("cannot open sqlite database %s: %v", st.path, err)
	}
	db.SetMaxIdleConns(64)
	st.db = db
	return st, nil
}

func (s *SQLite) cleanup() {
	if s.tempDir != "" {
		os.RemoveAll(s.tempDir)
	}
}

// Info implements target.Target.
func (s *SQLite) Info(ctx context.Context) target.Info {
	info := target.Info{Kind: "sqlite", Target: s.spec.String(), Engine: "SQLite", Settings: map[string]any{
		"path": s.path, "temporary": s.tempDir != "", "driver": "modernc.org/sqlite",
	}}
	if err := s.db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&info.Version); err != nil {
		info.Version = "unknown: " + err.Error()
	}
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "cache_size"} {
		var v string
		if s.db.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v) == nil {
			info.Settings[p] = v
		}
	}
	return info
}

// Close implements target.Target.
func (s *SQLite) Close() error {
	err := s.db.Close()
	s.cleanup()
	return err
}

// CreateTables implements insertbench.Store.
func (s *SQLite) CreateTables(ctx context.Context, tables []string) error {
	return sqlite.createTables(ctx, func(ctx context.Context, q string) error {
		_, err := s.db.ExecContext(ctx, q)
		return err
	}, tables)
}

// CreateIndexes implements insertbench.Store.
func (s *SQLite) CreateIndexes(ctx context.Context, table string) error {
	for idx := range ib.NumIndexes {
		if _, err := s.db.ExecContext(ctx, sqlite.createIndex(table, idx)); err != nil {
			return err
		}
	}
	return nil
}

// Settle implements insertbench.Settler: refresh the planner's statistics and checkpoint the WAL
// into the database file.
func (s *SQLite) Settle(ctx context.Context, _ []string) (string, error) {
	if _, err := s.db.ExecContext(ctx, "ANALYZE"); err != nil {
		return "", err
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return "", err
	}
	return "analyze; wal_checkpoint(TRUNCATE)", nil
}

// Stats implements insertbench.Store; INDEXED BY makes each count read its own index (SQLite
// fails the statement rather than use another).
func (s *SQLite) Stats(ctx context.Context, table string) (ib.TableStats, error) {
	var st ib.TableStats
	if err := s.db.QueryRowContext(ctx, sqlite.tableStats(table)).Scan(&st.Rows, &st.MinID, &st.MaxID); err != nil {
		return st, err
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", table).Scan(&n); err != nil {
		return st, err
	}
	if n == 0 {
		return st, nil
	}
	st.IndexRows = make([]int64, ib.NumIndexes)
	for idx := range ib.NumIndexes {
		q := fmt.Sprintf("SELECT count(*) FROM %s INDEXED BY %s WHERE %s >= -1", table, indexName(table, idx), ib.IndexColumns[idx][0])
		if err := s.db.QueryRowContext(ctx, q).Scan(&st.IndexRows[idx]); err != nil {
			return st, err
		}
	}
	return st, nil
}

// Connect implements insertbench.Store: a dedicated connection with its own prepared statements.
func (s *SQLite) Connect(ctx context.Context) (ib.Conn, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &sqlConn{c: c, d: sqlite, stmts: map[string]*sql.Stmt{}, sql: map[string]*tableSQL{}}, nil
}

// sqlConn is a database/sql connection running the Insert Benchmark's statements.
type sqlConn struct {
	c     *sql.Conn
	d     dialect
	stmts map[string]*sql.Stmt
	sql   map[string]*tableSQL
	args  []any
	buf   []byte       // the last literal INSERT's text, reused
	raw   sql.RawBytes // a DATETIME's text (dialect.dateTimeText)
}

func (c *sqlConn) table(t string) *tableSQL {
	s, ok := c.sql[t]
	if !ok {
		s = newTableSQL(c.d, t)
		c.sql[t] = s
	}
	return s
}

func (c *sqlConn) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	st, err := c.c.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.stmts[q] = st
	return st, nil
}

func (c *sqlConn) Insert(ctx context.Context, t string, rows []ib.Row) error {
	if len(rows) == 0 {
		return nil
	}
	if c.d.literalInsert { // no arguments: the driver sends the text as it is, unprepared
		ts := time.Unix(rows[0].DateAndTime, 0).UTC().Format(time.DateTime)
		c.buf = appendInsertLiteral(c.buf[:0], t, rows, ts, true)
		_, err := c.c.ExecContext(ctx, string(c.buf))
		return err
	}
	st, err := c.stmt(ctx, c.table(t).insertSQL(c.d, t, len(rows)))
	if err != nil {
		return err
	}
	c.args = c.args[:0]
	for i := range rows {
		r := &rows[i]
		c.args = append(c.args, r.ID, r.DateAndTime, r.CashRegister, r.Customer, r.Product, r.Price, r.Data)
	}
	_, err = st.ExecContext(ctx, c.args...)
	return err
}

func (c *sqlConn) DeleteOldest(ctx context.Context, t string, from, to int64) (int64, error) {
	st, err := c.stmt(ctx, c.table(t).deleteOldest)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, from, to, to-from)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c *sqlConn) RangeQuery(ctx context.Context, t string, idx ib.Index, x int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	st, err := c.stmt(ctx, c.table(t).rangeQuery[idx])
	if err != nil {
		return out, err
	}
	rows, err := st.QueryContext(ctx, x)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	text := idx == ib.PDC && c.d.dateTimeText
	for rows.Next() {
		var r ib.IndexRow
		if text {
			if err := rows.Scan(&r[0], &c.raw, &r[2]); err != nil {
				return out, err
			}
			if r[1], err = parseDateTime(c.raw); err != nil {
				return out, fmt.Errorf("range query on %s.%s: %v", t, idx, err)
			}
		} else if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (c *sqlConn) PointQuery(ctx context.Context, t string, ids []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	st, err := c.stmt(ctx, c.table(t).pointSQL(c.d, t, len(ids)))
	if err != nil {
		return out, err
	}
	c.args = c.args[:0]
	for _, id := range ids {
		c.args = append(c.args, id)
	}
	rows, err := st.QueryContext(ctx, c.args...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var r ib.PointRow
		if err := rows.Scan(&r.ID, &r.Product, &r.Data); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (c *sqlConn) Close() error {
	for _, st := range c.stmts {
		st.Close()
	}
	return c.c.Close()
}

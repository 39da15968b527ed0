package sqldriver

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/dbperf/dbperf/internal/driver"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

func init() {
	driver.Register(driver.Kind{
		Name: "sqlite", Usage: "sqlite[:FILE]",
		Summary: "SQLite (embedded, the default), WAL journal, synchronous=FULL; a temporary file when FILE is omitted",
		Open:    openSQLite,
	})
}

// sqlitePragmas make commits durable (WAL + synchronous=FULL, like the other targets' synced
// commits) and let writers wait for each other instead of failing with SQLITE_BUSY.
var sqlitePragmas = []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(600000)"}

// SQLite is a SQLite driver. Each client role gets its own connection from the pool.
type SQLite struct {
	spec    driver.Spec
	path    string
	tempDir string
	db      *sql.DB
}

var _ driver.Target = (*SQLite)(nil)

func openSQLite(ctx context.Context, s driver.Spec) (driver.Target, error) {
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

// Info implements driver.Target.
func (s *SQLite) Info(ctx context.Context) driver.Info {
	info := driver.Info{Kind: "sqlite", Target: s.spec.String(), Engine: "SQLite", Settings: map[string]any{
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

// Close implements driver.Target.
func (s *SQLite) Close() error {
	err := s.db.Close()
	s.cleanup()
	return err
}

// DB is the target's connection pool, for DDL and checks.
func (s *SQLite) DB() *sql.DB { return s.db }

// Conn takes a dedicated connection from the pool, for one client role.
func (s *SQLite) Conn(ctx context.Context) (*sql.Conn, error) { return s.db.Conn(ctx) }

// Dialect is SQLite's: ? placeholders and double-quoted identifiers.
func (s *SQLite) Dialect() Dialect { return SQLiteDialect }

// Settle refreshes the planner's statistics and checkpoints the WAL into the database file
// (every table: ANALYZE and the checkpoint cover the whole database).
func (s *SQLite) Settle(ctx context.Context, _ []string) (string, error) {
	if _, err := s.db.ExecContext(ctx, "ANALYZE"); err != nil {
		return "", err
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return "", err
	}
	return "analyze; wal_checkpoint(TRUNCATE)", nil
}

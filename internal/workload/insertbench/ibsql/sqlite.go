package ibsql

import (
	"context"
	"database/sql"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// liteStore is the Insert Benchmark on SQLite: DDL and checks on the pool, a dedicated
// connection for each client role.
type liteStore struct{ t *sqldriver.SQLite }

var (
	_ ib.Store   = (*liteStore)(nil)
	_ ib.Settler = (*liteStore)(nil)
)

// Settle implements insertbench.Settler: the driver's ANALYZE and WAL checkpoint.
func (s *liteStore) Settle(ctx context.Context, tables []string, _ time.Time, _ float64) (string, error) {
	return s.t.Settle(ctx, tables)
}

// CreateTables implements insertbench.Store.
func (s *liteStore) CreateTables(ctx context.Context, tables []string) error {
	return sqlite.createTables(ctx, func(ctx context.Context, q string) error {
		_, err := s.t.DB().ExecContext(ctx, q)
		return err
	}, tables)
}

// CreateIndexes implements insertbench.Store.
func (s *liteStore) CreateIndexes(ctx context.Context, table string) error {
	for idx := range ib.NumIndexes {
		if _, err := s.t.DB().ExecContext(ctx, sqlite.createIndex(table, idx)); err != nil {
			return err
		}
	}
	return nil
}

// Stats implements insertbench.Store; INDEXED BY makes each count read its own index (SQLite
// fails the statement rather than use another).
func (s *liteStore) Stats(ctx context.Context, table string) (ib.TableStats, error) {
	var st ib.TableStats
	if err := s.t.DB().QueryRowContext(ctx, sqlite.tableStats(table)).Scan(&st.Rows, &st.MinID, &st.MaxID); err != nil {
		return st, err
	}
	var n int
	if err := s.t.DB().QueryRowContext(ctx, sqliteIndexesSQL, table).Scan(&n); err != nil {
		return st, err
	}
	if n == 0 {
		return st, nil
	}
	st.IndexRows = make([]int64, ib.NumIndexes)
	for idx := range ib.NumIndexes {
		q := sqliteIndexCount(table, idx)
		if err := s.t.DB().QueryRowContext(ctx, q).Scan(&st.IndexRows[idx]); err != nil {
			return st, err
		}
	}
	return st, nil
}

// Connect implements insertbench.Store: a dedicated connection with its own prepared statements.
func (s *liteStore) Connect(ctx context.Context) (ib.Conn, error) {
	c, err := s.t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// Prepared: the reference has no SQLite path, and SQLite parses in-process.
	return &sqlConn{c: c, d: sqlite, stmts: map[string]*sql.Stmt{}, sql: map[string]*tableSQL{}, prepared: true}, nil
}

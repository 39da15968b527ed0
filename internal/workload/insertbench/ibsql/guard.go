package ibsql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// No silent destruction: dbperf marks the tables it creates (dialect.markTable); a table of the
// same name without the mark is another's, which l.i0 replaces only with --drop and cleanup
// never removes.

var (
	_ ib.TableGuard = (*pgStore)(nil)
	_ ib.TableGuard = (*myStore)(nil)
)

// ForeignTables implements insertbench.TableGuard.
func (p *pgStore) ForeignTables(ctx context.Context, tables []string) ([]string, error) {
	rows, err := p.t.Admin().Query(ctx, postgres.foreignTables, tables)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return names(rows)
}

// names reads a one-column result of table names: pgx's rows and database/sql's alike.
func names(rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}) ([]string, error) {
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// DropTables implements insertbench.TableGuard.
func (p *pgStore) DropTables(ctx context.Context, tables []string) ([]string, []string, error) {
	return dropOwn(ctx, tables, p.ForeignTables, func(ctx context.Context, q string) error {
		_, err := p.t.Admin().Exec(ctx, q)
		return err
	})
}

// ForeignTables implements insertbench.TableGuard.
func (m *myStore) ForeignTables(ctx context.Context, tables []string) ([]string, error) {
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = "'" + strings.ReplaceAll(t, "'", "''") + "'"
	}
	rows, err := m.t.DB().QueryContext(ctx, fmt.Sprintf(m.d.foreignTables, strings.Join(quoted, ", ")))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return names(rows)
}

// DropTables implements insertbench.TableGuard.
func (m *myStore) DropTables(ctx context.Context, tables []string) ([]string, []string, error) {
	return dropOwn(ctx, tables, m.ForeignTables, m.exec)
}

// dropOwn drops those of tables that are not foreign; DROP TABLE IF EXISTS, so a table that is
// not there is no error.
func dropOwn(ctx context.Context, tables []string, foreign func(context.Context, []string) ([]string, error), exec execer) (dropped, kept []string, err error) {
	if kept, err = foreign(ctx, tables); err != nil {
		return nil, nil, err
	}
	for _, t := range tables {
		if slices.Contains(kept, t) {
			continue
		}
		if err := exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return dropped, kept, err
		}
		dropped = append(dropped, t)
	}
	return dropped, kept, nil
}

var (
	_ ib.CacheChecker = (*pgStore)(nil)
	_ ib.CacheChecker = (*myStore)(nil)
)

// CacheCheck implements insertbench.CacheChecker.
func (p *pgStore) CacheCheck(ctx context.Context) (string, int64, int64, error) {
	ci, err := p.t.CacheInfo(ctx)
	return ci.Config, ci.Cache, ci.Database, err
}

// CacheCheck implements insertbench.CacheChecker.
func (m *myStore) CacheCheck(ctx context.Context) (string, int64, int64, error) {
	ci, err := m.t.CacheInfo(ctx)
	return ci.Config, ci.Cache, ci.Database, err
}

package ibsql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// myStore is the Insert Benchmark on MySQL or MariaDB, in the target's engine: DDL and checks on
// the pool, a dedicated connection for each client role.
type myStore struct {
	t *sqldriver.MySQL
	d dialect
	// prepared and bounded: see insertbench.StatementMode.
	prepared, bounded bool
}

// SetStatementMode implements insertbench.StatementMode.
func (m *myStore) SetStatementMode(prepared, sharedTable bool) {
	m.prepared, m.bounded = prepared, sharedTable
}

var (
	_ ib.Store         = (*myStore)(nil)
	_ ib.Settler       = (*myStore)(nil)
	_ ib.StepStarter   = (*myStore)(nil)
	_ ib.StatementMode = (*myStore)(nil)
)

func newMyStore(t *sqldriver.MySQL) *myStore {
	return &myStore{t: t, d: mysqlDialect(t.Engine(), t.RocksDB())}
}

func (m *myStore) exec(ctx context.Context, q string) error {
	_, err := m.t.DB().ExecContext(ctx, q)
	return err
}

// CreateTables implements insertbench.Store. It checks that each table got the engine asked for,
// in case the server's sql_mode lets it substitute another.
func (m *myStore) CreateTables(ctx context.Context, tables []string) error {
	if err := m.d.createTables(ctx, m.exec, tables); err != nil {
		return err
	}
	for _, t := range tables {
		if err := m.t.CheckTableEngine(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// CreateIndexes implements insertbench.Store: one ALTER TABLE for the three indexes on InnoDB, one
// ALTER TABLE each on MyRocks.
func (m *myStore) CreateIndexes(ctx context.Context, table string) error {
	for _, q := range m.d.createIndexes(table) {
		if err := m.exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Settle implements insertbench.Settler: the driver's settle as the reference's vac_my.
func (m *myStore) Settle(ctx context.Context, tables []string, until time.Time, scale float64) (string, error) {
	return m.t.Settle(ctx, tables, sqldriver.SettleOptions{Until: until, Scale: scale})
}

// BeforeStep implements insertbench.StepStarter: RESET MASTER when the binlog is on (np.sh:65).
func (m *myStore) BeforeStep(ctx context.Context) string { return m.t.ResetBinlog(ctx) }

// Stats implements insertbench.Store. Each index's entries are counted by reading that index (FORCE
// INDEX, and a condition on its leading column that every entry meets so that the server reads
// the index rather than a cached row count); EXPLAIN must show that index as the key.
func (m *myStore) Stats(ctx context.Context, table string) (ib.TableStats, error) {
	var st ib.TableStats
	if err := m.t.DB().QueryRowContext(ctx, m.d.tableStats(table)).Scan(&st.Rows, &st.MinID, &st.MaxID); err != nil {
		return st, err
	}
	names := make([]string, ib.NumIndexes)
	for idx := range ib.NumIndexes {
		names[idx] = indexName(table, idx)
	}
	exists := map[string]bool{}
	rows, err := m.t.DB().QueryContext(ctx, mysqlIndexesSQL,
		table, names[0], names[1], names[2])
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return st, err
		}
		exists[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}
	if len(exists) == 0 {
		return st, nil
	}
	st.IndexRows = make([]int64, ib.NumIndexes)
	for idx := range ib.NumIndexes {
		if !exists[names[idx]] {
			st.Problems = append(st.Problems, fmt.Sprintf("index %s does not exist", names[idx]))
			continue
		}
		q := mysqlIndexCount(table, idx)
		key, plan, err := m.explainKey(ctx, q)
		if err != nil {
			return st, err
		}
		if key != names[idx] {
			st.Problems = append(st.Problems, fmt.Sprintf("cannot count index %s: the server does not use it (key %q):\n%s", names[idx], key, plan))
			continue
		}
		if err := m.t.DB().QueryRowContext(ctx, q).Scan(&st.IndexRows[idx]); err != nil {
			return st, err
		}
	}
	return st, nil
}

// explainKey returns the key column of q's EXPLAIN and the plan as text.
func (m *myStore) explainKey(ctx context.Context, q string) (string, string, error) {
	rows, err := m.t.DB().QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		return "", "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", "", err
	}
	var key string
	var plan strings.Builder
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", "", err
		}
		for i, c := range cols {
			fmt.Fprintf(&plan, "%s=%s ", c, vals[i].String)
			if strings.EqualFold(c, "key") {
				key = vals[i].String
			}
		}
		plan.WriteString("\n")
	}
	return key, plan.String(), rows.Err()
}

// Connect implements insertbench.Store: a dedicated connection sending the reference's SQL text
// (or, with --prepared, its own prepared statements for queries and deletes); inserts are
// literal text, unprepared, either way. The text statements go on the connection's socket
// (wire.MySQL) unless the target's client path is the driver. It is opened again after a loss
// (redial.go).
func (m *myStore) Connect(ctx context.Context) (ib.Conn, error) { return redialing(ctx, m.connect) }

func (m *myStore) connect(ctx context.Context) (ib.Conn, error) {
	c, err := m.t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	sc := &sqlConn{c: c, d: m.d, stmts: map[string]*sql.Stmt{}, sql: map[string]*tableSQL{}, prepared: m.prepared, bounded: m.bounded}
	if path, _ := m.t.ClientPath(); path.Lean() {
		sock, err := m.t.Socket(ctx, c)
		if err != nil {
			c.Close()
			return nil, err
		}
		sc.wire = wire.NewMySQL(sock, path.Poll())
	}
	return sc, nil
}

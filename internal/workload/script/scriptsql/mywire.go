package scriptsql

import (
	"context"

	"github.com/dbperf/dbperf/internal/driver/wire"
	"github.com/dbperf/dbperf/internal/workload/script"
)

// myWireConn is a MySQL/MariaDB client's connection on the lean path (wire.MySQL, on the
// driver's socket between database/sql's operations): simple mode sends the text as
// COM_QUERY; extended prepares, executes and closes the statement each time, as the driver
// does for a query with arguments; prepared prepares it once per connection. A statement
// whose results \gset or \aset reads goes through database/sql (dbConn), which reads the
// columns' names. Why: database/sql's two goroutines per statement and its row conversions
// (docs/performance.md, "The lean client paths"). --client-path driver, TLS, a Unix socket or a
// proxy take dbConn alone.
type myWireConn struct {
	*dbConn
	w     *wire.MySQL
	stmts []*wire.MyStmt // prepared mode, by statement id
	text  []byte         // extended mode: the statement's text, reused
	args  []any
}

// Exec runs st and reads its reply to its end; the error is the server's *mysql.MySQLError
// (with its number, which the retries classify), the context's, or the connection's.
func (m *myWireConn) Exec(ctx context.Context, st *script.Stmt) ([]script.Result, error) {
	if st.Store != script.StoreNone {
		return m.dbConn.Exec(ctx, st)
	}
	var rows bool
	var err error
	switch st.Mode {
	case script.ModeSimple:
		rows, _, err = m.w.Query(ctx, st.SQL)
	case script.ModeExtended:
		m.text = append(m.text[:0], st.Text...)
		var ps *wire.MyStmt
		if ps, err = m.w.Prepare(ctx, m.text); err != nil {
			return nil, err
		}
		rows, _, err = m.w.Execute(ctx, ps, m.argsOf(st))
		if err == nil && rows {
			err = m.drain()
			rows = false
		}
		if cerr := m.w.CloseStmt(ps); err == nil {
			err = cerr
		}
	default:
		var ps *wire.MyStmt
		if ps, err = m.prepare(ctx, st); err == nil {
			rows, _, err = m.w.Execute(ctx, ps, m.argsOf(st))
		}
	}
	if err == nil && rows {
		err = m.drain()
	}
	return nil, err
}

// drain reads the rest of the reply; its error is the statement's.
func (m *myWireConn) drain() error {
	for {
		if _, ok, err := m.w.NextRow(); !ok {
			return err
		}
	}
}

// argsOf is st's parameters for Execute: their text, or nil for NULL.
func (m *myWireConn) argsOf(st *script.Stmt) []any {
	m.args = m.args[:0]
	for _, p := range st.Params {
		if p == nil {
			m.args = append(m.args, nil)
		} else {
			m.args = append(m.args, p)
		}
	}
	return m.args
}

func (m *myWireConn) prepare(ctx context.Context, st *script.Stmt) (*wire.MyStmt, error) {
	for len(m.stmts) <= st.ID {
		m.stmts = append(m.stmts, nil)
	}
	if m.stmts[st.ID] == nil {
		ps, err := m.w.Prepare(ctx, []byte(st.Text))
		if err != nil {
			return nil, err
		}
		m.stmts[st.ID] = ps
	}
	return m.stmts[st.ID], nil
}

// InTransaction is SERVER_STATUS_IN_TRANS of the server's last OK or EOF packet on the lean
// path, as pgbench reads PostgreSQL's transaction status after a script (pgbench.c:
// 4246-4257). A statement read through database/sql (\gset, \aset) leaves the flags of the one
// before it: a SELECT does not open or close a block.
func (m *myWireConn) InTransaction() bool { return m.w.InTransaction() }

func (m *myWireConn) Rollback(ctx context.Context) error {
	_, err := m.w.Exec(ctx, rollbackSQL)
	return err
}

// Close frees the prepared statements and closes the driver's connection.
func (m *myWireConn) Close() error {
	for _, ps := range m.stmts {
		if ps != nil {
			m.w.CloseStmt(ps)
		}
	}
	m.w.Close()
	return m.dbConn.Close()
}

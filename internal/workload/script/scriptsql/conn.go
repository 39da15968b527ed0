package scriptsql

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgConn is a PostgreSQL client's connection.
type pgConn struct {
	c        *pgx.Conn
	prepared []bool // by statement id
	names    []string
}

// Exec runs st in its mode (pgbench.c:3170-3218): the simple protocol (what pgx's
// QueryExecModeSimpleProtocol sends), an unnamed statement parsed at each execution (pgx's
// QueryExecModeExec), or a statement prepared once as P_<id> (pgx's prepared statements).
func (p *pgConn) Exec(ctx context.Context, st *script.Stmt) ([]script.Result, error) {
	pc := p.c.PgConn()
	if st.Mode == script.ModeSimple {
		mrr := pc.Exec(ctx, string(st.SQL))
		if st.Store == script.StoreNone {
			for mrr.NextResult() {
				if _, err := mrr.ResultReader().Close(); err != nil {
					mrr.Close()
					return nil, err
				}
			}
			return nil, mrr.Close()
		}
		all, err := mrr.ReadAll()
		if err != nil {
			return nil, err
		}
		out := make([]script.Result, 0, len(all))
		for _, r := range all {
			out = append(out, toResult(r))
		}
		return out, nil
	}
	var rr *pgconn.ResultReader
	if st.Mode == script.ModeExtended {
		rr = pc.ExecParams(ctx, st.Text, st.Params, nil, nil, nil)
	} else {
		name, err := p.prepare(ctx, st)
		if err != nil {
			return nil, err
		}
		rr = pc.ExecPrepared(ctx, name, st.Params, nil, nil)
	}
	if st.Store == script.StoreNone {
		_, err := rr.Close()
		return nil, err
	}
	r := rr.Read()
	if r.Err != nil {
		return nil, r.Err
	}
	return []script.Result{toResult(r)}, nil
}

// prepare prepares st once per connection; pgbench only logs a failed PREPARE, and its
// execution fails next, which is what happens here too.
func (p *pgConn) prepare(ctx context.Context, st *script.Stmt) (string, error) {
	for len(p.prepared) <= st.ID {
		p.prepared = append(p.prepared, false)
		p.names = append(p.names, "P_"+strconv.Itoa(len(p.names)))
	}
	if !p.prepared[st.ID] {
		if _, err := p.c.PgConn().Prepare(ctx, p.names[st.ID], st.Text, nil); err != nil {
			return "", err
		}
		p.prepared[st.ID] = true
	}
	return p.names[st.ID], nil
}

func toResult(r *pgconn.Result) script.Result {
	res := script.Result{}
	for _, f := range r.FieldDescriptions {
		res.Cols = append(res.Cols, f.Name)
	}
	for _, row := range r.Rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = string(v)
		}
		res.Rows = append(res.Rows, vals)
	}
	return res
}

func (p *pgConn) Rollback(ctx context.Context) error {
	_, err := p.c.PgConn().Exec(ctx, "ROLLBACK").ReadAll()
	return err
}

// InTransaction is the server's transaction status: in a block, or in a failed one.
func (p *pgConn) InTransaction() bool { return p.c.PgConn().TxStatus() != 'I' }

func (p *pgConn) Close() error { return p.c.Close(context.Background()) }

// dbConn is a MySQL/MariaDB or SQLite client's connection.
type dbConn struct {
	c        *sql.Conn
	prepared []*sql.Stmt // by statement id
	args     []any
	// endCheck: MySQL through database/sql alone, which cannot see the server's status
	// flags after each script; Close asks MariaDB's @@in_transaction once instead.
	endCheck bool
}

func (d *dbConn) Exec(ctx context.Context, st *script.Stmt) ([]script.Result, error) {
	var rows *sql.Rows
	var err error
	switch st.Mode {
	case script.ModeSimple:
		rows, err = d.c.QueryContext(ctx, string(st.SQL))
	case script.ModeExtended:
		// Prepared, executed and closed each time, as pgbench's unnamed statement: never
		// go-sql-driver's interpolation, which escapes by the status flags of the last reply
		// it read, and a SET sql_mode on the lean path changes them unseen.
		var ps *sql.Stmt
		if ps, err = d.c.PrepareContext(ctx, st.Text); err != nil {
			return nil, err
		}
		defer ps.Close() // on return, once its rows are read and closed
		rows, err = ps.QueryContext(ctx, d.argsOf(st)...)
	default:
		var ps *sql.Stmt
		if ps, err = d.prepare(ctx, st); err == nil {
			rows, err = ps.QueryContext(ctx, d.argsOf(st)...)
		}
	}
	if err != nil {
		return nil, err
	}
	if st.Store == script.StoreNone {
		for rows.Next() {
		}
		return nil, firstErr(rows.Err(), rows.Close())
	}
	r, err := readRows(rows)
	if err != nil {
		return nil, err
	}
	return []script.Result{r}, nil
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (d *dbConn) argsOf(st *script.Stmt) []any {
	d.args = d.args[:0]
	for _, a := range st.Params {
		if a == nil {
			d.args = append(d.args, nil)
		} else {
			d.args = append(d.args, string(a))
		}
	}
	return d.args
}

func (d *dbConn) prepare(ctx context.Context, st *script.Stmt) (*sql.Stmt, error) {
	for len(d.prepared) <= st.ID {
		d.prepared = append(d.prepared, nil)
	}
	if d.prepared[st.ID] == nil {
		ps, err := d.c.PrepareContext(ctx, st.Text)
		if err != nil {
			return nil, err
		}
		d.prepared[st.ID] = ps
	}
	return d.prepared[st.ID], nil
}

func (d *dbConn) Rollback(ctx context.Context) error {
	_, err := d.c.ExecContext(ctx, "ROLLBACK")
	return err
}

// InTransaction is unknown through database/sql (go-sql-driver/mysql keeps the server's
// status flags to itself; SQLite's driver has no sqlite3_get_autocommit): false. MySQL's lean
// path reads the flags (myWireConn); on its driver path Close asks once (endCheck).
func (d *dbConn) InTransaction() bool { return false }

func (d *dbConn) Close() error {
	for _, ps := range d.prepared {
		if ps != nil {
			ps.Close()
		}
	}
	open := d.endCheck && d.inTransactionNow()
	if err := d.c.Close(); err != nil || !open {
		return err
	}
	return errors.New("a client's connection was inside a transaction block at the step's end (MariaDB's @@in_transaction): a script ends inside one; end it with COMMIT or ROLLBACK (pgbench aborts the client after such a script, pgbench.c:4246-4257)")
}

// inTransactionNow asks MariaDB's @@in_transaction: one round trip, at the step's end only.
// MySQL has no such variable: its error means "cannot tell", false.
func (d *dbConn) inTransactionNow() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	return d.c.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&n) == nil && n != 0
}

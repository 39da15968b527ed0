package scriptsql

import (
	"context"
	"errors"
	"strconv"

	"github.com/dbperf/dbperf/internal/driver/wire"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/jackc/pgx/v5"
)

// pgWireConn is a PostgreSQL client's connection on the lean path (wire.Postgres): the
// statements go on pgx's own socket as libpq sends them for pgbench (pgbench.c:3170-3218):
// simple, a Query message with the values in the text; extended, the unnamed statement
// parsed, bound, described and executed each time (PQsendQueryParams); prepared, Parse once
// per connection as P_<id> (PQprepare), then Bind, Describe, Execute (PQsendQueryPrepared).
// Results come as text, as libpq's. Why: through pgconn each statement costs a watchdog timer,
// a context watcher and a result reader, about a third of the client's CPU per select-only
// transaction (docs/performance.md, "The script workload's lean path"). --client-path driver
// and TLS take pgConn.
type pgWireConn struct {
	c        *pgx.Conn // owns the connection
	w        *wire.Postgres
	prepared []bool // by statement id
	names    []string
}

var rollbackSQL = []byte("ROLLBACK")

func newPGWireConn(c *pgx.Conn, poll bool) (*pgWireConn, error) {
	w, err := wire.NewPostgres(c.PgConn(), poll)
	if err != nil {
		return nil, err
	}
	return &pgWireConn{c: c, w: w}, nil
}

// Exec sends st in its mode and reads its reply: to its end, or its results for \gset and
// \aset. The statement's error is the server's (*pgconn.PgError, with its SQLSTATE), the
// context's, or the connection's.
func (p *pgWireConn) Exec(ctx context.Context, st *script.Stmt) ([]script.Result, error) {
	var err error
	switch st.Mode {
	case script.ModeSimple:
		err = p.w.Query(ctx, st.SQL)
	case script.ModeExtended:
		err = p.w.ExecParams(ctx, st.Text, st.Params)
	default:
		var name string
		if name, err = p.prepare(ctx, st); err == nil {
			err = p.w.ExecPreparedText(ctx, name, st.Params)
		}
	}
	if err != nil {
		return nil, err
	}
	if st.Store == script.StoreNone {
		for {
			if _, ok, err := p.w.NextRow(); !ok {
				return nil, replyErr(err)
			}
		}
	}
	return p.results()
}

// replyErr is a reply's error as pgconn's Exec reports it: a statement answered ROLLBACK (a
// script's ROLLBACK in extended or prepared mode, a COMMIT of a failed block) is no error, as
// it is none for pgbench.
func replyErr(err error) error {
	if errors.Is(err, wire.ErrCommitRollback) {
		return nil
	}
	return err
}

// results reads a reply's results as pgconn's ReadAll does: one per result, with its columns
// if it has any, every value as text (NULL as "").
func (p *pgWireConn) results() ([]script.Result, error) {
	var out []script.Result
	open := false // a result's columns were read and its end was not
	for {
		part, vals, err := p.w.NextPart()
		switch part {
		case wire.PartEnd:
			if err = replyErr(err); err != nil {
				return nil, err
			}
			return out, nil
		case wire.PartFields:
			r := script.Result{Cols: make([]string, len(vals))}
			for i, v := range vals {
				r.Cols[i] = string(v)
			}
			out, open = append(out, r), true
		case wire.PartRow:
			if !open {
				out, open = append(out, script.Result{}), true
			}
			row := make([]string, len(vals))
			for i, v := range vals {
				row[i] = string(v)
			}
			out[len(out)-1].Rows = append(out[len(out)-1].Rows, row)
		case wire.PartDone:
			if !open {
				out = append(out, script.Result{})
			}
			open = false
		}
	}
}

// prepare prepares st once per connection, on the socket (pgbench only logs a failed PREPARE
// and its execution fails next; here the PREPARE's own error is the statement's, as on pgConn).
func (p *pgWireConn) prepare(ctx context.Context, st *script.Stmt) (string, error) {
	for len(p.prepared) <= st.ID {
		p.prepared = append(p.prepared, false)
		p.names = append(p.names, "P_"+strconv.Itoa(len(p.names)))
	}
	if !p.prepared[st.ID] {
		if err := p.w.Prepare(ctx, p.names[st.ID], st.Text); err != nil {
			return "", err
		}
		p.prepared[st.ID] = true
	}
	return p.names[st.ID], nil
}

func (p *pgWireConn) Rollback(ctx context.Context) error {
	return p.w.ExecSimple(ctx, rollbackSQL)
}

// InTransaction is the last reply's transaction status: in a block, or in a failed one.
func (p *pgWireConn) InTransaction() bool { return p.w.TxStatus() != 'I' }

// Close hands the socket back to pgx, which closes the connection.
func (p *pgWireConn) Close() error {
	p.w.Close()
	p.w.Release()
	return p.c.Close(context.Background())
}

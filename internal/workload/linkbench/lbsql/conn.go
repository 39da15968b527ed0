package lbsql

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
)

// rows is what both database/sql and pgx results give.
type rows interface {
	Next() bool
	Scan(dest ...any) error
}

// wireRows reads a result's rows on a socket path (wire.MySQL or wire.Postgres): Next, and the
// error that ended them; each path's Scan converts the values.
type wireRows struct {
	src interface {
		NextRow() ([][]byte, bool, error)
	}
	vals [][]byte
	err  error
	done bool
}

func (r *wireRows) Next() bool {
	if r.done {
		return false
	}
	vals, ok, err := r.src.NextRow()
	if !ok {
		r.done, r.err, r.vals = true, err, nil
		return false
	}
	r.vals = vals
	return true
}

// drain reads the rows a callback left unread, keeping an error that ends them.
func (r *wireRows) drain() {
	for !r.done {
		r.Next()
	}
}

// conn is one connection, database/sql's (MySQL, SQLite) or pgx's (PostgreSQL).
type conn interface {
	exec(ctx context.Context, q string, args ...any) (affected int64, err error)
	query(ctx context.Context, q string, args []any, fn func(rows) error) error
	close() error
}

// sqlConn is a database/sql connection; statements are prepared once per connection (MySQL's
// driver interpolates parameters instead, as configured by sqldriver, so it prepares nothing).
type sqlConn struct {
	c       *sql.Conn
	prepare bool
	stmts   map[string]*sql.Stmt
}

func newSQLConn(c *sql.Conn, prepare bool) *sqlConn {
	return &sqlConn{c: c, prepare: prepare, stmts: map[string]*sql.Stmt{}}
}

func (c *sqlConn) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	st, err := c.c.PrepareContext(ctx, q)
	if err == nil {
		c.stmts[q] = st
	}
	return st, err
}

func (c *sqlConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if c.prepare && len(args) > 0 && len(args) < 100 {
		var st *sql.Stmt
		if st, err = c.stmt(ctx, q); err != nil {
			return 0, err
		}
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = c.c.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c *sqlConn) query(ctx context.Context, q string, args []any, fn func(rows) error) error {
	var rs *sql.Rows
	var err error
	if c.prepare {
		var st *sql.Stmt
		if st, err = c.stmt(ctx, q); err != nil {
			return err
		}
		rs, err = st.QueryContext(ctx, args...)
	} else {
		rs, err = c.c.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return err
	}
	defer rs.Close()
	if err := fn(rs); err != nil {
		return err
	}
	return rs.Err()
}

// queryText runs q unprepared: on MySQL the driver writes the arguments into the text
// (interpolateParams).
func (c *sqlConn) queryText(ctx context.Context, q string, args []any, fn func(rows) error) error {
	rs, err := c.c.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	if err := fn(rs); err != nil {
		return err
	}
	return rs.Err()
}

func (c *sqlConn) close() error {
	for _, st := range c.stmts {
		st.Close()
	}
	return c.c.Close()
}

// pgConn is a pgx connection; pgx prepares and caches each statement itself.
type pgConn struct{ c *pgx.Conn }

func (c pgConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := c.c.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (c pgConn) query(ctx context.Context, q string, args []any, fn func(rows) error) error {
	rs, err := c.c.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	if err := fn(rs); err != nil {
		return err
	}
	rs.Close()
	return rs.Err()
}

func (c pgConn) close() error { return c.c.Close(context.Background()) }

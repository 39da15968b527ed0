package sbsql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
)

// myStore is MySQL/MariaDB: DDL and checks through database/sql, the clients' statements
// prepared on the server (COM_STMT_PREPARE, as sysbench's mysql_stmt_prepare) on the
// connection's own socket (wire.MySQL), or through database/sql with --client-path driver.
type myStore struct {
	t *sqldriver.MySQL
	o Options
}

func (s *myStore) Dialect() string          { return "mysql" }
func (s *myStore) QueryMode() string        { return s.o.QueryMode }
func (s *myStore) Ignorable(err error) bool { return myIgnorable(s.o, err) }
func (s *myStore) Engine() string           { return s.t.Engine() }

func (s *myStore) Exec(ctx context.Context, q string) error {
	_, err := s.t.DB().ExecContext(ctx, q)
	return err
}

func (s *myStore) Count(ctx context.Context, table int) (n, ids int64, err error) {
	return count(ctx, s.t.DB(), table)
}

func count(ctx context.Context, db *sql.DB, table int) (n, ids int64, err error) {
	err = db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*), count(DISTINCT id) FROM sbtest%d", table)).Scan(&n, &ids)
	return n, ids, err
}

// Connect opens a client's connection; the run step's survives a restart of the server
// (redial.go).
func (s *myStore) Connect(ctx context.Context, stmts bool) (sb.Conn, error) {
	if !stmts {
		return s.connect(ctx, false)
	}
	return redialing(ctx, func(ctx context.Context) (sb.Conn, error) { return s.connect(ctx, true) })
}

func (s *myStore) connect(ctx context.Context, stmts bool) (sb.Conn, error) {
	c, err := s.t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if path, _ := s.t.ClientPath(); path.Lean() {
		sock, err := s.t.Socket(ctx, c)
		if err != nil {
			c.Close()
			return nil, err
		}
		mc := &myConn{c: c, w: wire.NewMySQL(sock, path.Poll()), stmts: make([]*wire.MyStmt, slots(s.o))}
		if stmts && s.o.QueryMode == sb.QueryPrepared {
			err = s.o.each(func(st sb.Stmt, table int) error {
				p, err := mc.w.Prepare(ctx, []byte(sb.SQL(st, table)))
				if err != nil {
					return fmt.Errorf("prepare %s: %w", sb.SQL(st, table), err)
				}
				mc.stmts[key(st, table)] = p
				return nil
			})
		}
		if err != nil {
			mc.Close()
			return nil, err
		}
		return mc, nil
	}
	return newSQLConn(ctx, c, s.o, true, stmts)
}

// myConn is a MySQL connection's socket: prepared statements with binary rows, or text.
type myConn struct {
	c     *sql.Conn // owns the connection; the server frees its statements when it closes
	w     *wire.MySQL
	stmts []*wire.MyStmt // by key; nil: sent as text
	text  []byte
	// vals hold a statement's arguments as wire takes them without boxing each: pointers to
	// ints and strs
	vals []any
	ints [4]int64
	strs [4][]byte
}

func (c *myConn) Exec(ctx context.Context, s sb.Stmt, table int, args []sb.Arg) (sb.Result, error) {
	st := c.stmts[key(s, table)]
	if st == nil {
		var err error
		if c.text, err = interpolate(c.text[:0], sb.SQL(s, table), args, true); err != nil {
			return sb.Result{}, err
		}
		return c.Text(ctx, c.text)
	}
	if len(args) > len(c.ints) {
		return sb.Result{}, fmt.Errorf("%s: %d arguments, at most %d", sb.SQL(s, table), len(args), len(c.ints))
	}
	c.vals = c.vals[:0]
	for i, a := range args {
		if a.Str == nil {
			c.ints[i] = a.Int
			c.vals = append(c.vals, &c.ints[i])
		} else {
			c.strs[i] = a.Str
			c.vals = append(c.vals, &c.strs[i])
		}
	}
	rows, affected, err := c.w.Execute(ctx, st, c.vals)
	clear(c.strs[:]) // the client's bytes are not kept
	return c.result(rows, affected, err)
}

// result reads and drops a reply's rows.
func (c *myConn) result(rows bool, affected int64, err error) (sb.Result, error) {
	if err != nil {
		return sb.Result{}, err
	}
	if rows {
		for ok := true; ok; {
			_, ok, err = c.w.NextRow()
		}
		return sb.Result{Rows: true}, err
	}
	return sb.Result{Affected: affected}, nil
}

func (c *myConn) Text(ctx context.Context, q []byte) (sb.Result, error) {
	return c.result(c.w.Query(ctx, q))
}

func (c *myConn) Rollback(ctx context.Context) error {
	_, err := c.w.Exec(ctx, []byte("ROLLBACK"))
	return err
}

func (c *myConn) Close() error {
	c.w.Close()
	return c.c.Close()
}

// liteStore is SQLite through database/sql, each statement prepared once per connection.
type liteStore struct {
	t *sqldriver.SQLite
	o Options
}

func (s *liteStore) Dialect() string   { return "sqlite" }
func (s *liteStore) QueryMode() string { return sb.QueryPrepared }

// Ignorable: SQLITE_BUSY (a writer waited longer than the busy timeout) restarts the event as
// a deadlock does on the servers.
func (s *liteStore) Ignorable(err error) bool { return strings.Contains(err.Error(), "SQLITE_BUSY") }
func (s *liteStore) Exec(ctx context.Context, q string) error {
	_, err := s.t.DB().ExecContext(ctx, q)
	return err
}

func (s *liteStore) Count(ctx context.Context, table int) (n, ids int64, err error) {
	return count(ctx, s.t.DB(), table)
}

func (s *liteStore) Connect(ctx context.Context, stmts bool) (sb.Conn, error) {
	c, err := s.t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return newSQLConn(ctx, c, s.o, false, stmts)
}

// sqlConn is a database/sql connection: SQLite's, and MySQL's with --client-path driver.
type sqlConn struct {
	c     *sql.Conn
	stmts []*sql.Stmt // by key; nil: sent as text
	mysql bool
	text  []byte
}

func newSQLConn(ctx context.Context, c *sql.Conn, o Options, mysql, stmts bool) (*sqlConn, error) {
	sc := &sqlConn{c: c, stmts: make([]*sql.Stmt, slots(o)), mysql: mysql}
	if !stmts || o.QueryMode != sb.QueryPrepared {
		return sc, nil
	}
	err := o.each(func(st sb.Stmt, table int) error {
		q := sb.SQL(st, table)
		if st == sb.Begin && !mysql && o.writes() {
			q = "BEGIN IMMEDIATE" // SQLite: take the write lock first, or two writers deadlock
		}
		p, err := c.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", sb.SQL(st, table), err)
		}
		sc.stmts[key(st, table)] = p
		return nil
	})
	if err != nil {
		sc.Close()
		return nil, err
	}
	return sc, nil
}

func (c *sqlConn) Exec(ctx context.Context, s sb.Stmt, table int, args []sb.Arg) (sb.Result, error) {
	st := c.stmts[key(s, table)]
	if st == nil {
		var err error
		if c.text, err = interpolate(c.text[:0], sb.SQL(s, table), args, c.mysql); err != nil {
			return sb.Result{}, err
		}
		if isSelect(s) {
			return c.query(c.c.QueryContext(ctx, string(c.text)))
		}
		return c.Text(ctx, c.text)
	}
	if isSelect(s) {
		return c.query(st.QueryContext(ctx, values(args)...))
	}
	return c.exec(st.ExecContext(ctx, values(args)...))
}

func (c *sqlConn) query(rows *sql.Rows, err error) (sb.Result, error) {
	if err != nil {
		return sb.Result{}, err
	}
	for rows.Next() {
	}
	rows.Close()
	return sb.Result{Rows: true}, rows.Err()
}

func (c *sqlConn) exec(res sql.Result, err error) (sb.Result, error) {
	if err != nil {
		return sb.Result{}, err
	}
	n, err := res.RowsAffected()
	return sb.Result{Affected: n}, err
}

func (c *sqlConn) Text(ctx context.Context, q []byte) (sb.Result, error) {
	return c.exec(c.c.ExecContext(ctx, string(q)))
}

func (c *sqlConn) Rollback(ctx context.Context) error {
	_, err := c.c.ExecContext(ctx, "ROLLBACK")
	return err
}

func (c *sqlConn) Close() error {
	for _, st := range c.stmts {
		if st != nil {
			st.Close()
		}
	}
	return c.c.Close()
}

// writes says whether the event changes rows.
func (o Options) writes() bool {
	return slices.ContainsFunc(o.Used, func(s sb.Stmt) bool { return s >= sb.IndexUpdate && s <= sb.Insert })
}

package ycsbdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/jackc/pgx/v5"
)

// createSQL is the JDBC binding's table (jdbc/README.md:35-51): YCSB_KEY VARCHAR(255) PRIMARY
// KEY and FIELD0.. TEXT; dropped first for a whole load, else created only if missing.
func createSQL(fields int, suffix string, drop bool) []string {
	cols := []string{"YCSB_KEY VARCHAR(255) PRIMARY KEY"}
	for i := range fields {
		cols = append(cols, fmt.Sprintf("FIELD%d TEXT", i))
	}
	if !drop {
		return []string{"CREATE TABLE IF NOT EXISTS usertable (" + strings.Join(cols, ", ") + ")" + suffix}
	}
	return []string{"DROP TABLE IF EXISTS usertable", "CREATE TABLE usertable (" + strings.Join(cols, ", ") + ")" + suffix}
}

// statements are DefaultDBFlavor's (DefaultDBFlavor.java:34-104) with the dialect's
// placeholders: read always SELECT *, scan ordered by the key, one SET per written field.
type statements struct {
	read, scan, insert string
	update             []string // by field, one field written (writeallfields=false)
	updateAll          string
}

func newStatements(fields int, ph func(int) string) statements {
	var s statements
	s.read = "SELECT * FROM usertable WHERE YCSB_KEY = " + ph(1)
	s.scan = "SELECT * FROM usertable WHERE YCSB_KEY >= " + ph(1) + " ORDER BY YCSB_KEY LIMIT " + ph(2)
	cols, vals, sets := []string{"YCSB_KEY"}, []string{ph(1)}, []string{}
	for i := range fields {
		cols, vals = append(cols, fmt.Sprintf("field%d", i)), append(vals, ph(i+2))
		s.update = append(s.update, fmt.Sprintf("UPDATE usertable SET field%d=%s WHERE YCSB_KEY = %s", i, ph(1), ph(2)))
		sets = append(sets, fmt.Sprintf("field%d=%s", i, ph(i+1)))
	}
	s.insert = "INSERT INTO usertable (" + strings.Join(cols, ",") + ") VALUES(" + strings.Join(vals, ",") + ")"
	s.updateAll = "UPDATE usertable SET " + strings.Join(sets, ", ") + " WHERE YCSB_KEY = " + ph(fields+1)
	return s
}

// pgStore is PostgreSQL through pgx. Prepared (the default) is pgx's statement cache, which
// prepares each statement once per connection as JDBC's cached PreparedStatements do; extended
// is the unnamed statement with parameters, parsed at every execution (pgx's exec mode, libpq's
// PQexecParams as pgbench -M extended); simple is a text query with the values written in.
type pgStore struct {
	t    *sqldriver.Postgres
	mode string
}

// QueryMode is how statements are sent, for run.json.
func (s *pgStore) QueryMode() string { return s.mode }

// pgModes are pgx's exec modes for the query modes.
var pgModes = map[string]pgx.QueryExecMode{ycsb.QuerySimple: pgx.QueryExecModeSimpleProtocol,
	ycsb.QueryExtended: pgx.QueryExecModeExec, ycsb.QueryPrepared: pgx.QueryExecModeCacheStatement}

func (s *pgStore) Create(ctx context.Context, fields int, drop bool) error {
	for _, q := range createSQL(fields, "", drop) {
		if _, err := s.t.Admin().Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (s *pgStore) Count(ctx context.Context) (n int64, err error) {
	err = s.t.Admin().QueryRow(ctx, "SELECT count(*) FROM usertable").Scan(&n)
	return n, err
}

func (s *pgStore) CountKeys(ctx context.Context, keys []string) (n int64, err error) {
	err = s.t.Admin().QueryRow(ctx, "SELECT count(*) FROM usertable WHERE YCSB_KEY = ANY($1)", keys).Scan(&n)
	return n, err
}

// Connect implements ycsb.Store: a connection that is opened again after a loss (redial.go).
func (s *pgStore) Connect(ctx context.Context, fields int) (ycsb.Conn, error) {
	return redialing(ctx, func(ctx context.Context) (ycsb.Conn, error) { return s.connect(ctx, fields) })
}

func (s *pgStore) connect(ctx context.Context, fields int) (ycsb.Conn, error) {
	c, err := s.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	st := newStatements(fields, sqldriver.PostgresDialect.Placeholder)
	return &pgConn{c: c, st: &st, mode: pgModes[s.mode]}, nil
}

type pgConn struct {
	c    *pgx.Conn
	st   *statements
	mode pgx.QueryExecMode // the first argument of every statement
	args []any
}

func (p *pgConn) Insert(ctx context.Context, key string, values [][]byte) error {
	p.args = append(p.args[:0], p.mode, key)
	for _, v := range values {
		p.args = append(p.args, string(v))
	}
	_, err := p.c.Exec(ctx, p.st.insert, p.args...)
	return err
}

func (p *pgConn) Read(ctx context.Context, key string, _ int) (bool, error) {
	rows, err := p.c.Query(ctx, p.st.read, p.mode, key)
	if err != nil {
		return false, err
	}
	found := rows.Next()
	rows.Close()
	return found, rows.Err()
}

func (p *pgConn) Update(ctx context.Context, key string, fields []int, values [][]byte) error {
	if len(fields) == 1 {
		_, err := p.c.Exec(ctx, p.st.update[fields[0]], p.mode, string(values[0]), key)
		return err
	}
	p.args = append(p.args[:0], p.mode)
	for _, v := range values {
		p.args = append(p.args, string(v))
	}
	_, err := p.c.Exec(ctx, p.st.updateAll, append(p.args, key)...)
	return err
}

func (p *pgConn) Scan(ctx context.Context, start string, n int) (int, error) {
	rows, err := p.c.Query(ctx, p.st.scan, p.mode, start, n)
	if err != nil {
		return 0, err
	}
	read := 0
	for rows.Next() {
		read++
	}
	rows.Close()
	return read, rows.Err()
}

func (p *pgConn) Close() error { return p.c.Close(context.Background()) }

// dbStore is MySQL/MariaDB or SQLite through database/sql. Prepared (the default) prepares each
// statement once per connection; extended prepares, executes and closes it every time
// (COM_STMT_PREPARE, _EXECUTE, _CLOSE on MySQL); simple sends a text query with the values
// written in (on MySQL by the driver, whose interpolateParams sqldriver sets; on SQLite by
// literals).
type dbStore struct {
	db      *sql.DB
	conn    func(context.Context) (*sql.Conn, error)
	dialect string
	engine  string
	mode    string
}

// QueryMode is how statements are sent, for run.json.
func (s *dbStore) QueryMode() string { return s.mode }

func (s *dbStore) Create(ctx context.Context, fields int, drop bool) error {
	suffix := ""
	if s.dialect == "mysql" && s.engine != "" {
		suffix = " ENGINE=" + s.engine
	}
	for _, q := range createSQL(fields, suffix, drop) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (s *dbStore) Count(ctx context.Context) (n int64, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT count(*) FROM usertable").Scan(&n)
	return n, err
}

func (s *dbStore) CountKeys(ctx context.Context, keys []string) (n int64, err error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	q := "SELECT count(*) FROM usertable WHERE YCSB_KEY IN (?" + strings.Repeat(",?", len(keys)-1) + ")"
	err = s.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// Connect implements ycsb.Store: a connection that is opened again after a loss (redial.go).
func (s *dbStore) Connect(ctx context.Context, fields int) (ycsb.Conn, error) {
	return redialing(ctx, func(ctx context.Context) (ycsb.Conn, error) { return s.connect(ctx, fields) })
}

func (s *dbStore) connect(ctx context.Context, fields int) (ycsb.Conn, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	st := newStatements(fields, sqldriver.MySQLDialect.Placeholder)
	return &dbConn{c: c, st: &st, prepared: map[string]*sql.Stmt{}, mode: s.mode, sqlite: s.dialect == "sqlite"}, nil
}

type dbConn struct {
	c        *sql.Conn
	st       *statements
	prepared map[string]*sql.Stmt // prepared mode: by text
	mode     string
	sqlite   bool
	args     []any
}

func (d *dbConn) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if ps, ok := d.prepared[q]; ok {
		return ps, nil
	}
	ps, err := d.c.PrepareContext(ctx, q)
	if err == nil {
		d.prepared[q] = ps
	}
	return ps, err
}

func (d *dbConn) exec(ctx context.Context, q string, args ...any) error {
	_, err := d.run(ctx, q, false, args)
	return err
}

// run sends q with args as the query mode says: a query's rows are counted, a statement is
// executed.
func (d *dbConn) run(ctx context.Context, q string, query bool, args []any) (n int, err error) {
	var ps *sql.Stmt
	switch d.mode {
	case ycsb.QuerySimple:
		if d.sqlite { // MySQL's driver writes the values in itself
			if q, err = literals(q, args); err != nil {
				return 0, err
			}
			args = nil
		}
	case ycsb.QueryExtended:
		if ps, err = d.c.PrepareContext(ctx, q); err != nil {
			return 0, err
		}
		defer func() { err = errors.Join(err, ps.Close()) }()
	default:
		if ps, err = d.stmt(ctx, q); err != nil {
			return 0, err
		}
	}
	if !query {
		if ps != nil {
			_, err = ps.ExecContext(ctx, args...)
		} else {
			_, err = d.c.ExecContext(ctx, q, args...)
		}
		return 0, err
	}
	var rows *sql.Rows
	if ps != nil {
		rows, err = ps.QueryContext(ctx, args...)
	} else {
		rows, err = d.c.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		n++
	}
	rows.Close()
	return n, rows.Err()
}

// literals writes args into q's ? placeholders as SQLite's literals: strings quoted with
// quotes doubled (SQLite has no backslash escapes), integers in decimal.
func literals(q string, args []any) (string, error) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		if n >= len(args) {
			return "", fmt.Errorf("%s: %d arguments for more placeholders", q, len(args))
		}
		switch a := args[n].(type) {
		case string:
			b.WriteString("'" + strings.ReplaceAll(a, "'", "''") + "'")
		case int:
			b.WriteString(strconv.Itoa(a))
		default:
			return "", fmt.Errorf("argument %d: unsupported type %T", n+1, a)
		}
		n++
	}
	return b.String(), nil
}

func (d *dbConn) Insert(ctx context.Context, key string, values [][]byte) error {
	d.args = append(d.args[:0], key)
	for _, v := range values {
		d.args = append(d.args, string(v))
	}
	return d.exec(ctx, d.st.insert, d.args...)
}

// rows runs a query and counts its rows.
func (d *dbConn) rows(ctx context.Context, q string, args ...any) (int, error) {
	return d.run(ctx, q, true, args)
}

func (d *dbConn) Read(ctx context.Context, key string, _ int) (bool, error) {
	n, err := d.rows(ctx, d.st.read, key)
	return n > 0, err
}

func (d *dbConn) Update(ctx context.Context, key string, fields []int, values [][]byte) error {
	if len(fields) == 1 {
		return d.exec(ctx, d.st.update[fields[0]], string(values[0]), key)
	}
	d.args = d.args[:0]
	for _, v := range values {
		d.args = append(d.args, string(v))
	}
	return d.exec(ctx, d.st.updateAll, append(d.args, key)...)
}

func (d *dbConn) Scan(ctx context.Context, start string, n int) (int, error) {
	return d.rows(ctx, d.st.scan, start, n)
}

func (d *dbConn) Close() error {
	for _, ps := range d.prepared {
		ps.Close()
	}
	return d.c.Close()
}

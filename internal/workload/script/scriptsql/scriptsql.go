// Package scriptsql binds pgbench's scripts to dbperf's SQL targets: PostgreSQL on the lean
// path (wire.Postgres on pgx's socket, pgwire.go) or, with --client-path driver, through pgx's
// own protocol layer (pgconn); either way the simple protocol for --query-mode simple, an
// unnamed statement for extended, a named one prepared once per connection for prepared, with
// parameters as text with no declared type, as libpq sends them for pgbench; MySQL/MariaDB on
// its lean path (wire.MySQL, mywire.go) or through database/sql, SQLite through
// database/sql (the text as it is for simple; placeholders for extended, which the MySQL
// driver prepares and closes per execution; a statement prepared once per connection for
// prepared).
package scriptsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/jackc/pgx/v5"
)

// Bind returns the script workload's store on an SQL target, or false for another kind.
func Bind(t driver.Target) (script.Store, bool) {
	switch tg := t.(type) {
	case *sqldriver.Postgres:
		return &pgStore{t: tg}, true
	case *sqldriver.MySQL:
		return &dbStore{db: tg.DB(), conn: tg.Conn, dialect: "mysql", my: tg}, true
	case *sqldriver.SQLite:
		return &dbStore{db: tg.DB(), conn: tg.Conn, dialect: "sqlite"}, true
	}
	return nil, false
}

// For is Bind with an error that names the target.
func For(t driver.Target) (script.Store, error) {
	if s, ok := Bind(t); ok {
		return s, nil
	}
	return nil, fmt.Errorf("target %s cannot run SQL scripts: give a PostgreSQL, MySQL/MariaDB or SQLite target", t.Info(context.Background()).Target)
}

// outcome is pgbench's rule: serialization failures and deadlocks are retried.
func outcome(err error) (string, bool) {
	k := driver.ErrorKind(err)
	return k, k == driver.KindSerialization || k == driver.KindDeadlock
}

// pgStore is PostgreSQL.
type pgStore struct{ t *sqldriver.Postgres }

func (s *pgStore) Dialect() string                  { return "postgres" }
func (s *pgStore) Placeholder(i int) string         { return fmt.Sprintf("$%d", i) }
func (s *pgStore) Outcome(err error) (string, bool) { return outcome(err) }

// Connect opens a client's connection: on the lean path unless the target's client path is
// the driver's (--client-path driver, or a TLS connection, which only pgx can read).
func (s *pgStore) Connect(ctx context.Context) (script.Conn, error) {
	c, err := s.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if path, _ := s.t.ClientPath(); path.Lean() {
		w, err := newPGWireConn(c, path.Poll())
		if err != nil {
			c.Close(context.Background())
			return nil, err
		}
		return w, nil
	}
	return &pgConn{c: c}, nil
}

func (s *pgStore) Exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if _, err := s.t.Admin().PgConn().Exec(ctx, q).ReadAll(); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func (s *pgStore) QueryRow(ctx context.Context, q string) ([]string, error) {
	res := s.t.Admin().PgConn().ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, fmt.Errorf("%s: %w", q, res.Err)
	}
	if len(res.Rows) == 0 {
		return nil, nil
	}
	out := make([]string, len(res.Rows[0]))
	for i, v := range res.Rows[0] {
		out[i] = string(v)
	}
	return out, nil
}

func (s *pgStore) Load(ctx context.Context, table string, cols []string, rows [][]any) error {
	_, err := s.t.Admin().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("loading %s: %w", table, err)
	}
	return nil
}

// dbStore is MySQL/MariaDB or SQLite through database/sql.
type dbStore struct {
	db      *sql.DB
	conn    func(context.Context) (*sql.Conn, error)
	dialect string
	my      *sqldriver.MySQL // MySQL/MariaDB: its sockets, for the lean path
}

func (s *dbStore) Dialect() string                  { return s.dialect }
func (s *dbStore) Placeholder(int) string           { return "?" }
func (s *dbStore) Outcome(err error) (string, bool) { return outcome(err) }

// Connect opens a client's connection: on MySQL's lean path unless the target's client path
// is the driver's (--client-path driver; TLS, a Unix socket or a proxy, which the target
// reports as a fallback).
func (s *dbStore) Connect(ctx context.Context) (script.Conn, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	dc := &dbConn{c: c}
	if s.my == nil {
		return dc, nil
	}
	if path, _ := s.my.ClientPath(); path.Lean() {
		sock, err := s.my.Socket(ctx, c)
		if err != nil {
			c.Close()
			return nil, err
		}
		return &myWireConn{dbConn: dc, w: wire.NewMySQL(sock, path.Poll())}, nil
	}
	dc.endCheck = true
	return dc, nil
}

func (s *dbStore) Exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func (s *dbStore) QueryRow(ctx context.Context, q string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	res, err := readRows(rows)
	if err != nil || len(res.Rows) == 0 {
		return nil, err
	}
	return res.Rows[0], nil
}

// loadChunk is the rows of one INSERT statement of a load.
const loadChunk = 1000

func (s *dbStore) Load(ctx context.Context, table string, cols []string, rows [][]any) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	for i := 0; i < len(rows); i += loadChunk {
		chunk := rows[i:min(i+loadChunk, len(rows))]
		q := "INSERT INTO " + table + " (" + strings.Join(cols, ",") + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+",", len(chunk)), ",")
		args := make([]any, 0, len(chunk)*len(cols))
		for _, r := range chunk {
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("loading %s: %w", table, err)
		}
	}
	return tx.Commit()
}

// readRows reads a result set as text; NULL is "".
func readRows(rows *sql.Rows) (script.Result, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return script.Result{}, err
	}
	res := script.Result{Cols: cols}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return res, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		res.Rows = append(res.Rows, row)
	}
	return res, errors.Join(rows.Err(), rows.Close())
}

// Package sbsql binds sysbench's sbtest tables to dbperf's SQL targets: PostgreSQL and
// MySQL/MariaDB (InnoDB or MyRocks) with each statement prepared on the server once per
// connection, as sysbench's --db-ps-mode auto does, or sent as text with the values written in
// (--db-ps-mode disable); SQLite through database/sql, prepared. On the servers the statements go
// on the driver's own socket (driver/wire) unless --client-path driver says otherwise.
package sbsql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// Options are the store's settings from the command line.
type Options struct {
	QueryMode    string   // sb.QueryPrepared or sb.QuerySimple
	IgnoreErrors []uint16 // MySQL's --mysql-ignore-errors
	IgnoreAll    bool     // --mysql-ignore-errors all
	Used         []sb.Stmt
	Tables       int
}

// For returns the sbtest tables' store on an opened target.
func For(t driver.Target, o Options) (sb.Store, error) {
	switch tg := t.(type) {
	case *sqldriver.Postgres:
		return &pgStore{t: tg, o: o}, nil
	case *sqldriver.MySQL:
		return &myStore{t: tg, o: o}, nil
	case *sqldriver.SQLite:
		if o.QueryMode == sb.QuerySimple {
			return nil, errors.New("--query-mode simple applies to PostgreSQL and MySQL targets: SQLite's statements are prepared")
		}
		return &liteStore{t: tg, o: o}, nil
	}
	return nil, fmt.Errorf("target %s cannot run sysbench's OLTP tests: give a PostgreSQL, MySQL/MariaDB or SQLite target", t.Info(context.Background()).Target)
}

// pgIgnored are the SQLSTATEs on which sysbench's pgsql driver rolls back and restarts the
// event: deadlock, unique violation, serialization failure (drv_pgsql.c:533-541).
var pgIgnored = []string{"40P01", "23505", "40001"}

func pgIgnorable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && slices.Contains(pgIgnored, pe.Code)
}

func myIgnorable(o Options, err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	return o.IgnoreAll || slices.Contains(o.IgnoreErrors, me.Number)
}

// placeholders rewrites sysbench's '?' into PostgreSQL's $1, $2, ...
func placeholders(q string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// interpolate appends q with each '?' replaced by its argument as a literal, as sysbench's
// --db-ps-mode disable does (db_driver.c's emulation): integers in decimal, strings quoted with
// quotes doubled (and, for MySQL, backslashes doubled).
func interpolate(b []byte, q string, args []sb.Arg, mysqlEscapes bool) ([]byte, error) {
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b = append(b, q[i])
			continue
		}
		if n >= len(args) {
			return b, fmt.Errorf("%s: %d arguments for more placeholders", q, len(args))
		}
		a := args[n]
		n++
		if a.Str == nil {
			b = strconv.AppendInt(b, a.Int, 10)
			continue
		}
		b = append(b, '\'')
		for _, c := range a.Str {
			switch {
			case c == '\'':
				b = append(b, '\'', '\'')
			case c == '\\' && mysqlEscapes:
				b = append(b, '\\', '\\')
			default:
				b = append(b, c)
			}
		}
		b = append(b, '\'')
	}
	return b, nil
}

// values are args as database/sql takes them: int64 and string (a []byte would be a BLOB in
// SQLite).
func values(args []sb.Arg) []any {
	v := make([]any, len(args))
	for i, a := range args {
		if a.Str == nil {
			v[i] = a.Int
		} else {
			v[i] = string(a.Str)
		}
	}
	return v
}

// isSelect says whether a statement returns a result set: sysbench counts it a read.
func isSelect(s sb.Stmt) bool { return s <= sb.DistinctRange }

// each calls fn for every used statement of every table (BEGIN and COMMIT once, table 0).
func (o Options) each(fn func(s sb.Stmt, table int) error) error {
	for _, s := range o.Used {
		if s >= sb.Begin {
			if err := fn(s, 0); err != nil {
				return err
			}
			continue
		}
		for t := 1; t <= o.Tables; t++ {
			if err := fn(s, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// key indexes a statement of a table in a connection's slice.
func key(s sb.Stmt, table int) int { return table*int(sb.NumStmts) + int(s) }

func slots(o Options) int { return (o.Tables + 1) * int(sb.NumStmts) }

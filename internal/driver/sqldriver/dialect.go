// Package sqldriver opens SQL databases: PostgreSQL (pgx), MySQL/MariaDB (go-sql-driver/mysql,
// InnoDB or MyRocks) and SQLite (modernc). It creates the database, reports the server's version
// and settings, settles and flushes, and feeds the monitor; a workload brings its own SQL and
// talks to the DBMS through the connections each target exposes (Connect, Admin, DB, Conn).
package sqldriver

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Dialect is what every workload's SQL needs to know of a DBMS's syntax; the statements
// themselves are the workload's.
type Dialect struct {
	Name        string             // postgres, mysql, sqlite
	Placeholder func(i int) string // the i-th parameter of a statement, from 1
	QuoteIdent  func(s string) string
}

// The dialects of the three families.
var (
	PostgresDialect = Dialect{
		Name:        "postgres",
		Placeholder: func(i int) string { return fmt.Sprintf("$%d", i) },
		QuoteIdent:  func(s string) string { return pgx.Identifier{s}.Sanitize() },
	}
	MySQLDialect = Dialect{
		Name:        "mysql",
		Placeholder: func(int) string { return "?" },
		QuoteIdent:  quoteIdent,
	}
	SQLiteDialect = Dialect{
		Name:        "sqlite",
		Placeholder: func(int) string { return "?" },
		QuoteIdent:  func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` },
	}
)

// quoteIdent quotes a MySQL identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

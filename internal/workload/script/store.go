package script

import "context"

// Store is the script workload's view of an SQL target, bound by scriptsql: connections for
// the clients, and the admin connection for initialization and checks.
type Store interface {
	// Dialect is postgres, mysql or sqlite: the built-in scripts' and tables' variant.
	Dialect() string
	// Placeholder is the i-th parameter (from 1) in extended and prepared modes.
	Placeholder(i int) string
	// Connect opens a client's connection.
	Connect(ctx context.Context) (Conn, error)
	// Outcome classifies an SQL error (driver.ErrorKind's kinds).
	Outcome(err error) (kind string, retryable bool)
	// Exec runs statements on the admin connection, in order.
	Exec(ctx context.Context, sql ...string) error
	// QueryRow runs a query on the admin connection and returns its first row as text (NULL as
	// ""), or nil when it has none.
	QueryRow(ctx context.Context, sql string) ([]string, error)
	// Load inserts rows into table in one transaction (COPY on PostgreSQL).
	Load(ctx context.Context, table string, cols []string, rows [][]any) error
}

package driver

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// The kinds of failure ErrorKind tells apart: what a reader of "errors 3" needs to know first,
// whether the database refused the work (deadlock, lock timeout, serialization) or the
// connection or the client gave up.
const (
	KindConnLost      = "connection_lost"
	KindDeadlock      = "deadlock"
	KindLockTimeout   = "lock_timeout"
	KindSerialization = "serialization"
	KindTimeout       = "timeout" // canceled or timed out: a statement timeout, a context's end
	KindOther         = "other"
)

// ErrorKind classifies an operation's error for the step's figures. The runner calls it only
// when an operation failed, so it may take its time. It knows the drivers' error types
// (pgconn.PgError, mysql.MySQLError; the lean wire paths return the same types for the server's
// errors) and the system's; the wire paths' own messages for a closed connection are matched by
// their text, as those packages import this one.
func ErrorKind(err error) string {
	if err == nil {
		return ""
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pgKind(pg.Code)
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return mysqlKind(my.Number)
	}
	var lite interface{ Code() int } // modernc.org/sqlite's *Error, without importing it here
	if errors.As(err, &lite) && (lite.Code()&0xff == 5 || lite.Code()&0xff == 6) {
		return KindLockTimeout // SQLITE_BUSY, SQLITE_LOCKED: the busy timeout ran out
	}
	switch { // a context's end first: the wire paths report it with the closed socket's error
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err):
		return KindTimeout
	case connLost(err):
		return KindConnLost
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return KindTimeout
	}
	return KindOther
}

// pgKind classifies a PostgreSQL SQLSTATE.
func pgKind(code string) string {
	switch {
	case code == "40P01":
		return KindDeadlock
	case code == "40001":
		return KindSerialization
	case code == "55P03": // lock_not_available: lock_timeout, NOWAIT
		return KindLockTimeout
	case code == "57014": // query_canceled: statement_timeout, a cancel request
		return KindTimeout
	case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03":
		return KindConnLost // connection exceptions; the server shutting down or crashed
	}
	return KindOther
}

// mysqlKind classifies a MySQL or MariaDB error number.
func mysqlKind(n uint16) string {
	switch n {
	case 1213:
		return KindDeadlock
	case 1205, 3572: // lock wait timeout; NOWAIT
		return KindLockTimeout
	case 2006, 2013, 1927, 4031: // gone away; lost during query; killed (MariaDB); idle too long
		return KindConnLost
	case 3024, 1969, 1317: // max_execution_time (MySQL, MariaDB); query interrupted
		return KindTimeout
	}
	return KindOther
}

// connLost tells whether err says the connection is gone.
func connLost(err error) bool {
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF, net.ErrClosed, syscall.ECONNRESET, syscall.EPIPE,
		syscall.ECONNABORTED, syscall.ECONNREFUSED, pgconn.ErrConnClosed, mysql.ErrInvalidConn, sqldriver.ErrBadConn} {
		if errors.Is(err, e) {
			return true
		}
	}
	msg := err.Error()
	for _, s := range []string{"closed the connection", "connection reset", "broken pipe", "conn closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// DuplicateKey tells whether err is a unique key's violation (PostgreSQL 23505, MySQL 1062,
// SQLite's SQLITE_CONSTRAINT_PRIMARYKEY and _UNIQUE). After a lost connection it says that the
// first attempt of an insert did commit (docs/reliability.md).
func DuplicateKey(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1062
	}
	var lite interface{ Code() int }
	return errors.As(err, &lite) && (lite.Code() == 1555 || lite.Code() == 2067)
}

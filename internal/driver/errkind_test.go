package driver

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// timeoutErr is a net.Error that timed out, as a read deadline's.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestErrorKind(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("query 3: %w", err) }
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{wrap(&pgconn.PgError{Code: "40P01", Message: "deadlock detected"}), KindDeadlock},
		{wrap(&pgconn.PgError{Code: "40001"}), KindSerialization},
		{&pgconn.PgError{Code: "55P03"}, KindLockTimeout},
		{&pgconn.PgError{Code: "57014"}, KindTimeout},
		{&pgconn.PgError{Code: "57P01"}, KindConnLost},
		{&pgconn.PgError{Code: "08006"}, KindConnLost},
		{&pgconn.PgError{Code: "23505"}, KindOther},
		{wrap(&mysql.MySQLError{Number: 1213}), KindDeadlock},
		{&mysql.MySQLError{Number: 1205}, KindLockTimeout},
		{&mysql.MySQLError{Number: 2013}, KindConnLost},
		{&mysql.MySQLError{Number: 2006}, KindConnLost},
		{&mysql.MySQLError{Number: 3024}, KindTimeout},
		{&mysql.MySQLError{Number: 1062}, KindOther},
		{wrap(io.EOF), KindConnLost},
		{wrap(&os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}), KindConnLost},
		{mysql.ErrInvalidConn, KindConnLost},
		{sqldriver.ErrBadConn, KindConnLost},
		{wrap(pgconn.ErrConnClosed), KindConnLost},
		{errors.New("pgwire: the server closed the connection"), KindConnLost},
		{errors.New("mywire: the server closed the connection"), KindConnLost},
		{wrap(context.DeadlineExceeded), KindTimeout},
		{fmt.Errorf("connection shut down: %w (pgwire: the server closed the connection)", context.Canceled), KindTimeout},
		{wrap(timeoutErr{}), KindTimeout},
		{errors.New("no rows"), KindOther},
		{wrap(liteErr(5)), KindLockTimeout},
		{liteErr(517), KindLockTimeout}, // SQLITE_BUSY_SNAPSHOT
		{liteErr(1555), KindOther},
	} {
		if got := ErrorKind(tt.err); got != tt.want {
			t.Errorf("ErrorKind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// liteErr is an error with a code, as modernc.org/sqlite's.
type liteErr int

func (e liteErr) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e liteErr) Code() int     { return int(e) }

func TestDuplicateKey(t *testing.T) {
	for _, err := range []error{&pgconn.PgError{Code: "23505"}, fmt.Errorf("insert: %w", &mysql.MySQLError{Number: 1062}), liteErr(1555), liteErr(2067)} {
		if !DuplicateKey(err) {
			t.Errorf("DuplicateKey(%v) = false", err)
		}
	}
	for _, err := range []error{&pgconn.PgError{Code: "23503"}, &mysql.MySQLError{Number: 1213}, liteErr(5), io.EOF} {
		if DuplicateKey(err) {
			t.Errorf("DuplicateKey(%v) = true", err)
		}
	}
}

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
	} {
		if got := ErrorKind(tt.err); got != tt.want {
			t.Errorf("ErrorKind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

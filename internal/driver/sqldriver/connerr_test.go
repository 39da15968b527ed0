package sqldriver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Each translator turns each kind of connection failure into one sentence that says what to do,
// never with the password.
func TestConnectErrors(t *testing.T) {
	pgSpec := driver.Spec{Kind: "postgres", DSN: "postgres://u:hunter2@db.example:5432/ib"}
	pgCfg, err := pgx.ParseConfig(pgSpec.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mySpec := driver.Spec{Kind: "mysql", DSN: "mysql://u:hunter2@db.example:3306/ib"}
	myCfg, _, err := mysqlConfig(mySpec)
	if err != nil {
		t.Fatal(err)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	dns := &net.DNSError{Err: "no such host", Name: "db.example"}
	for _, c := range []struct {
		name string
		got  error
		want string // "" means the error is returned as it is
	}{
		{"pg password", pgConnectError(pgSpec, pgCfg, &pgconn.PgError{Code: "28P01"}),
			`cannot connect to postgres at db.example:5432: password authentication failed for user "u"; check the password in the target URL (or PGPASSWORD)`},
		{"pg no database", pgConnectError(pgSpec, pgCfg, &pgconn.PgError{Code: "3D000"}), ""},
		{"pg other", pgConnectError(pgSpec, pgCfg, &pgconn.PgError{Code: "53300", Message: "too many connections"}),
			`cannot connect to postgres at db.example:5432 as "u": too many connections (SQLSTATE 53300)`},
		{"pg refused", pgConnectError(pgSpec, pgCfg, refused), "connection refused; is the server running and listening there? (dbperf server start postgres starts one)"},
		{"pg timeout", pgConnectError(pgSpec, pgCfg, context.DeadlineExceeded), "no answer within 15s; check the host and port"},
		{"pg dns", pgConnectError(pgSpec, pgCfg, dns), `unknown host "db.example"`},
		{"pg other with password", pgConnectError(pgSpec, pgCfg, fmt.Errorf("bad thing near %s", pgSpec.DSN)), "cannot connect to postgres at db.example:5432: bad thing near postgres://u@db.example:5432/ib"},

		{"mysql password", mysqlConnectError(mySpec, myCfg, &mysql.MySQLError{Number: 1045, Message: "Access denied"}),
			`cannot connect to mysql at db.example:3306: access denied for user "u"; check the user and password in the target URL (or MYSQL_PWD)`},
		{"mysql no database", mysqlConnectError(mySpec, myCfg, &mysql.MySQLError{Number: 1049}), ""},
		{"mysql no access", mysqlConnectError(mySpec, myCfg, &mysql.MySQLError{Number: 1044}),
			`user "u" has no access to database "ib"; grant it, or name another database in the target URL`},
		{"mysql other", mysqlConnectError(mySpec, myCfg, &mysql.MySQLError{Number: 1040, Message: "Too many connections hunter2"}),
			`cannot connect to mysql at db.example:3306 as "u": Too many connections ******** (MySQL error 1040)`},
		{"mysql refused", mysqlConnectError(mySpec, myCfg, refused), "connection refused; is the server running and listening there? (dbperf server start mariadb starts one)"},
		{"mysql timeout", mysqlConnectError(mySpec, myCfg, context.DeadlineExceeded), "no answer within 15s; check the host and port"},
		{"mysql dns", mysqlConnectError(mySpec, myCfg, dns), `unknown host "db.example"`},
	} {
		if c.want == "" {
			if !errors.As(c.got, new(*pgconn.PgError)) && !errors.As(c.got, new(*mysql.MySQLError)) {
				t.Errorf("%s: %v, want the driver's error as it is", c.name, c.got)
			}
			continue
		}
		if c.got == nil || !strings.Contains(c.got.Error(), c.want) {
			t.Errorf("%s: %v\nwant it to say %s", c.name, c.got, c.want)
		}
		if c.got != nil && strings.Contains(c.got.Error(), "hunter2") {
			t.Errorf("%s: shows the password: %v", c.name, c.got)
		}
	}
	if err := mysqlConnectError(mySpec, myCfg, nil); err != nil {
		t.Errorf("no error: %v", err)
	}
	sock := myCfg.Clone()
	sock.Net, sock.Addr = "unix", "/tmp/none.sock"
	if err := mysqlConnectError(mySpec, sock, &net.OpError{Op: "dial", Net: "unix", Err: syscall.ENOENT}); err == nil ||
		!strings.Contains(err.Error(), "mysql at socket /tmp/none.sock: the socket does not exist") {
		t.Errorf("missing socket: %v", err)
	}
}

package sqldriver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// One translator per driver family turns a failed connection into one sentence that says what
// to do, without the password: the driver's own messages name protocol states, not remedies.

// pgConnectError translates pgx's connection errors. invalid_catalog_name (3D000) is returned
// as it is, for the caller to create the database.
func pgConnectError(s driver.Spec, cfg *pgx.ConnConfig, err error) error {
	where := fmt.Sprintf("postgres at %s:%d", cfg.Host, cfg.Port)
	var pgErr *pgconn.PgError
	var netErr net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "28P01":
		return fmt.Errorf("cannot connect to %s: password authentication failed for user %q; check the password in the target URL (or PGPASSWORD)", where, cfg.User)
	case errors.As(err, &pgErr) && pgErr.Code == "3D000":
		return err // handled by the caller
	case errors.As(err, &pgErr):
		return fmt.Errorf("cannot connect to %s as %q: %s (SQLSTATE %s)", where, cfg.User, pgErr.Message, pgErr.Code)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to %s: connection refused; is the server running and listening there? (dbperf server start postgres starts one)", where)
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot connect to %s: no answer within 15s; check the host and port", where)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot connect to %s: unknown host %q", where, cfg.Host)
	default:
		return fmt.Errorf("cannot connect to %s: %v", where, driver.Scrub(s, err))
	}
}

// mysqlWhere names the server in messages: its address or its socket.
func mysqlWhere(cfg *mysql.Config) string {
	if cfg.Net == "unix" {
		return "mysql at socket " + cfg.Addr
	}
	return "mysql at " + cfg.Addr
}

// mysqlConnectError translates go-sql-driver/mysql's connection errors. MySQL error 1049
// (unknown database) is returned as it is, for the caller to create it.
func mysqlConnectError(s driver.Spec, cfg *mysql.Config, err error) error {
	if err == nil {
		return nil
	}
	where := mysqlWhere(cfg)
	var myErr *mysql.MySQLError
	var netErr net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &myErr) && myErr.Number == 1049:
		return err
	case errors.As(err, &myErr) && myErr.Number == 1045:
		return fmt.Errorf("cannot connect to %s: access denied for user %q; check the user and password in the target URL (or MYSQL_PWD)", where, cfg.User)
	case errors.As(err, &myErr) && myErr.Number == 1044:
		return fmt.Errorf("cannot connect to %s: user %q has no access to database %q; grant it, or name another database in the target URL", where, cfg.User, cfg.DBName)
	case errors.As(err, &myErr):
		return fmt.Errorf("cannot connect to %s as %q: %s (MySQL error %d)", where, cfg.User, driver.Scrub(s, errors.New(myErr.Message)), myErr.Number)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to %s: connection refused; is the server running and listening there? (dbperf server start mariadb starts one)", where)
	case cfg.Net == "unix" && errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("cannot connect to %s: the socket does not exist; is the server running? (dbperf server start mariadb starts one)", where)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot connect to %s: unknown host %q", where, dnsErr.Name)
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot connect to %s: no answer within %s; check the host and port", where, mysqlDialTimeout)
	default:
		return fmt.Errorf("cannot connect to %s: %v", where, driver.Scrub(s, err))
	}
}

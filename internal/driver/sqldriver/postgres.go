package sqldriver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/rawsock"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

func init() {
	driver.Register(driver.Kind{
		Name: "postgres", Usage: "postgres://USER[:PASSWORD]@HOST:PORT/DB",
		Summary: "PostgreSQL server (pgx); the database is created if it does not exist",
		Open:    openPostgres,
	})
}

// Postgres is a PostgreSQL driver. It keeps one connection for DDL and checks; each client
// role opens its own.
type Postgres struct {
	spec    driver.Spec
	cfg     *pgx.ConnConfig
	admin   *pgx.Conn // through Admin, which opens it again after a loss
	adminMu sync.Mutex
	mon     pgMonitor // the monitor's own connection (monitor.go)
	// path is the client path the connections take; fallback says why it is not the one asked
	// for (driver.PathTarget).
	path     driver.ClientPath
	fallback string
}

var _ driver.Target = (*Postgres)(nil)

func openPostgres(ctx context.Context, s driver.Spec) (driver.Target, error) {
	cfg, err := pgx.ParseConfig(s.DSN)
	if err != nil {
		return nil, fmt.Errorf("target %s is not a valid PostgreSQL URL: %v", s, err)
	}
	cfg.RuntimeParams["application_name"] = "dbperf"
	dial := cfg.DialFunc
	if path := s.ClientPath(); path.Lean() {
		// Raw system calls on pgx's sockets (rawsock) under --client-path kernel and raw; every
		// lean path gives pgx back the messages it read that pgx keeps state from
		// (rawsock.Unreader).
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if c, err = onPath(c, path); err != nil {
				return nil, err
			}
			return rawsock.NewUnreader(c), nil
		}
	}
	// A canceled statement is canceled on the server too (pgx's default handler only sets a
	// deadline, and the statement runs on, or commits, after the client gave up).
	cfg.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pg, DeadlineDelay: CancelGrace}
	}
	p := &Postgres{spec: s, cfg: cfg}
	p.admin, err = p.Connect(ctx)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name: create it
		if cerr := p.createDatabase(ctx); cerr != nil {
			return nil, cerr
		}
		p.admin, err = p.Connect(ctx)
	}
	if err != nil {
		return nil, err
	}
	p.path, p.fallback = s.ClientPath(), ""
	if _, tls := p.admin.PgConn().Conn().(*tls.Conn); tls && p.path.Lean() {
		// The lean path reads the socket itself; under TLS only pgx can. The connections are
		// then dialed as --client-path driver dials them, the admin's again, so that a run
		// that fell back measures the same client as one that asked for the driver.
		p.path, p.fallback = driver.ClientDriver, "the connection uses TLS (sslmode="+sslMode(s.DSN)+"): the lean path needs the plain socket, so every statement goes through pgx"
		p.cfg.DialFunc = dial
		p.admin.Close(ctx)
		if p.admin, err = p.Connect(ctx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// ClientPath implements driver.PathTarget.
func (p *Postgres) ClientPath() (driver.ClientPath, string) { return p.path, p.fallback }

// sslMode is the URL's sslmode, pgx's default (prefer) if it has none.
func sslMode(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Query().Get("sslmode") != "" {
		return u.Query().Get("sslmode")
	}
	return "prefer"
}

// CancelGrace is how long a canceled statement's client waits, after sending the server a
// CancelRequest, for the server's reply (the error that says the statement was canceled, or its
// result if it finished first) before it closes the connection.
const CancelGrace = 2 * time.Second

// Connect opens a new connection to the target's database (a client role's, an index
// build's); its errors are one sentence that says what to do.
func (p *Postgres) Connect(ctx context.Context) (*pgx.Conn, error) {
	return p.connectTo(ctx, p.cfg)
}

// Admin is the connection for DDL and checks, kept open while the target is; like any pgx
// connection, one goroutine at a time may use it. A connection the server lost (killed and
// started again under a run: docs/reliability.md) is replaced first: Admin pings it, a round
// trip, as it serves no measured statement.
func (p *Postgres) Admin() *pgx.Conn {
	p.adminMu.Lock()
	defer p.adminMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !p.admin.IsClosed() && (p.admin.PgConn().IsBusy() || p.admin.Ping(ctx) == nil) { // busy: in use, alive
		return p.admin
	}
	if c, err := p.Connect(ctx); err == nil {
		p.admin.Close(ctx)
		p.admin = c
	}
	return p.admin // still lost: its next statement says so
}

// Dialect is PostgreSQL's: $n placeholders and double-quoted identifiers.
func (p *Postgres) Dialect() Dialect { return PostgresDialect }

func (p *Postgres) connectTo(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		return c, nil
	}
	return nil, pgConnectError(p.spec, cfg, err)
}

func (p *Postgres) createDatabase(ctx context.Context) error {
	cfg := p.cfg.Copy()
	cfg.Database = "postgres"
	c, err := p.connectTo(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{p.cfg.Database}.Sanitize()); err != nil && !createdByOther(err) {
		return fmt.Errorf("database %q does not exist and creating it failed: %v", p.cfg.Database, err)
	}
	return nil
}

// createdByOther: another client (a shard of the same run) created the database first.
// PostgreSQL has no CREATE DATABASE IF NOT EXISTS; two at once fail with duplicate_database
// (42P04), or with unique_violation (23505) on pg_database's name index when both pass the
// name check before either commits.
func createdByOther(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505" && strings.Contains(pgErr.ConstraintName+pgErr.Message, "pg_database"))
}

// settingsOfInterest are the server settings that explain results; they go into run.json.
var settingsOfInterest = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem", "wal_buffers",
	"synchronous_commit", "fsync", "full_page_writes", "wal_compression", "wal_level",
	"max_wal_size", "min_wal_size", "checkpoint_timeout", "checkpoint_completion_target",
	"autovacuum", "autovacuum_vacuum_scale_factor", "autovacuum_naptime", "random_page_cost",
	"effective_io_concurrency", "huge_pages", "jit", "max_connections",
}

// Info implements driver.Target, reading the version and settings from the server itself.
func (p *Postgres) Info(ctx context.Context) driver.Info {
	info := driver.Info{Kind: "postgres", Target: p.spec.String(), Engine: "PostgreSQL", Settings: map[string]any{}}
	if err := p.Admin().QueryRow(ctx, "SHOW server_version").Scan(&info.Version); err != nil {
		info.Version = "unknown: " + err.Error()
	}
	rows, err := p.Admin().Query(ctx, "SELECT name, setting, coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)", settingsOfInterest)
	if err == nil {
		for rows.Next() {
			var name, setting, unit string
			if rows.Scan(&name, &setting, &unit) == nil {
				if unit != "" {
					setting += " (" + unit + ")"
				}
				info.Settings[name] = setting
			}
		}
		rows.Close()
	}
	return info
}

// Close implements driver.Target.
func (p *Postgres) Close() error {
	p.closeMonitor()
	return p.admin.Close(context.Background())
}

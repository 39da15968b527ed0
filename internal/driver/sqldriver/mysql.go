package sqldriver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/go-sql-driver/mysql"
)

func init() {
	driver.Register(driver.Kind{
		Name: "mysql", Usage: "mysql://USER[:PASSWORD]@HOST:PORT/DB?engine=innodb|rocksdb",
		Summary: "MySQL or MariaDB server with InnoDB (the default) or MyRocks (engine=rocksdb); the database is created if it does not exist",
		Open:    openMySQL,
	})
}

// MySQL is a MySQL or MariaDB target whose tables use one storage engine, InnoDB or MyRocks.
// DDL and checks use the pool (DB); each client role gets a dedicated connection (Conn).
type MySQL struct {
	spec   driver.Spec
	cfg    *mysql.Config
	engine mysqlEngine
	db     *sql.DB
	socks  mysqlSockets // the connections it dialed, for Socket
	// path is the client path the connections take; fallback says why it is not the one asked
	// for (driver.PathTarget).
	path     driver.ClientPath
	fallback string
}

var _ driver.Target = (*MySQL)(nil)

// mysqlEngine is a storage engine the target can put its tables in.
type mysqlEngine struct {
	param string // in the target URL: innodb, rocksdb
	name  string // in ENGINE= and information_schema.engines: InnoDB, ROCKSDB
}

var mysqlEngines = []mysqlEngine{{"innodb", "InnoDB"}, {"rocksdb", "ROCKSDB"}}

func (e mysqlEngine) rocksDB() bool { return e.param == "rocksdb" }

// mysqlDialTimeout bounds connecting, as for PostgreSQL.
const mysqlDialTimeout = 15 * time.Second

// mysqlConfig turns a target URL into the driver's configuration and the engine:
// mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?engine=innodb|rocksdb][&socket=PATH]. Without a
// password in the URL, MYSQL_PWD is used if set (as the mysql client does).
func mysqlConfig(s driver.Spec) (*mysql.Config, mysqlEngine, error) {
	usage := "mysql://USER[:PASSWORD]@HOST:PORT/DB?engine=innodb|rocksdb"
	u, err := url.Parse(s.DSN)
	if err != nil || u.Scheme != "mysql" || u.Opaque != "" {
		return nil, mysqlEngine{}, fmt.Errorf("target %s is not a valid MySQL URL: expected %s", s, usage)
	}
	q := u.Query()
	for k := range q {
		if k != "engine" && k != "socket" {
			return nil, mysqlEngine{}, fmt.Errorf("target %s has an unknown parameter %q: the parameters are engine (innodb or rocksdb) and socket (a unix socket's path)", s, k)
		}
	}
	engine := mysqlEngines[0]
	if v := q.Get("engine"); v != "" {
		found := false
		for _, e := range mysqlEngines {
			if strings.EqualFold(v, e.param) {
				engine, found = e, true
			}
		}
		if !found {
			return nil, mysqlEngine{}, fmt.Errorf("target %s: unknown engine %q: give engine=innodb or engine=rocksdb (MyRocks)", s, v)
		}
	}
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		if _, ok := u.User.Password(); !ok {
			cfg.Passwd = os.Getenv("MYSQL_PWD")
		}
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" || strings.Contains(cfg.DBName, "/") {
		return nil, mysqlEngine{}, fmt.Errorf("target %s names no database: expected %s", s, usage)
	}
	if sock := q.Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
	} else {
		if u.Hostname() == "" {
			return nil, mysqlEngine{}, fmt.Errorf("target %s names no host: expected %s (or ?socket=PATH)", s, usage)
		}
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(u.Hostname(), port)
	}
	cfg.ParseTime = false        // DATETIME comes back as text; it is converted in place
	cfg.InterpolateParams = true // one-off statements with arguments: no prepare round trips
	cfg.Timeout = mysqlDialTimeout
	// Each connection's session runs in UTC, so that datetime values mean the same everywhere.
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	cfg.Logger = &mysql.NopLogger{} // errors are returned; the driver's log lines would break the output
	return cfg, engine, nil
}

func openMySQL(ctx context.Context, s driver.Spec) (driver.Target, error) {
	cfg, engine, err := mysqlConfig(s)
	if err != nil {
		return nil, err
	}
	m := &MySQL{spec: s, cfg: cfg, engine: engine, path: s.ClientPath()}
	m.socks.path = m.path
	m.socks.kill = m.killQuery
	cfg.DialFunc = m.socks.dial
	if m.db, err = m.openDB(cfg); err != nil {
		return nil, err
	}
	err = m.ping(ctx, m.db)
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) && myErr.Number == 1049 { // unknown database: create it
		if err = m.createDatabase(ctx); err == nil {
			err = m.ping(ctx, m.db)
		}
	}
	if err == nil {
		err = m.checkEngine(ctx)
	}
	if err == nil {
		err = m.checkLean(ctx)
	}
	if err != nil {
		m.db.Close()
		return nil, err
	}
	m.db.SetMaxIdleConns(64)
	return m, nil
}

// ClientPath implements driver.PathTarget.
func (m *MySQL) ClientPath() (driver.ClientPath, string) { return m.path, m.fallback }

func (m *MySQL) openDB(cfg *mysql.Config) (*sql.DB, error) {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("target %s: %v", m.spec, driver.Scrub(m.spec, err))
	}
	return sql.OpenDB(conn), nil
}

// ping opens a first connection and says what went wrong in one sentence.
func (m *MySQL) ping(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, mysqlDialTimeout)
	defer cancel()
	return m.connectError(db.PingContext(ctx))
}

func (m *MySQL) where() string { return mysqlWhere(m.cfg) }

func (m *MySQL) connectError(err error) error { return mysqlConnectError(m.spec, m.cfg, err) }

func (m *MySQL) createDatabase(ctx context.Context) error {
	cfg := m.cfg.Clone()
	cfg.DBName = ""
	db, err := m.openDB(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := m.ping(ctx, db); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(m.cfg.DBName)); err != nil {
		return fmt.Errorf("database %q does not exist and creating it failed: %v", m.cfg.DBName, err)
	}
	return nil
}

// checkEngine fails unless the server has the storage engine the target asks for.
func (m *MySQL) checkEngine(ctx context.Context) error {
	var support string
	err := m.db.QueryRowContext(ctx, "SELECT support FROM information_schema.engines WHERE engine = ?", m.engine.name).Scan(&support)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: reading its storage engines: %v", m.where(), err)
	}
	support = strings.ToUpper(support)
	if support == "YES" || support == "DEFAULT" {
		return nil
	}
	state := "has no " + m.engine.name + " storage engine"
	if support != "" {
		state = "has the " + m.engine.name + " storage engine " + strings.ToLower(support)
	}
	if m.engine.rocksDB() {
		return fmt.Errorf("%s %s: for engine=rocksdb install mariadb-plugin-rocksdb and load ha_rocksdb (INSTALL SONAME 'ha_rocksdb', or plugin-load-add=ha_rocksdb.so in the server's configuration)", m.where(), state)
	}
	return fmt.Errorf("%s %s", m.where(), state)
}

// mysqlSettingsOfInterest are the server variables that explain results; they go into run.json.
// A variable the server does not have (MariaDB vs MySQL, no MyRocks) is left out.
var mysqlSettingsOfInterest = []string{
	"default_storage_engine", "sync_binlog", "log_bin", "binlog_format", "tx_isolation", "transaction_isolation",
	"max_connections", "character_set_server",
	"innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_flush_log_at_trx_commit",
	"innodb_flush_method", "innodb_log_file_size", "innodb_redo_log_capacity", "innodb_log_buffer_size",
	"innodb_doublewrite", "innodb_io_capacity", "innodb_io_capacity_max", "innodb_max_dirty_pages_pct",
	"innodb_max_dirty_pages_pct_lwm", "innodb_adaptive_hash_index", "innodb_change_buffering",
	"innodb_page_size", "innodb_file_per_table",
	"rocksdb_block_cache_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_max_background_jobs",
	"rocksdb_default_cf_options", "rocksdb_block_size", "rocksdb_bytes_per_sync", "rocksdb_wal_bytes_per_sync",
	"rocksdb_use_direct_reads", "rocksdb_use_direct_io_for_flush_and_compaction",
}

// Info implements driver.Target, reading the version and settings from the server itself.
func (m *MySQL) Info(ctx context.Context) driver.Info {
	info := driver.Info{Kind: "mysql", Target: m.spec.String(), Engine: "MySQL", Settings: map[string]any{
		"engine": m.engine.name, "driver": "github.com/go-sql-driver/mysql",
	}}
	if err := m.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&info.Version); err != nil {
		info.Version = "unknown: " + err.Error()
	}
	if strings.Contains(strings.ToLower(info.Version), "mariadb") {
		info.Engine = "MariaDB"
	}
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('" + strings.Join(mysqlSettingsOfInterest, "', '") + "')"
	rows, err := m.db.QueryContext(ctx, q)
	if err != nil {
		info.Settings["error"] = err.Error()
		return info
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if rows.Scan(&name, &value) == nil {
			info.Settings[name] = value
		}
	}
	return info
}

// Close implements driver.Target.
func (m *MySQL) Close() error { return m.db.Close() }

func (m *MySQL) exec(ctx context.Context, q string) error {
	_, err := m.db.ExecContext(ctx, q)
	return err
}

// DB is the target's connection pool, for DDL and checks.
func (m *MySQL) DB() *sql.DB { return m.db }

// Conn takes a dedicated connection from the pool, for one client role; its errors are one
// sentence that says what to do.
func (m *MySQL) Conn(ctx context.Context) (*sql.Conn, error) {
	c, err := m.db.Conn(ctx)
	if err != nil {
		return nil, m.connectError(err)
	}
	return c, nil
}

// Dialect is MySQL's: ? placeholders and backquoted identifiers.
func (m *MySQL) Dialect() Dialect { return MySQLDialect }

// Engine is the storage engine the target's tables use, as ENGINE= names it: InnoDB or ROCKSDB.
func (m *MySQL) Engine() string { return m.engine.name }

// RocksDB reports whether the tables use MyRocks.
func (m *MySQL) RocksDB() bool { return m.engine.rocksDB() }

// CheckTableEngine fails unless table was created with the target's engine: a server whose
// sql_mode lacks NO_ENGINE_SUBSTITUTION quietly substitutes another.
func (m *MySQL) CheckTableEngine(ctx context.Context, table string) error {
	var engine string
	if err := m.db.QueryRowContext(ctx, "SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", table).Scan(&engine); err != nil {
		return fmt.Errorf("reading the engine of table %s: %v", table, err)
	}
	if !strings.EqualFold(engine, m.engine.name) {
		return fmt.Errorf("table %s was created with engine %s, not %s (the server substituted it: add NO_ENGINE_SUBSTITUTION to its sql_mode)", table, engine, m.engine.name)
	}
	return nil
}

// ParseDateTime reads a DATETIME's text, 'YYYY-MM-DD HH:MM:SS' (UTC), as unix seconds.
func ParseDateTime(b []byte) (int64, error) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return 0, fmt.Errorf("unexpected datetime %q", b)
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var v [6]int
	for i, r := range [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
		n, ok := num(b[r[0]:r[1]])
		if !ok {
			return 0, fmt.Errorf("unexpected datetime %q", b)
		}
		v[i] = n
	}
	return time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.UTC).Unix(), nil
}

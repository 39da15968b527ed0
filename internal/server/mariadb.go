package server

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mariadb is a MariaDB server with its data in DataDir/data, and its socket, pid file, error
// log and generated config beside it. The RocksDB engine (MyRocks) is loaded when its plugin
// is installed.
type mariadb struct{ o Options }

const rocksdbPlugin = "/usr/lib/mysql/plugin/ha_rocksdb.so"

// mariadbServers are where Debian installs the server binary (a variable for tests).
var mariadbServers = []string{"/usr/sbin/mariadbd", "/usr/sbin/mysqld"}

func mariadbBinaries() (server, installDB string, err error) {
	for _, s := range mariadbServers {
		if _, err := os.Stat(s); err == nil {
			server = s
			break
		}
	}
	installDB, _ = exec.LookPath("mariadb-install-db")
	if installDB == "" {
		installDB, _ = exec.LookPath("mysql_install_db")
	}
	if server == "" || installDB == "" {
		return "", "", fmt.Errorf("the MariaDB server is not installed: install the Debian packages mariadb-server and mariadb-plugin-rocksdb (apt-get install mariadb-server mariadb-plugin-rocksdb)")
	}
	return server, installDB, nil
}

func (m *mariadb) data() string    { return filepath.Join(m.o.DataDir, "data") }
func (m *mariadb) sock() string    { return filepath.Join(m.o.DataDir, "mysqld.sock") }
func (m *mariadb) pidFile() string { return filepath.Join(m.o.DataDir, "mysqld.pid") }
func (m *mariadb) errLog() string  { return filepath.Join(m.o.DataDir, "error.log") }

func mariadbTarget(port int) string {
	return fmt.Sprintf("mysql://dbperf@127.0.0.1:%d/dbperf?engine=innodb", port)
}

func (m *mariadb) Status() (Status, error) { return status(m.o, m.pidFile(), mariadbTarget), nil }

func (m *mariadb) Check() error {
	if _, _, err := mariadbBinaries(); err != nil {
		return err
	}
	return checkAccess(m.o.Kind, m.o.DataDir, "mysql")
}

func (m *mariadb) Start(ctx context.Context) (string, error) {
	server, installDB, err := mariadbBinaries()
	if err != nil {
		return "", err
	}
	settings, cred, err := beforeStart(m.o, m, "mysql")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(m.data(), "mysql")); err != nil {
		args := []string{"--no-defaults", "--datadir=" + m.data(), "--auth-root-authentication-method=normal", "--skip-test-db"}
		if cred != nil {
			args = append(args, "--user=mysql")
		}
		if err := runAs(ctx, nil, installDB, args...); err != nil {
			return "", err
		}
	}
	_, rocks := os.Stat(rocksdbPlugin)
	conf := []string{
		"# written by dbperf server start: config " + m.o.Config,
		"[mysqld]",
		"datadir = " + m.data(),
		fmt.Sprintf("port = %d", m.o.Port),
		"bind-address = 127.0.0.1",
		"socket = " + m.sock(),
		"pid-file = " + m.pidFile(),
		"log-error = " + m.errLog(),
		"skip-name-resolve",
	}
	if cred != nil {
		conf = append(conf, "user = mysql")
	}
	if rocks == nil {
		conf = append(conf, "plugin-load-add = ha_rocksdb.so")
	} else {
		settings = withoutRocksDB(settings)
	}
	conf = append(conf, settings...)
	cnf := filepath.Join(m.o.DataDir, "dbperf.cnf")
	if err := writeOwned(cnf, []byte(strings.Join(conf, "\n")+"\n"), cred); err != nil {
		return "", err
	}
	if err := recordStart(m.o, cred); err != nil {
		return "", err
	}
	os.Remove(m.errLog()) // this start's messages only
	cmd := exec.Command(server, "--defaults-file="+cnf)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives dbperf
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); close(exited) }() // closed: later receives never block
	if err := m.waitReady(ctx, exited); err != nil {
		stopStarting(cmd.Process, exited) // interrupted or timed out: leave no server behind
		return "", err
	}
	return mariadbTarget(m.o.Port), m.prepare(ctx)
}

// withoutRocksDB drops rocksdb_* settings when the plugin is missing; the server would refuse
// to start on an unknown variable.
func withoutRocksDB(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "rocksdb") {
			out = append(out, l)
		}
	}
	return out
}

// root connects as root over the socket (root has no password and no network access).
func (m *mariadb) root() (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", m.sock()
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func (m *mariadb) waitReady(ctx context.Context, exited <-chan error) error {
	db, err := m.root()
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if err := db.PingContext(ctx); err == nil {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("mariadb exited while starting (%v); error log %s:\n%s", err, m.errLog(), tail(m.errLog(), 15))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mariadb did not accept connections within 2 minutes; error log %s:\n%s", m.errLog(), tail(m.errLog(), 15))
		}
	}
}

// prepare creates the benchmark user dbperf@127.0.0.1 (with the password, or none) and the
// dbperf database.
func (m *mariadb) prepare(ctx context.Context) error {
	db, err := m.root()
	if err != nil {
		return err
	}
	defer db.Close()
	pw := strings.ReplaceAll(strings.ReplaceAll(m.o.Password, `\`, `\\`), "'", "''")
	for _, q := range []string{
		"CREATE USER IF NOT EXISTS 'dbperf'@'127.0.0.1'",
		"ALTER USER 'dbperf'@'127.0.0.1' IDENTIFIED BY '" + pw + "'",
		"GRANT ALL PRIVILEGES ON *.* TO 'dbperf'@'127.0.0.1'",
		"CREATE DATABASE IF NOT EXISTS dbperf",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("preparing mariadb: %v", err)
		}
	}
	return nil
}

func (m *mariadb) Stop(ctx context.Context) error {
	pid, alive := pidAlive(m.pidFile())
	if !alive {
		return fmt.Errorf("mariadb is not running with data in %s", m.o.DataDir)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("mariadb (pid %d) did not shut down within 5 minutes", pid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// stopStarting ends a server process that has not become ready (SIGTERM, then SIGKILL after a
// minute), unless it has exited already.
func stopStarting(p *os.Process, exited <-chan error) {
	select {
	case <-exited:
		return
	default:
	}
	p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		p.Kill()
		<-exited
	}
}

package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgres is a PostgreSQL cluster in DataDir/data, with its socket in DataDir/sock.
type postgres struct{ o Options }

// pgRoot is where Debian installs PostgreSQL's versions (a variable for tests).
var pgRoot = "/usr/lib/postgresql"

// pgBinDir is the newest installed PostgreSQL's bin directory (Debian's layout).
func pgBinDir() (string, error) {
	dirs, _ := filepath.Glob(filepath.Join(pgRoot, "*", "bin"))
	sort.Slice(dirs, func(i, j int) bool { return versionLess(dirs[i], dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("the PostgreSQL server is not installed: install the Debian package postgresql-15 (apt-get install postgresql-15)")
}

// versionLess orders /usr/lib/postgresql/N/bin by N numerically.
func versionLess(a, b string) bool {
	na, nb := filepath.Base(filepath.Dir(a)), filepath.Base(filepath.Dir(b))
	if len(na) != len(nb) {
		return len(na) < len(nb)
	}
	return na < nb
}

func (p *postgres) data() string { return filepath.Join(p.o.DataDir, "data") }
func (p *postgres) sock() string { return filepath.Join(p.o.DataDir, "sock") }

func pgTarget(port int) string { return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/dbperf", port) }

func (p *postgres) Status() (Status, error) {
	return status(p.o, filepath.Join(p.data(), "postmaster.pid"), pgTarget), nil
}

func (p *postgres) Check() error {
	if _, err := pgBinDir(); err != nil {
		return err
	}
	return checkAccess(p.o.Kind, p.o.DataDir, "postgres")
}

func (p *postgres) Start(ctx context.Context) (string, error) {
	bin, err := pgBinDir()
	if err != nil {
		return "", err
	}
	settings, cred, err := beforeStart(p.o, p, "postgres")
	if err != nil {
		return "", err
	}
	if err := mkdirOwned(p.sock(), cred); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(p.data(), "PG_VERSION")); err != nil {
		if err := runAs(ctx, cred, filepath.Join(bin, "initdb"), "-D", p.data(), "-U", "postgres", "-E", "UTF8", "--locale=C",
			"--auth-local=trust", "--auth-host=trust"); err != nil {
			return "", err
		}
		f, err := os.OpenFile(filepath.Join(p.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return "", err
		}
		_, err = fmt.Fprintln(f, "include_if_exists = 'dbperf.conf'  # written by dbperf server start")
		f.Close()
		if err != nil {
			return "", err
		}
	}
	// The config and the authentication are rewritten at every start, so that --config and the
	// password can change between starts of the same data directory.
	conf := []string{
		"# written by dbperf server start: config " + p.o.Config,
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", p.o.Port),
		fmt.Sprintf("unix_socket_directories = '%s'", p.sock()),
	}
	conf = append(conf, settings...)
	if err := writeOwned(filepath.Join(p.data(), "dbperf.conf"), []byte(strings.Join(conf, "\n")+"\n"), cred); err != nil {
		return "", err
	}
	method := "trust"
	if p.o.Password != "" {
		method = "scram-sha-256"
	}
	hba := fmt.Sprintf("# written by dbperf server start\nlocal all all trust\nhost all all 127.0.0.1/32 %s\n", method)
	if err := writeOwned(filepath.Join(p.data(), "pg_hba.conf"), []byte(hba), cred); err != nil {
		return "", err
	}
	if err := recordStart(p.o, cred); err != nil {
		return "", err
	}
	logFile := filepath.Join(p.o.DataDir, "server.log")
	if err := runAs(ctx, cred, filepath.Join(bin, "pg_ctl"), "-D", p.data(), "-l", logFile, "-w", "-t", "120", "start"); err != nil {
		return "", fmt.Errorf("%v\nserver log:\n%s", err, tail(logFile, 15))
	}
	if err := p.prepare(ctx); err != nil {
		return "", err
	}
	return pgTarget(p.o.Port), nil
}

// prepare sets the password (or none) and creates the dbperf database, over the local socket.
func (p *postgres) prepare(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", p.sock(), p.o.Port))
	if err != nil {
		return err
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("the server started but does not accept connections on %s: %v", p.sock(), err)
	}
	defer c.Close(ctx)
	pw := "NULL"
	if p.o.Password != "" {
		pw = "'" + strings.ReplaceAll(p.o.Password, "'", "''") + "'"
	}
	if _, err := c.Exec(ctx, "ALTER USER postgres PASSWORD "+pw); err != nil {
		return err
	}
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'dbperf')").Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := c.Exec(ctx, "CREATE DATABASE dbperf"); err != nil {
			return err
		}
	}
	return nil
}

func (p *postgres) Stop(ctx context.Context) error {
	bin, err := pgBinDir()
	if err != nil {
		return err
	}
	if st, _ := p.Status(); !st.Running {
		return fmt.Errorf("postgres is not running with data in %s", p.o.DataDir)
	}
	cred, err := owner("postgres")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	return runAs(ctx, cred, filepath.Join(bin, "pg_ctl"), "-D", p.data(), "-m", "fast", "-w", "-t", "300", "stop")
}

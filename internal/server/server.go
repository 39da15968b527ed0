// Package server creates, starts, stops and describes private database servers for benchmarks:
// PostgreSQL and MariaDB from the machine's packages, each in its own data directory, on its
// own port and socket on loopback, never the system's default instance.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Options say which server and how.
type Options struct {
	Kind    string // "postgres" or "mariadb"
	DataDir string // default /tmp/dbperf-<kind>-<port>
	Config  string // a named config (see Configs; cached-by-os:SIZE sets its cache) or a file of settings; default cached-by-dbms
	// Port on 127.0.0.1: default 15432 (postgres), 13306 (mariadb). Below Linux's ephemeral range
	// (32768-60999), where any outgoing connection may hold the port and make the bind fail.
	Port int
	// Password of the benchmark user, or empty for passwordless access from loopback. It is set
	// in the server and never written to a file; dbperf reads it from DBPERF_SERVER_PASSWORD.
	Password string
}

// Server is one kind of managed server.
type Server interface {
	// Start creates the data directory on first use, writes the config, starts the server,
	// waits until it accepts connections and returns the target URL (without password).
	Start(ctx context.Context) (string, error)
	// Stop shuts the server down cleanly and waits for it to exit.
	Stop(ctx context.Context) error
	// Status says whether the server runs, and where.
	Status() (Status, error)
	// Check fails on what would make Start fail whether or not the server runs now: its
	// packages are missing, or its system user cannot reach the data directory. It creates,
	// starts and stops nothing, so that a plan can check every server before it touches any.
	Check() error
}

// Status describes a managed server.
type Status struct {
	Running bool
	PID     int
	Port    int
	DataDir string
	Config  string
	Target  string
}

func (s Status) String() string {
	if !s.Running {
		return fmt.Sprintf("not running (data %s)", s.DataDir)
	}
	return fmt.Sprintf("running on 127.0.0.1:%d, pid %d, config %s, data %s; target %s", s.Port, s.PID, s.Config, s.DataDir, s.Target)
}

// Kinds are the server kinds dbperf manages.
var Kinds = []string{"postgres", "mariadb"}

// New validates o, fills its defaults and returns the server it names.
func New(o Options) (Server, error) {
	var errs []error
	if defaultPort(o.Kind) == 0 {
		return nil, fmt.Errorf("unknown server %q: dbperf manages %s", o.Kind, strings.Join(Kinds, " and "))
	}
	if o.Port == 0 {
		o.Port = defaultPort(o.Kind)
	}
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port must be in 1..65535 (got %d)", o.Port))
	}
	if o.Config == "" {
		o.Config = "cached-by-dbms"
	}
	if _, err := configLines(o.Kind, o.Config); err != nil {
		errs = append(errs, err)
	}
	if o.DataDir == "" {
		o.DataDir = filepath.Join(os.TempDir(), fmt.Sprintf("dbperf-%s-%d", o.Kind, o.Port))
	}
	abs, err := filepath.Abs(o.DataDir)
	if err != nil {
		errs = append(errs, err)
	}
	o.DataDir = abs
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if o.Kind == "postgres" {
		return &postgres{o: o}, nil
	}
	return &mariadb{o: o}, nil
}

// defaultPort is a kind's default port, 0 for an unknown kind.
func defaultPort(kind string) int {
	switch kind {
	case "postgres":
		return 15432
	case "mariadb":
		return 13306
	}
	return 0
}

// PortInUse says whether something accepts connections on 127.0.0.1:port.
func PortInUse(port int) bool { return portFree(port) != nil }

// ConfigNames lists the named configs.
func ConfigNames() []string {
	var n []string
	for k := range Configs {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// configLines returns the settings of a named config, or of a file (one setting per line, in
// the server's own syntax; blank lines and comments kept as they are).
func configLines(kind, config string) ([]string, error) {
	if c, ok := Configs[config]; ok {
		return c[kind], nil
	}
	if mb, ok, err := ParseOSCache(config); ok {
		if err != nil {
			return nil, err
		}
		return render(configSettings(kind, "cached-by-os", mb)), nil
	}
	b, err := os.ReadFile(config)
	if err != nil {
		return nil, fmt.Errorf("--config %q is neither a named config (%s) nor a readable file: %v", config, strings.Join(ConfigNames(), ", "), err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n"), nil
}

// owner is the system user a server runs as when dbperf runs as root (servers refuse root).
func owner(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("the %s system user does not exist (the server's Debian package creates it): %v", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// mkdirOwned creates dir (and parents) and gives it to cred's user. Parents it creates can be
// entered by everyone, so that the server's user reaches dir.
func mkdirOwned(dir string, cred *syscall.Credential) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(dir, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// runAs runs a command as cred's user (or as is), returning its combined output on failure.
func runAs(ctx context.Context, cred *syscall.Credential, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/" // the server's user may not be allowed into the caller's directory
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// writeOwned writes a file and gives it to cred's user.
func writeOwned(path string, data []byte, cred *syscall.Credential) error {
	if err := os.WriteFile(path, data, 0o640); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(path, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// portFree fails if something already listens on the port, which would make a new server fail
// in a less clear way.
func portFree(port int) error {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("port %d on 127.0.0.1 is already in use by another program: choose another --port", port)
	}
	return nil
}

// pidAlive reads a pid file and reports whether that process exists.
func pidAlive(pidFile string) (int, bool) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, syscall.Kill(pid, 0) == nil
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// recordStart remembers the config and port a server was started with, for status.
func recordStart(o Options, cred *syscall.Credential) error {
	return writeOwned(filepath.Join(o.DataDir, "dbperf-started"), []byte(fmt.Sprintf("%s\n%d\n", o.Config, o.Port)), cred)
}

// lastStart returns the config and port of the last start in dataDir (port 0 if none).
func lastStart(dataDir string) (config string, port int) {
	b, _ := os.ReadFile(filepath.Join(dataDir, "dbperf-started"))
	f := strings.Fields(string(b))
	if len(f) == 2 {
		config = f[0]
		port, _ = strconv.Atoi(f[1])
	}
	return config, port
}

// status fills a Status from a pid file and the last start's record; a server started with
// another port than the one asked for is described with the port it really uses.
func status(o Options, pidFile string, target func(port int) string) Status {
	pid, alive := pidAlive(pidFile)
	config, port := lastStart(o.DataDir)
	if port == 0 {
		port = o.Port
	}
	return Status{Running: alive, PID: pid, Port: port, DataDir: o.DataDir, Config: config, Target: target(port)}
}

// beforeStart does what every server's start does first, and fails before anything changes:
// the server must not run yet, its port must be free, its config must be readable, and its
// data directory must exist, owned by the system user the server runs as (returned, nil when
// dbperf does not run as root).
func beforeStart(o Options, s Server, user string) (settings []string, cred *syscall.Credential, err error) {
	if st, _ := s.Status(); st.Running {
		return nil, nil, fmt.Errorf("%s is already running on port %d with data in %s: stop it first (dbperf server stop %s --datadir %s)",
			o.Kind, st.Port, o.DataDir, o.Kind, o.DataDir)
	}
	if err := portFree(o.Port); err != nil {
		return nil, nil, err
	}
	if settings, err = configLines(o.Kind, o.Config); err != nil {
		return nil, nil, err
	}
	if cred, err = owner(user); err != nil {
		return nil, nil, err
	}
	if err := checkAccess(o.Kind, o.DataDir, user); err != nil {
		return nil, nil, err
	}
	return settings, cred, mkdirOwned(o.DataDir, cred)
}

package crash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/server"
)

// Servers are the server kinds whose private instance dbperf crash starts, crashes and
// restarts itself.
var Servers = []string{"postgres", "mariadb-innodb", "mariadb-myrocks"}

func isServer(kind string) bool { _, ok := serverEngines[kind]; return ok }

// privateServer is the crash test's own server: a fresh data directory, the settings under test
// in its config, on the power-loss layer for --kill power.
type privateServer struct {
	srv      server.Server
	kind     string // postgres or mariadb
	dataDir  string // the server's directory; its data directory is dataDir/data
	url      string
	layer    Layer  // power only
	backing  string // power only: what the layer serves at dataDir/data
	settings map[string]string
	keep     bool // --keep-data: leave the data directory
}

// startPrivate creates and starts the server.
func startPrivate(ctx context.Context, cfg Config) (*privateServer, error) {
	ps := &privateServer{kind: "postgres", settings: cfg.Settings, keep: cfg.KeepData}
	port := cfg.Port
	if cfg.Kind != "postgres" {
		ps.kind = "mariadb"
		if cfg.Kind == "mariadb-myrocks" {
			if _, err := os.Stat("/usr/lib/mysql/plugin/ha_rocksdb.so"); err != nil {
				return nil, errors.New("MyRocks is not installed: apt-get install mariadb-plugin-rocksdb")
			}
		}
	}
	if port == 0 {
		port = map[string]int{"postgres": 15461, "mariadb": 13461}[ps.kind]
	}
	ps.dataDir = cfg.ServerDir
	if ps.dataDir == "" {
		ps.dataDir = filepath.Join(os.TempDir(), fmt.Sprintf("dbperf-crash-%s-%d", ps.kind, port))
	}
	conf := filepath.Join(cfg.Out, "server.conf")
	if err := os.WriteFile(conf, []byte(configText(cfg.Settings)), 0o644); err != nil {
		return nil, err
	}
	srv, err := server.New(server.Options{Kind: ps.kind, DataDir: ps.dataDir, Config: conf, Port: port})
	if err != nil {
		return nil, err
	}
	if st, _ := srv.Status(); st.Running {
		return nil, fmt.Errorf("a server already runs in %s: stop it first (dbperf server stop %s --datadir %s)", ps.dataDir, ps.kind, ps.dataDir)
	}
	ps.srv = srv
	if err := ps.fresh(ctx, cfg); err != nil {
		return nil, err
	}
	ps.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/dbperf", port)
	if ps.kind == "mariadb" {
		ps.url = fmt.Sprintf("dbperf@tcp(127.0.0.1:%d)/dbperf", port)
	}
	return ps, nil
}

// fresh makes a new data directory (on the layer under power) and starts the server in it:
// every crash test starts from initdb, and so does the crash after a failed recovery.
func (ps *privateServer) fresh(ctx context.Context, cfg Config) error {
	if err := os.RemoveAll(ps.dataDir); err != nil {
		return err
	}
	if err := os.MkdirAll(ps.dataDir, 0o755); err != nil {
		return err
	}
	if cfg.Kill == "power" {
		if err := ps.mountLayer(cfg); err != nil {
			return err
		}
	}
	if _, err := ps.srv.Start(ctx); err != nil {
		ps.stop(ctx)
		return fmt.Errorf("starting the private %s: %w", ps.kind, err)
	}
	return nil
}

// configText is the server's config: the settings under test, in its own syntax; nothing else
// changes its defaults.
func configText(settings map[string]string) string {
	var b strings.Builder
	b.WriteString("# written by dbperf crash: the settings under test\n")
	for k, v := range settings {
		fmt.Fprintf(&b, "%s = %s\n", k, v)
	}
	return b.String()
}

// mountLayer puts the data directory on the power-loss layer, owned by the server's user.
func (ps *privateServer) mountLayer(cfg Config) error {
	ps.backing = filepath.Join(ps.dataDir, "data.backing")
	if err := os.Mkdir(ps.backing, 0o700); err != nil {
		return err
	}
	name := map[string]string{"postgres": "postgres", "mariadb": "mysql"}[ps.kind]
	if os.Geteuid() == 0 {
		u, err := user.Lookup(name)
		if err != nil {
			return err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(ps.backing, uid, gid); err != nil {
			return err
		}
	}
	ps.layer = cfg.Layer()
	return ps.layer.Mount(ps.backing, filepath.Join(ps.dataDir, "data"))
}

// logFile is the server's log, copied into each crash's directory.
func (ps *privateServer) logFile() string {
	if ps.kind == "postgres" {
		return filepath.Join(ps.dataDir, "server.log")
	}
	return filepath.Join(ps.dataDir, "error.log")
}

// stop stops the server cleanly, unmounts the layer and removes the data directory (a crash
// that broke a promise has its copy in its crash directory), unless it is to be kept.
func (ps *privateServer) stop(ctx context.Context) {
	if st, _ := ps.srv.Status(); st.Running {
		ps.srv.Stop(ctx)
	}
	if ps.layer != nil {
		ps.layer.Unmount()
	}
	if !ps.keep {
		os.RemoveAll(ps.dataDir) // the layer's trash is beside the backing directory, inside it
	}
}

// crash runs crash i against the server: a new table, writers, SIGKILL of every server
// process (and a power cut), a timed restart, the read back.
func (ps *privateServer) crash(ctx context.Context, cfg Config, i int) (Result, map[string]string, error) {
	dir := filepath.Join(cfg.Out, fmt.Sprintf("crash-%d", i))
	acks := filepath.Join(dir, "acks")
	if err := os.MkdirAll(acks, 0o755); err != nil {
		return Result{}, nil, err
	}
	spec := ChildSpec{Mode: "create", Kind: cfg.Kind, Dir: ps.url, Settings: cfg.Settings, AckDir: acks,
		Clients: cfg.Clients, Batch: cfg.Batch, Seed: cfg.Seed, Fresh: true}
	if err := ps.prepare(ctx, cfg, spec, dir); err != nil {
		return Result{}, nil, fmt.Errorf("crash %d: %w", i, err)
	}
	spec.Mode, spec.Fresh = "write", false
	delay := crashDelay(cfg, i)
	opened, crashed, settings, err := writeAndKill(ctx, cfg, spec, dir, delay, func(*exec.Cmd) (time.Time, error) {
		at, _, err := server.Kill(ctx, ps.srv)
		return at, err
	})
	if err == nil && ps.layer != nil {
		if err = ps.layer.Cut(); err == nil {
			err = ps.layer.Mount(ps.backing, filepath.Join(ps.dataDir, "data"))
		}
	}
	if err != nil {
		return Result{}, nil, fmt.Errorf("crash %d: %w", i, err)
	}
	if testAfterKill != nil {
		testAfterKill(i, filepath.Join(ps.dataDir, "data"))
	}
	v := Verified{}
	start := time.Now()
	_, serr := ps.srv.Start(ctx)
	recovery := ms(time.Since(start))
	copyFile(ps.logFile(), filepath.Join(dir, filepath.Base(ps.logFile())))
	if serr != nil {
		v.Error = "restart: " + serr.Error()
	} else {
		spec.Mode, spec.Out = "verify", filepath.Join(dir, "verify.json")
		if v, err = runVerify(ctx, cfg, spec, dir); err != nil {
			return Result{}, nil, fmt.Errorf("crash %d: %w", i, err)
		}
	}
	v.RecoveryMS = recovery // the server's restart, crash recovery included
	r, err := analyzeDir(cfg, v, acks, opened, crashed, spec, dir, i)
	if err != nil {
		return r, nil, err
	}
	if promise, _ := Promise(cfg.Kind, cfg.Settings, cfg.Kill); promise == Durable && r.Broken() || r.RecoveryFailed {
		ps.keepEvidence(ctx, dir)
	}
	if r.RecoveryFailed && i < cfg.Crashes {
		// The next crash needs a working server: start again from initdb.
		ps.stop(ctx)
		if err := ps.fresh(ctx, cfg); err != nil {
			return r, settings, fmt.Errorf("crash %d: recovery failed, and so did a new server: %w", i, err)
		}
	}
	return r, settings, nil
}

// testAfterKill lets a test damage the data directory between the crash and the restart.
var testAfterKill func(crash int, dataDir string)

// prepare makes a new empty table and lets it become durable before the writers start: the
// crash then tests the commits, not the table's creation.
func (ps *privateServer) prepare(ctx context.Context, cfg Config, spec ChildSpec, dir string) error {
	cmd, _, err := startChild(ctx, cfg, spec, filepath.Join(dir, "create.stderr"))
	if err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("creating the table (%v): %s", err, tailFile(filepath.Join(dir, "create.stderr")))
	}
	time.Sleep(1500 * time.Millisecond) // past every once-a-second log flush of the settings under test
	if ps.layer != nil {
		return ps.layer.Sync()
	}
	return nil
}

// keepEvidence copies the server's data (the backing directory under power) into the crash's
// directory, with the server stopped for a consistent copy, and starts it again.
func (ps *privateServer) keepEvidence(ctx context.Context, dir string) {
	running := false
	if st, _ := ps.srv.Status(); st.Running {
		running = ps.srv.Stop(ctx) == nil
	}
	src := filepath.Join(ps.dataDir, "data")
	if ps.backing != "" {
		src = ps.backing
	}
	exec.CommandContext(ctx, "cp", "-a", src, filepath.Join(dir, "server-data")).Run()
	if running {
		ps.srv.Start(ctx)
	}
}

func copyFile(from, to string) {
	if b, err := os.ReadFile(from); err == nil {
		os.WriteFile(to, b, 0o644)
	}
}

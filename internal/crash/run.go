package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Config is one crash test: a target with its settings, crashed Crashes times.
type Config struct {
	Kind     string            // an embedded kind (Embedded) or a server kind (Servers)
	Settings map[string]string // in the engine's own terms
	Kill     string            // "process" or "power"
	Crashes  int
	Clients  int
	Batch    int // rows per transaction
	Seed     uint64
	// MinRun and MaxRun bound the time from the target's opening to the crash; the instant
	// is drawn from the seed, per crash, and recorded.
	MinRun, MaxRun time.Duration
	Out            string   // the run directory
	Child          []string // the command that runs a child (ChildMain) with ChildEnv set
	// Layer makes the power-loss layer for kill "power"; nil otherwise. DirSync records its
	// model of directory entries: "posix" (only a directory's fsync makes a new name durable)
	// or "file" (a file's fsync makes its creation durable too, as ext4 does).
	Layer    func() Layer
	DirSync  string
	KeepData bool
	// Port and ServerDir place a private server (defaults: 15461 or 13461, and
	// /tmp/dbperf-crash-KIND-PORT).
	Port      int
	ServerDir string
	Meta      map[string]any // the command, build and host, for run.json
	Log       io.Writer      // one line per crash
}

// Layer is the power-loss file system under a crash's data directory (internal/powerfs).
type Layer interface {
	Mount(backing, mnt string) error // serve backing at mnt
	Cut() error                      // power cut: discard what was not synced, unmount
	Unmount() error                  // clean stop: keep everything
	Sync() error                     // make everything so far durable
}

// Run runs the crashes, writing each result and then crash.json to cfg.Out, and returns the
// summary.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := Validate(cfg); err != nil {
		return nil, err
	}
	if cfg.Kill == "power" && cfg.Layer == nil {
		return nil, errors.New("--kill power needs the power-loss layer")
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	promise, why := Promise(cfg.Kind, cfg.Settings, cfg.Kill)
	f := File{Config: fileConfig(cfg), Promise: promise, Why: why, Started: time.Now().UTC()}
	if err := writeJSON(filepath.Join(cfg.Out, "crash.json"), f); err != nil {
		return nil, err
	}
	one := runOne
	if isServer(cfg.Kind) {
		ps, err := startPrivate(ctx, cfg)
		if err != nil {
			return nil, err
		}
		defer ps.stop(context.WithoutCancel(ctx))
		one = ps.crash
	}
	for i := 1; i <= cfg.Crashes; i++ {
		r, settings, err := one(ctx, cfg, i)
		if err != nil {
			f.Error = err.Error()
			break
		}
		f.Settings = settings
		f.Results = append(f.Results, r)
		if cfg.Log != nil {
			fmt.Fprintln(cfg.Log, r.Line())
		}
	}
	f.Summary = Summarize(f.Results, promise)
	f.Finished = time.Now().UTC()
	f.markIncomplete()
	if err := writeJSON(filepath.Join(cfg.Out, "crash.json"), f); err != nil {
		return nil, err
	}
	if f.Error != "" {
		return &f.Summary, errors.New(f.Error)
	}
	return &f.Summary, nil
}

// Validate checks a test's configuration before anything runs or is written, so that a
// mistake gets one sentence and no verdict.
func Validate(cfg Config) error {
	switch {
	case cfg.Kill != "process" && cfg.Kill != "power":
		return fmt.Errorf("--kill must be process or power (got %q)", cfg.Kill)
	case cfg.Crashes < 1:
		return fmt.Errorf("--crashes must be at least 1 (got %d): a test with no crash proves nothing", cfg.Crashes)
	case cfg.Clients < 1:
		return fmt.Errorf("--clients must be at least 1 (got %d)", cfg.Clients)
	case cfg.Batch < 1:
		return fmt.Errorf("--batch must be at least 1 row per transaction (got %d)", cfg.Batch)
	case cfg.MinRun < 0:
		return fmt.Errorf("--min-run must not be negative (got %v)", cfg.MinRun)
	case cfg.MaxRun < cfg.MinRun:
		return fmt.Errorf("the longest run before a crash (%v) is shorter than the shortest (%v): raise --max-run", cfg.MaxRun, cfg.MinRun)
	}
	if err := CheckSettings(cfg.Kind, cfg.Settings); err != nil {
		return err
	}
	if promise, why := Promise(cfg.Kind, cfg.Settings, cfg.Kill); promise == Refused {
		return errors.New(why)
	}
	return nil
}

// runOne runs crash i: write until the drawn instant, crash, recover, read back, compare.
func runOne(ctx context.Context, cfg Config, i int) (Result, map[string]string, error) {
	dir := filepath.Join(cfg.Out, fmt.Sprintf("crash-%d", i))
	data, acks := filepath.Join(dir, "data"), filepath.Join(dir, "acks")
	for _, d := range []string{data, acks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Result{}, nil, err
		}
	}
	engineDir := data
	var layer Layer
	if cfg.Kill == "power" {
		engineDir = filepath.Join(dir, "mnt")
		layer = cfg.Layer()
		if err := layer.Mount(data, engineDir); err != nil {
			return Result{}, nil, fmt.Errorf("crash %d: mounting the power-loss layer: %w", i, err)
		}
	}
	spec := ChildSpec{Mode: "create", Kind: cfg.Kind, Dir: engineDir, Settings: cfg.Settings, AckDir: acks,
		Clients: cfg.Clients, Batch: cfg.Batch, Seed: cfg.Seed}
	if layer != nil {
		// The database is created and made durable first, as one that has existed for long:
		// the crash then tests the commits, not the creation of the files.
		if err := createDurably(ctx, cfg, spec, dir, layer); err != nil {
			layer.Unmount()
			return Result{}, nil, fmt.Errorf("crash %d: %w", i, err)
		}
	}
	spec.Mode = "write"
	delay := crashDelay(cfg, i)
	opened, crashed, settings, err := writeAndKill(ctx, cfg, spec, dir, delay, killChild)
	if err == nil && layer != nil {
		if err = layer.Cut(); err == nil {
			err = layer.Mount(data, engineDir)
		}
	}
	if err != nil {
		if layer != nil {
			layer.Unmount()
		}
		return Result{}, nil, fmt.Errorf("crash %d: %w", i, err)
	}
	spec.Mode, spec.Out = "verify", filepath.Join(dir, "verify.json")
	v, err := runVerify(ctx, cfg, spec, dir)
	if layer != nil {
		if uerr := layer.Unmount(); uerr != nil && err == nil {
			err = fmt.Errorf("unmounting the power-loss layer: %w", uerr)
		}
	}
	if err != nil {
		return Result{}, nil, fmt.Errorf("crash %d: %w", i, err)
	}
	r, err := analyzeDir(cfg, v, acks, opened, crashed, spec, dir, i)
	if err != nil {
		return r, nil, err
	}
	promise, _ := Promise(cfg.Kind, cfg.Settings, cfg.Kill)
	if !cfg.KeepData && !(promise == Durable && r.Broken()) {
		os.RemoveAll(data)
		os.RemoveAll(data + ".powerfs-trash") // the layer's (powerfs.Trash)
		os.Remove(engineDir)
	}
	return r, settings, nil
}

// crashDelay is crash i's time from the opening to the crash, drawn from the seed.
func crashDelay(cfg Config, i int) time.Duration {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	return cfg.MinRun + time.Duration(rng.Int64N(int64(cfg.MaxRun-cfg.MinRun)+1))
}

// analyzeDir reads a crash's acknowledgements, compares them with what was read back and
// writes result.json.
func analyzeDir(cfg Config, v Verified, acks string, opened, crashed time.Time, spec ChildSpec, dir string, i int) (Result, error) {
	all := map[int][]Ack{}
	for c := range spec.Clients {
		a, err := ReadAcks(acks, c)
		if err != nil {
			return Result{}, err
		}
		all[c] = a
	}
	r := Analyze(all, v, opened, crashed, spec.Batch)
	r.Crash = i
	if r.Lost > 0 {
		// The missing ids are evidence, beside the acknowledgement logs they come from.
		if err := writeJSON(filepath.Join(dir, "missing.json"), r.Missing); err != nil {
			return r, err
		}
	}
	return r, writeJSON(filepath.Join(dir, "result.json"), r)
}

// killChild crashes an embedded engine: SIGKILL of the child that holds it.
func killChild(cmd *exec.Cmd) (time.Time, error) {
	err := cmd.Process.Signal(syscall.SIGKILL)
	return time.Now(), err
}

// writeAndKill starts the writer, waits until it is ready, lets it write for delay, crashes the
// target with kill (which returns the instant of the crash) and waits for the writer to end (killing it after 10 s).
func writeAndKill(ctx context.Context, cfg Config, spec ChildSpec, dir string, delay time.Duration, kill func(*exec.Cmd) (time.Time, error)) (opened, crashed time.Time, settings map[string]string, err error) {
	cmd, stdout, err := startChild(ctx, cfg, spec, filepath.Join(dir, "writer.stderr"))
	if err != nil {
		return
	}
	line, err := readLine(stdout, 2*time.Minute)
	if err != nil || !strings.HasPrefix(line, "ready") {
		cmd.Process.Kill()
		cmd.Wait()
		return opened, crashed, nil, fmt.Errorf("the writer did not start (%v): %s", err, tailFile(filepath.Join(dir, "writer.stderr")))
	}
	opened = time.Now()
	json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "ready"))), &settings)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-time.After(delay):
	case <-ctx.Done():
		cmd.Process.Kill()
		<-exited
		return opened, crashed, nil, ctx.Err()
	case err := <-exited:
		return opened, crashed, nil, fmt.Errorf("the writer stopped before the crash (%v): %s", err, tailFile(filepath.Join(dir, "writer.stderr")))
	}
	crashed, kerr := kill(cmd)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
	return opened, crashed, settings, kerr
}

// createDurably opens and closes the target in a child, then syncs the layer.
func createDurably(ctx context.Context, cfg Config, spec ChildSpec, dir string, layer Layer) error {
	cmd, _, err := startChild(ctx, cfg, spec, filepath.Join(dir, "create.stderr"))
	if err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("creating the database (%v): %s", err, tailFile(filepath.Join(dir, "create.stderr")))
	}
	return layer.Sync()
}

// runVerify runs the verifier and reads what it found.
func runVerify(ctx context.Context, cfg Config, spec ChildSpec, dir string) (Verified, error) {
	var v Verified
	cmd, _, err := startChild(ctx, cfg, spec, filepath.Join(dir, "verify.stderr"))
	if err != nil {
		return v, err
	}
	werr := cmd.Wait()
	b, err := os.ReadFile(spec.Out)
	if err != nil {
		// The verifier died (a panic in recovery is a failed recovery, not a failed test).
		v.Error = fmt.Sprintf("the recovering process failed (%v): %s", werr, tailFile(filepath.Join(dir, "verify.stderr")))
		return v, nil
	}
	return v, json.Unmarshal(b, &v)
}

func startChild(ctx context.Context, cfg Config, spec ChildSpec, stderr string) (*exec.Cmd, *bufio.Reader, error) {
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, cfg.Child[0], cfg.Child[1:]...)
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(js))
	ef, err := os.Create(stderr)
	if err != nil {
		return nil, nil, err
	}
	defer ef.Close()
	cmd.Stderr = ef
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd, bufio.NewReader(out), nil
}

// readLine reads one line, or fails after d.
func readLine(r *bufio.Reader, d time.Duration) (string, error) {
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() { s, err := r.ReadString('\n'); ch <- res{s, err} }()
	select {
	case x := <-ch:
		return x.s, x.err
	case <-time.After(d):
		return "", fmt.Errorf("no line in %v", d)
	}
}

// tailFile returns the last lines of a file, for an error message.
func tailFile(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return "(nothing on its standard error)"
	}
	return s
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

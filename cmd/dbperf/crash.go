package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/crash"
	"github.com/dbperf/dbperf/internal/powerfs"
	"github.com/spf13/cobra"
)

// crashFlags are `dbperf crash`'s flags.
type crashFlags struct {
	target, kill, out string
	sets              []string
	crashes, clients  int
	batch             int
	seed              uint64
	minRun, maxRun    time.Duration
	keepData          bool
	port              int
	serverDir         string
	dirSync           string
}

// crashCmd is `dbperf crash`: the lost-commit test (docs/reliability.md).
func crashCmd() *cobra.Command {
	var o crashFlags
	c := &cobra.Command{
		Use:   "crash",
		Short: "Crash a target while clients commit, recover it, and count the acknowledged commits lost",
		Long: `crash inserts numbered rows from --clients clients, each row (or --batch rows) in its own
transaction, and logs every acknowledged commit outside the crashed file system. At a seeded
random moment between --min-run and --max-run the target is crashed: --kill process (SIGKILL
of the process holding the engine) or --kill power (the data directory is on dbperf's
power-loss layer, which discards every write not fsynced). It is then recovered (timed) and read
back. Each crash reports the acknowledged transactions lost, whether they are a suffix or leave
holes, rows in flight, corrupt or duplicated, the recovery, and the window the loss covers.
A setting that promises durability must lose nothing: "durable: 0 lost in K crashes"; a loss
is reported loudly and its data directory kept. See docs/reliability.md.`,
		Example: `  dbperf crash --target sqlite --set synchronous=NORMAL --set journal_mode=WAL --kill power --crashes 10
  dbperf crash --target pebble --set sync=false --kill process --crashes 20
  dbperf crash --target postgres --set synchronous_commit=off --kill process
  dbperf crash --target mariadb-innodb --set innodb_flush_log_at_trx_commit=2 --kill power
  dbperf crash summary runs/crash-*`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c) },
	}
	f := c.Flags()
	f.StringVar(&o.target, "target", "sqlite", "embedded target ("+strings.Join(crash.Embedded, ", ")+") or a private server dbperf starts, crashes and restarts itself ("+strings.Join(crash.Servers, ", ")+")")
	f.IntVar(&o.port, "port", 0, "the private server's port on 127.0.0.1 (default 15461 for postgres, 13461 for mariadb)")
	f.StringVar(&o.serverDir, "server-dir", "", "the private server's directory, emptied first (default /tmp/dbperf-crash-KIND-PORT)")
	f.StringArrayVar(&o.sets, "set", nil, "NAME=VALUE: a setting in the engine's own terms (repeatable), e.g. synchronous=NORMAL, sync=false, NoSync=true, SyncWrites=true")
	f.StringVar(&o.kill, "kill", "process", "process (SIGKILL) or power (discard every write not fsynced)")
	f.IntVar(&o.crashes, "crashes", 3, "crashes of this setting")
	f.IntVar(&o.clients, "clients", 2, "inserting clients")
	f.IntVar(&o.batch, "batch", 1, "rows per transaction")
	f.Uint64Var(&o.seed, "seed", 0, "seed of the crash instants and payloads (default: a new one, printed and stored)")
	f.DurationVar(&o.minRun, "min-run", time.Second, "shortest time from the target's opening to the crash")
	f.DurationVar(&o.maxRun, "max-run", 3*time.Second, "longest time from the target's opening to the crash")
	f.StringVar(&o.out, "out", "", "run directory (default runs/crash-TARGET-KILL-DATE-TIME)")
	f.StringVar(&o.dirSync, "dir-sync", "posix", "under --kill power, what makes a new file's name durable: posix (only its directory's fsync) or file (also the file's own fsync, as ext4 and XFS do in practice)")
	f.BoolVar(&o.keepData, "keep-data", false, "keep every crash's data directory (kept anyway when a durability promise breaks)")
	c.AddCommand(crashSummaryCmd(), crashTableCmd(), crashChildCmd(), powerfsCmd())
	return c
}

// run runs the crash test the flags describe; a broken promise exits with status 3.
func (o *crashFlags) run(c *cobra.Command) error {
	settings, err := parseSets(o.sets)
	if err != nil {
		return err
	}
	if !c.Flags().Changed("seed") {
		o.seed = randomSeed()
	}
	if o.dirSync != "posix" && o.dirSync != "file" {
		return fmt.Errorf("--dir-sync must be posix or file (got %q)", o.dirSync)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// Everything is checked before anything is printed, run or written.
	if err := crash.Validate(crash.Config{Kind: o.target, Settings: settings, Kill: o.kill, Crashes: o.crashes,
		Clients: o.clients, Batch: o.batch, MinRun: o.minRun, MaxRun: o.maxRun}); err != nil {
		return err
	}
	if o.out == "" {
		o.out = fmt.Sprintf("runs/crash-%s-%s-%s", o.target, o.kill, time.Now().Format("20060102-150405"))
	}
	cfg := crash.Config{Kind: o.target, Settings: settings, Kill: o.kill, Crashes: o.crashes, Clients: o.clients, Batch: o.batch,
		Seed: o.seed, MinRun: o.minRun, MaxRun: o.maxRun, Out: o.out, Child: []string{exe, "crash", "child"}, KeepData: o.keepData,
		Port: o.port, ServerDir: o.serverDir,
		Meta: map[string]any{"command": strings.Join(os.Args, " "), "build": archive.ThisBuild()}, Log: c.OutOrStdout()}
	if o.kill == "power" {
		cfg.DirSync = o.dirSync
		cfg.Layer = func() crash.Layer {
			return &powerfs.Process{Command: []string{exe, "crash", "powerfs"}, FileEntries: o.dirSync == "file"}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	promise, why := crash.Promise(o.target, settings, o.kill)
	shown := strings.Join(o.sets, " ")
	if shown == "" {
		shown = "defaults"
	}
	fmt.Fprintf(c.OutOrStdout(), "crash test of %s (%s), kill %s, %d crashes into %s, seed %d\npromise: %s: %s\n",
		o.target, shown, o.kill, o.crashes, o.out, o.seed, promise, why)
	s, err := crash.Run(ctx, cfg)
	if s != nil {
		fmt.Fprintln(c.OutOrStdout(), s.Verdict)
	}
	if err != nil {
		return err
	}
	if s.Broken {
		return &exitError{code: 3}
	}
	return nil
}

// parseSets turns repeated NAME=VALUE flags into settings.
func parseSets(sets []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: want NAME=VALUE, e.g. --set synchronous=NORMAL", s)
		}
		m[k] = v
	}
	return m, nil
}

func crashSummaryCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "summary RUN...",
		Short: "One line per crash run: commits/s bought, lost commits per crash, suffix or holes, recovery",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, dirs []string) error {
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format must be text or markdown (got %q)", format)
			}
			return writeCrashSummary(c.OutOrStdout(), dirs, format)
		},
	}
	c.Flags().StringVar(&format, "format", "text", "text (aligned columns) or markdown (docs/reliability.md's table)")
	return c
}

// writeCrashSummary prints crash runs' lines, as text or markdown, in the order of their names.
func writeCrashSummary(w io.Writer, dirs []string, format string) error {
	dirs = slices.Clone(dirs)
	sort.Strings(dirs)
	var files []crash.File
	for _, d := range dirs {
		f, err := crash.Load(d)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		files = append(files, f)
	}
	if format == "markdown" {
		crash.WriteMarkdown(w, files)
		return nil
	}
	return crash.WriteTable(w, dirs, files)
}

// splitCrashRuns splits paths into crash runs (dbperf crash's directories: crash.json, no run.json)
// and the rest, so that dbperf summary reads both.
func splitCrashRuns(paths []string) (crashes, rest []string) {
	for _, p := range paths {
		_, runErr := os.Stat(filepath.Join(p, "run.json"))
		if _, err := os.Stat(filepath.Join(p, "crash.json")); err == nil && runErr != nil {
			crashes = append(crashes, p)
		} else {
			rest = append(rest, p)
		}
	}
	return crashes, rest
}

// crashTableCmd runs every setting of docs/reliability.md's table.
func crashTableCmd() *cobra.Command {
	var (
		out, targets, kills string
		crashes, serverCrs  int
		minRun, maxRun      time.Duration
	)
	c := &cobra.Command{
		Use:   "table",
		Short: "Run the crash test for every setting of docs/reliability.md's lost-commit table",
		Example: `  dbperf crash table --out runs/crash-table --crashes 5 --server-crashes 3
  dbperf crash summary --format markdown runs/crash-table/*`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			seed := randomSeed()
			base := crash.Config{Crashes: crashes, Clients: 2, Batch: 1, Seed: seed, MinRun: minRun, MaxRun: maxRun,
				Child: []string{exe, "crash", "child"}, Meta: map[string]any{"command": strings.Join(os.Args, " "), "build": archive.ThisBuild()},
				Layer: func() crash.Layer { return powerfs.NewProcess([]string{exe, "crash", "powerfs"}) }}
			var kinds []string
			if targets != "all" {
				kinds = strings.Split(targets, ",")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(c.OutOrStdout(), "lost-commit table into %s, seed %d\n", out, seed)
			dirs := crash.RunTable(ctx, base, kinds, strings.Split(kills, ","), serverCrs, out, c.OutOrStdout())
			var files []crash.File
			for _, d := range dirs {
				if f, err := crash.Load(d); err == nil {
					files = append(files, f)
				}
			}
			crash.WriteMarkdown(c.OutOrStdout(), files)
			return ctx.Err()
		},
	}
	f := c.Flags()
	f.StringVar(&out, "out", "runs/crash-table", "directory of the runs, one per setting and kill")
	f.StringVar(&targets, "targets", "all", "comma-separated target kinds, or all")
	f.StringVar(&kills, "kill", "process,power", "comma-separated crash kinds")
	f.IntVar(&crashes, "crashes", 5, "crashes per embedded setting")
	f.IntVar(&serverCrs, "server-crashes", 3, "crashes per server setting (each restarts the server)")
	f.DurationVar(&minRun, "min-run", time.Second, "shortest time from the target's opening to the crash")
	f.DurationVar(&maxRun, "max-run", 3*time.Second, "longest time from the target's opening to the crash")
	return c
}

// crashChildCmd is the process that holds the engine; crash starts it with its spec in the
// environment.
func crashChildCmd() *cobra.Command {
	return &cobra.Command{
		Use: "child", Hidden: true, Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			crash.ChildMain()
			return fmt.Errorf("crash child: %s is not set", crash.ChildEnv)
		},
	}
}

// powerfsCmd serves the power-loss layer in its own process, so a process that reads its own
// mount through mmap cannot deadlock with the server's goroutines.
func powerfsCmd() *cobra.Command {
	return &cobra.Command{
		Use: "powerfs", Hidden: true, Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			powerfs.ServeMain()
			return fmt.Errorf("crash powerfs: %s is not set", powerfs.ServeEnv)
		},
	}
}

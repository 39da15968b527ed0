// Command dbperf is a database benchmarking lab in one binary: reference workloads on embedded
// engines and servers, measured truthfully, archived as plain files, reported side by side.
// This package only parses flags and wires the library together.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/spf13/cobra"

	_ "github.com/dbperf/dbperf/internal/driver/kvdriver"  // pebble, bbolt
	_ "github.com/dbperf/dbperf/internal/driver/sqldriver" // sqlite, postgres, mysql
)

const rootLong = `dbperf runs reference workloads (the Insert Benchmark) against embedded engines
(SQLite, Pebble, bbolt) and servers (PostgreSQL, MySQL/MariaDB with InnoDB or MyRocks), records
every operation's latency in HDR histograms from its intended start, watches the host and the
DBMS on the same clock, checks the database after every step, and writes each run to a
directory of plain files that 'dbperf summary', 'compare' and 'report' read.`

const rootExample = `  dbperf run insert                                  # SQLite in a temporary file, seconds
  dbperf run insert --target pebble:/tmp/ib --clients 4 --rows 2000000
  dbperf server start postgres                       # a private PostgreSQL on 127.0.0.1:15432
  dbperf run insert --target postgres://postgres@127.0.0.1:15432/ib --tables shared --out runs/pg-shared
  dbperf run insert --plan plans/cached-by-dbms-vs-os.json --out runs/cached
  dbperf summary runs/pg-shared runs/pebble-1
  dbperf compare --base runs/cached/postgres-cached-by-dbms runs/cached/*
  dbperf report runs/cached/* -o report.html
  dbperf targets`

func main() {
	if err := rootCmd().Execute(); err != nil {
		exit(err)
	}
}

// rootCmd is dbperf with its global flags and every command.
func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "dbperf",
		Short:         "Benchmark databases with reference workloads, truthful latency and plain-file archives",
		Long:          rootLong,
		Example:       rootExample,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(archive.ThisBuild()),
	}
	// Every command's persistent hooks run, the root's (--cpuprofile) and run's (its flags'
	// checks) alike.
	cobra.EnableTraverseRunHooks = true
	root.SetVersionTemplate("dbperf {{.Version}}\n")
	addGlobalFlags(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%v (see '%s --help')", err, c.CommandPath())
	})
	run := runCmd()
	run.AddCommand(runSysbenchCmd()) // sysbench.go, docs/sysbench.md
	search := searchCmd()
	search.AddCommand(searchSysbenchCmd()) // search_sysbench.go
	root.AddCommand(run, search, summaryCmd(), compareCmd(), targetsCmd(), serverCmd(), reportCmd())
	root.AddCommand(mergeCmd(), k8sCmd()) // sharded runs: merge.go, k8s.go
	root.AddCommand(crashCmd())           // lost commits: crash.go, docs/reliability.md

	root.AddCommand(countersCmd()) // DBMS counters per op: counters.go, docs/counters.md
	return root
}

// addGlobalFlags declares the flags every command takes, checks them before any command
// runs and starts the CPU profile (--cpuprofile).
func addGlobalFlags(root *cobra.Command) {
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of dbperf itself to this file")
	root.PersistentFlags().StringVar(&clientProcs, "client-procs", "auto", "Go processors of the client: auto (one per CPU plus one per client when it waits in the kernel: RocksDB, --client-path kernel; otherwise one, doubled whenever it uses 40% of them; see docs/performance.md), all (one per CPU, Go's default) or a number N (exactly N for the whole run: with --client-path raw, N threads serve every client as pgbench -j N does); recorded per step as client_procs")
	root.PersistentFlags().StringVar(&clientPathFlag, "client-path", "kernel", "how the hot statements reach a server: kernel (on the driver's socket with raw system calls, each client waiting in the kernel as a C client does), raw (the same waiting on Go's network poller), netconn (the same through Go's net.Conn) or driver (every statement through pgx or go-sql-driver/mysql); recorded in run.json, see docs/performance.md")
	root.PersistentFlags().DurationVar(&faultTimeout, "fault-timeout", defaultFaultTimeout, "how long a step goes on without its target, its clients reconnecting, before it ends (0: the first lost connection ends it); recorded in run.json, see docs/reliability.md")
	root.PersistentFlags().BoolVar(&dbmsCounters, "dbms-counters", true, "sample every DBMS counter each second (docs/counters.md); false asks the DBMS for none, the baseline that measures sampling's own cost; recorded in run.json")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := checkClientProcs(); err != nil {
			return err
		}
		if faultTimeout < 0 {
			return fmt.Errorf("--fault-timeout must not be negative (got %s)", faultTimeout)
		}
		var err error
		if clientPath, err = driver.ParseClientPath(clientPathFlag); err != nil {
			return err
		}
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(*cobra.Command, []string) { pprof.StopCPUProfile() }
}

// exit ends dbperf after a command's error: with the code of an exitError, silently; else
// saying the error, with 130 after an interrupt and 1 otherwise.
func exit(err error) {
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	fmt.Fprintln(os.Stderr, "dbperf:", err)
	if errors.Is(err, session.ErrInterrupted) {
		os.Exit(130)
	}
	os.Exit(1)
}

// versionString is what --version prints after "dbperf ": the version, the commit (with
// "+modified" for a work tree with uncommitted changes) and the Go version of the build, the
// same provenance run.json records.
func versionString(b archive.Build) string {
	commit := b.Commit
	if b.Modified {
		commit += "+modified"
	}
	return fmt.Sprintf("%s (commit %s, %s)", b.Version, commit, b.GoVersion)
}

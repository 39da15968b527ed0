package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/plan"
	"github.com/dbperf/dbperf/internal/server"
	"github.com/spf13/cobra"
)

// Checks that fail fast: before a plan starts or stops any server, and before a run directory
// exists, so that a bad invocation changes nothing.

// uniqueRunDir returns path if nothing exists there, else path-02, path-03, ...: default run
// directory names stay unique when runs start within the same second, and still sort by time.
func uniqueRunDir(path string) string {
	p := path
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s-%02d", path, i)
	}
}

// defaultOut is the run directory (or, for several runs, the directory of run directories)
// when --out is not given: runs/insert[-NAME]-DATE-TIME, made unique.
func defaultOut(prefix string, now time.Time) string {
	return uniqueRunDir(filepath.Join("runs", prefix+"-"+now.Format("20060102-150405")))
}

// checkOut fails when a run directory exists and is not empty (archive.Create would refuse it),
// or when the nearest existing path on the way to it is not a directory.
func checkOut(path string) error {
	if entries, err := os.ReadDir(path); err == nil && len(entries) > 0 {
		return fmt.Errorf("run directory %s already exists and is not empty: choose another --out or remove it", path)
	}
	for d := path; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if errors.Is(err, os.ErrNotExist) && d != filepath.Dir(d) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot create run directory %s: %v", path, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("cannot create run directory %s: %s is not a directory", path, d)
		}
		return nil
	}
}

// preflight checks everything a list of runs needs that can be checked without touching a
// server: every run directory, and every server's packages and data directory. It reports
// every problem at once.
//
// needsData, when not empty, says why the run's first step needs data an earlier run loaded
// (and what to do): a new temporary database cannot serve it.
func preflight(runs []plan.Run, out string, needsData string) error {
	var errs []error
	if len(runs) == 1 {
		errs = append(errs, checkOut(out))
	} else {
		for _, r := range runs {
			errs = append(errs, checkOut(filepath.Join(out, r.Name)))
		}
	}
	for _, r := range runs {
		dir := out
		if len(runs) > 1 {
			dir = filepath.Join(out, r.Name)
		}
		if spec, err := driver.Parse(r.Target); err == nil && spec.Path != "" && overlap(spec.Path, dir) {
			errs = append(errs, fmt.Errorf("the target's files (%s) and the run directory (%s) are in one place: give the target or --out another path", spec.Path, dir))
		}
		if r.Server != nil {
			s, err := server.New(*r.Server)
			if err == nil {
				err = s.Check()
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("run %s: %w", r.Name, err))
			}
			continue
		}
		if spec, err := driver.Parse(r.Target); err == nil && spec.DSN == "" && spec.Path == "" && needsData != "" {
			errs = append(errs, fmt.Errorf("target %s is a new, empty temporary database: %s or give a database that has the data (e.g. --target %s:PATH)", r.Target, needsData, spec.Kind))
		}
	}
	return errors.Join(errs...)
}

// overlap tells whether two paths are the same or one holds the other. An embedded target
// opened inside its own run directory (or holding it) would write its files before the archive
// finds the directory not empty.
func overlap(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	if errA != nil || errB != nil {
		return false
	}
	in := func(x, dir string) bool { return strings.HasPrefix(x, dir+string(filepath.Separator)) }
	return a == b || in(a, b) || in(b, a)
}

// checkDurations rejects negative durations, which flag parsing accepts.
func checkDurations(flags map[string]time.Duration) error {
	var errs []error
	for name, d := range flags {
		if d < 0 {
			errs = append(errs, fmt.Errorf("--%s must not be negative (got %v): give a duration such as 0, 30s or 5m", name, d))
		}
	}
	return errors.Join(errs...)
}

// stopServer stops a server a run started, if it runs (a start that failed half-way may have
// left it running), and says so; it is not cancelled by the run's interrupt.
func stopServer(c *cobra.Command, kind string, s server.Server) {
	if st, _ := s.Status(); !st.Running {
		return
	}
	if err := s.Stop(context.Background()); err != nil {
		fmt.Fprintf(c.ErrOrStderr(), "dbperf: stopping %s: %v\n", kind, err)
		return
	}
	fmt.Fprintf(c.OutOrStdout(), "stopped %s\n", kind)
}

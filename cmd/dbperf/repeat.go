package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/spf13/cobra"
)

// runRepeats runs the same run --repeat times into one run group: out/rep-1, out/rep-2, ...,
// each opening its target anew (a temporary database is a new, empty one; a named one has its
// tables recreated by the first step) with its own seed, seed+i. A failed repeat is listed in
// group.json and the others run; an interrupt stops them all.
func runRepeats(ctx context.Context, c *cobra.Command, name string, spec driver.Spec, out string, seed uint64, verify bool, bind func(driver.Target) (workload.Workload, error)) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("cannot create run group %s: %w", out, err)
	}
	g := archive.Group{Name: filepath.Base(out), Workload: name, Repeats: output.repeat}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "%d repeats into the run group %s\n", output.repeat, out)
	for i := 1; i <= output.repeat; i++ {
		run := fmt.Sprintf("rep-%d", i)
		s := seed + uint64(i-1)
		fmt.Fprintf(w, "\n=== repeat %d of %d: %s, seed %d\n", i, output.repeat, run, s)
		err := runWorkload(ctx, c, name, spec, filepath.Join(out, run), s, verify, bind)
		if _, statErr := os.Stat(filepath.Join(out, run, "run.json")); statErr == nil {
			g.Runs, g.Seeds = append(g.Runs, run), append(g.Seeds, s)
		}
		if err != nil {
			g.Failed = append(g.Failed, run)
		}
		if werr := archive.WriteGroup(out, g); werr != nil {
			return werr
		}
		if errors.Is(err, session.ErrInterrupted) {
			return err // its own reason (Ctrl-C, a closed standard output)
		}
		if ctx.Err() != nil {
			if c := context.Cause(ctx); errors.Is(c, session.ErrInterrupted) {
				return c
			}
			return session.ErrInterrupted
		}
		if err != nil {
			fmt.Fprintf(c.ErrOrStderr(), "dbperf: repeat %s failed: %v\n", run, err)
		}
	}
	fmt.Fprintf(w, "\n%d of %d repeats complete in %s; 'dbperf summary %s' shows medians and 95%% confidence intervals\n",
		output.repeat-len(g.Failed), output.repeat, out, out)
	if len(g.Failed) > 0 {
		return fmt.Errorf("%d repeats failed: %s", len(g.Failed), strings.Join(g.Failed, ", "))
	}
	return nil
}

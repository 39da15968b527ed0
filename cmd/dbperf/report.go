package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/crash"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

func reportCmd() *cobra.Command {
	var out, base string
	var defFiles []string
	c := &cobra.Command{
		Use:   "report RUN...",
		Short: "One self-contained HTML page comparing run directories: tables and charts",
		Long: `report reads run directories (it never runs anything) and writes one HTML file that
works offline and makes no network request. From the top: a summary (the runs, a warning for
each run not made like the base, the main figures of each step), the comparison with a base
run (--base, default the first RUN) showing only what changed by more than 5% (a check box
shows every row; green better, red worse, by each figure's direction), the settings that
differ between the runs (all of them folded), and a foldable section per step with charts of
the throughput per second (stalls shaded), the worst latency per second, the latency
percentile distribution (from latency.hlog), the host's CPU and disk IO, and the DBMS's memory
and CPU beside dbperf's own. In every chart the colour is the run and the line style the op
type; a step too short for charts over time gets a note instead. Its first screen is a headline
per step (the main figure of each run, the figures that changed, the one-line explanation of
'compare --why' and its table, folded) and a chart of each run's main rate over all steps. Each
step has that table again, the counters that moved most in each stall, a chart per vital sign
of the DBMS on the step's time axis, and a picker that charts any counter of its
counters.csv.gz, per second or per op. Crash runs (dbperf crash)
get a section of lost commits per setting, alone or beside benchmark runs. docs/reports.md
describes it.

Given run groups (--repeat N), the page has every run of every group, named group/rep-N, and
first a section of the groups: medians, 95% intervals and the comparison with the base group
(--base, a group directory or name; default the first), as 'dbperf compare' of groups shows it
(docs/repeats.md).`,
		Example: "  dbperf report runs/a runs/b -o report.html\n  dbperf report runs/* --base runs/pg-15 -o pg.html",
		Args:    cobra.MinimumNArgs(1),
		RunE:    func(c *cobra.Command, args []string) error { return writeReport(c, args, base, out, defFiles) },
	}
	c.Flags().StringVarP(&out, "output", "o", "report.html", "the HTML file to write")
	c.Flags().StringArrayVar(&defFiles, "defs", nil, "a file of counter definitions the explanations rank besides the vital signs (repeatable; docs/counters.md)")
	c.Flags().StringVar(&base, "base", "", "the run the others are compared with (a RUN directory or a run's name; default the first RUN)")
	return c
}

// writeReport writes the report of args (run directories, run groups, crash runs) to out.
func writeReport(c *cobra.Command, args []string, base, out string, defFiles []string) error {
	args, crashes, err := crashRuns(args)
	if err != nil {
		return err
	}
	defs, err := whyDefs(true, report.FormatText, defFiles)
	if err != nil {
		return err
	}
	opts := report.HTMLOptions{Crash: crashes}
	opts.Explain(defs) // compare --why's line and table under each headline that changed
	if len(args) == 0 {
		var buf bytes.Buffer
		if err := report.HTML(&buf, nil, 0, opts); err != nil {
			return err
		}
		if err := archive.WriteFile(out, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d crash runs)\n", out, len(crashes))
		return nil
	}
	if groups, ok, err := loadGroups(args); err != nil {
		return err
	} else if ok {
		return writeGroupReport(c, groups, base, out, opts)
	}
	runs, err := loadRuns(args)
	if err != nil {
		return err
	}
	baseIdx := 0
	if base != "" {
		baseIdx = -1
		for i, r := range runs {
			if filepath.Clean(r.Path) == filepath.Clean(base) || r.Meta.Name == base {
				baseIdx = i
				break
			}
		}
		if baseIdx < 0 { // a base that is not among the RUNs is compared with them too
			b, err := loadRuns([]string{base})
			if err != nil {
				return err
			}
			runs, baseIdx = append(b, runs...), 0
		}
	}
	var buf bytes.Buffer
	if err := report.HTML(&buf, runs, baseIdx, opts); err != nil {
		return err
	}
	if err := archive.WriteFile(out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d runs, base %s)\n", out, len(runs), runs[baseIdx].Meta.Name)
	return nil
}

// writeGroupReport writes the HTML report of run groups; base names the base group (its
// directory or name), the first when empty.
func writeGroupReport(c *cobra.Command, groups []report.Group, base, out string, opts report.HTMLOptions) error {
	baseIdx := 0
	if base != "" {
		baseIdx = -1
		for i, g := range groups {
			if filepath.Clean(g.Path) == filepath.Clean(base) || g.Meta.Name == base {
				baseIdx = i
			}
		}
		if baseIdx < 0 {
			return fmt.Errorf("--base %s is not one of the run groups given", base)
		}
	}
	var buf bytes.Buffer
	if err := report.HTMLGroups(&buf, groups, baseIdx, opts); err != nil {
		return err
	}
	if err := archive.WriteFile(out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d run groups, base %s)\n", out, len(groups), groups[baseIdx].Path)
	return nil
}

// crashRuns takes the crash runs (directories with crash.json, from dbperf crash) out of args
// and reads them with the crash package, as 'dbperf crash summary' does.
func crashRuns(args []string) (rest []string, runs []report.CrashRun, err error) {
	var dirs []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, "crash.json")); err == nil {
			dirs = append(dirs, a)
		} else if errors.Is(err, fs.ErrNotExist) {
			rest = append(rest, a)
		} else {
			return nil, nil, err
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		f, err := crash.Load(d)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", d, err)
		}
		s := f.Summary
		settings := f.Settings
		if len(settings) == 0 {
			settings = f.Config.Settings
		}
		var kv []string
		for k, v := range settings {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		kill := f.Config.Kill
		if f.Config.DirSync == "file" {
			kill += " (file fsync keeps creation)"
		}
		runs = append(runs, report.CrashRun{Name: filepath.Base(filepath.Clean(d)), Target: f.Config.Kind, Settings: strings.Join(kv, ", "),
			Kill: kill, Crashes: s.Crashes, CommitsPerSec: s.CommitsPerSec, LostMin: s.LostMin, LostMedian: s.LostMedian,
			LostMax: s.LostMax, Suffix: s.Suffix, Holes: s.Holes, InFlight: s.InFlight, Corrupt: s.Corrupt, Dup: s.Duplicates,
			FailedRecoveries: s.FailedRecoveries, RecoveryMSMedian: s.RecoveryMSMedian, LongestWindowMS: s.LongestWindowMS,
			Verdict: s.Verdict, Broken: s.Broken})
	}
	return rest, runs, nil
}

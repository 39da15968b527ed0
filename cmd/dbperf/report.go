package main

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

func reportCmd() *cobra.Command {
	var out, base string
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
type; a step too short for charts over time gets a note instead. docs/reports.md describes it.

Given run groups (--repeat N), the page has every run of every group, named group/rep-N, and
first a section of the groups: medians, 95% intervals and the comparison with the base group
(--base, a group directory or name; default the first), as 'dbperf compare' of groups shows it
(docs/repeats.md).`,
		Example: "  dbperf report runs/a runs/b -o report.html\n  dbperf report runs/* --base runs/pg-15 -o pg.html",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if groups, ok, err := loadGroups(args); err != nil {
				return err
			} else if ok {
				return writeGroupReport(c, groups, base, out)
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
			if err := report.HTML(&buf, runs, baseIdx); err != nil {
				return err
			}
			if err := archive.WriteFile(out, buf.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d runs, base %s)\n", out, len(runs), runs[baseIdx].Meta.Name)
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "report.html", "the HTML file to write")
	c.Flags().StringVar(&base, "base", "", "the run the others are compared with (a RUN directory or a run's name; default the first RUN)")
	return c
}

// writeGroupReport writes the HTML report of run groups; base names the base group (its
// directory or name), the first when empty.
func writeGroupReport(c *cobra.Command, groups []report.Group, base, out string) error {
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
	if err := report.HTMLGroups(&buf, groups, baseIdx); err != nil {
		return err
	}
	if err := archive.WriteFile(out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d run groups, base %s)\n", out, len(groups), groups[baseIdx].Path)
	return nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/spf13/cobra"
)

const compareLong = `compare reads run directories (it never runs anything) and prints one line per step of
the base run (in its order) and figure: the base's value, then for every other run its value
and its ratio to the base's. Figures: the workload's (the Insert Benchmark's ips, dps, qps, xps
rates; i_p99, q_p50, q_p99, q_p99.9 latencies in µs), then, when the step was monitored,
cpupq, rkbpq, wkbpi, dbms_cpupq, client_cpupq, rss, dbgb1, and the number of stalls
('dbperf summary --explain' and docs/reports.md say what each is).

A ratio outside 0.95-1.05 is marked by the figure's own direction: "+" when it is better than
the base's, "-" when worse (a higher rate is better; a higher latency, cost, size or stall
count is worse). Markdown puts marked ratios in bold; tsv leaves them plain. A "-" alone is a
figure the run does not have. A q step starts with its i_target line (achieved/target insert
rate, "!" below 95%); a run that missed its target has "n/c" (not comparable) instead of the
ratios of its query figures; when the base missed it, every run has "n/c" there and the base's
own query values are followed by "(n/c)".

Runs not made like the base are named first, with every setting that differs ("not like for
like: a vs b: rows 10000 vs 20000, ..."): workload settings, target kind and version, DBMS
settings, seed, steps, arrival and host. With --format tsv that line goes to stderr; --format
json puts it in "not_like_for_like" (docs/reports.md).

Given run groups (--repeat N), each figure's medians are compared, with Welch's t-test on the
logarithms of the runs' values (p) adjusted by Benjamini-Hochberg over every figure of the
compare (q): "+"/"-" only when q < 0.05, "~" after a ratio that may be noise. A legend follows
the table; docs/repeats.md explains the statistics.

--why explains each step whose main rate changed significantly (runs: by 5% or more and beyond
the noise of the steps' mean rates; groups: q < 0.05): one line naming the figures per op that
moved most, then a table top down: the rate, CPU, IO and context switches per op, then the
vital signs and every counter per op ranked by how much they changed (groups: "~" when inside
the repeats' spread; "=/s" when the counter's rate a second did not change, so per op it only
followed the main rate). --defs FILE ranks your own definitions too (docs/counters.md).`

const compareExample = `  dbperf compare --base runs/pg-15 runs/pg-16 runs/pg-17
  dbperf compare --base runs/pg-15 runs/pg-16 --format markdown > pg16.md
  dbperf compare --base runs/pg-15 runs/pg-16 --why --defs mine.conf
  dbperf compare --base runs/pg-15 runs/pg-16 --format json | jq '.rows[] | select(.runs[0].mark == "worse")'`

func compareCmd() *cobra.Command {
	var o compareOptions
	c := &cobra.Command{
		Use:     "compare --base RUN RUN...",
		Short:   "Each figure of each step relative to a base run, from run directories",
		Long:    compareLong,
		Example: compareExample,
		Args:    cobra.MinimumNArgs(1),
		RunE:    func(c *cobra.Command, args []string) error { return o.run(c.OutOrStdout(), c.ErrOrStderr(), args) },
	}
	c.Flags().StringVar(&o.base, "base", "", "the run directory the others are compared with (required)")
	c.Flags().StringVar(&o.format, "format", "text", formatHelp)
	c.Flags().BoolVar(&o.why, "why", false, "after the table, for each step whose main rate changed significantly (runs: by 5% or more and beyond the noise of the steps' means; groups: the group test): the figures per op that moved most (docs/counters.md)")
	c.Flags().StringArrayVar(&o.defFiles, "defs", nil, "with --why: a file of counter definitions ranked besides the vital signs (repeatable; docs/counters.md)")
	return c
}

// compareOptions are compare's flags.
type compareOptions struct {
	format, base string
	why          bool // --why: why.go
	defFiles     []string
}

// run compares the runs or run groups in args with the base, then explains the changes
// (--why); warnings about --defs go to stderr after the output.
func (o compareOptions) run(stdout, stderr io.Writer, args []string) error {
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return err
	}
	others, err := o.others(args)
	if err != nil {
		return err
	}
	defs, err := whyDefs(o.why, f, o.defFiles)
	if err != nil {
		return err
	}
	user, _ := userDefs(o.defFiles) // read without error by whyDefs
	check := &defCheck{defs: user}
	defer check.warn(stderr)
	if groups, ok, err := loadGroups(append([]string{o.base}, others...)); err != nil {
		return err
	} else if ok {
		if err := report.WriteGroupCompare(stdout, groups[0], groups[1:], f); err != nil || !o.why {
			return err
		}
		return whyGroups(stdout, groups, defs, check)
	}
	return o.compareRuns(stdout, stderr, others, f, defs, check)
}

// others are the runs in args compared with the base: the base compared with itself says
// nothing, and a glob may include it.
func (o compareOptions) others(args []string) ([]string, error) {
	if o.base == "" {
		return nil, errors.New("compare needs --base RUN: the run the others are compared with")
	}
	var others []string
	for _, a := range args {
		if filepath.Clean(a) != filepath.Clean(o.base) {
			others = append(others, a)
		}
	}
	if len(others) == 0 {
		return nil, errors.New("compare needs at least one RUN besides the base")
	}
	return others, nil
}

// compareRuns compares single runs (not groups) with the base, then explains the changes.
func (o compareOptions) compareRuns(stdout, stderr io.Writer, others []string, f report.Format, defs []*counters.Def, check *defCheck) error {
	b, err := loadRuns([]string{o.base})
	if err != nil {
		return err
	}
	runs, err := loadRuns(others)
	if err != nil {
		return err
	}
	if err := report.WriteCompare(stdout, stderr, b[0], runs, f); err != nil || !o.why {
		return err
	}
	return whyRuns(stdout, o.base, others, defs, check)
}

// whyDefs are the definitions --why ranks: the vital signs and the --defs files'. --why
// prints text, so it goes with the text and markdown formats only.
func whyDefs(why bool, f report.Format, files []string) ([]*counters.Def, error) {
	if !why {
		if len(files) > 0 {
			return nil, errors.New("--defs is read by --why: add --why, or drop --defs")
		}
		return nil, nil
	}
	if f == report.FormatJSON || f == report.FormatTSV {
		return nil, fmt.Errorf("--why prints text after the table: use --format text or markdown (got %s)", f)
	}
	user, err := userDefs(files)
	return append(counters.Vitals(), user...), err
}

// userDefs are the definitions of the --defs files, in order.
func userDefs(files []string) ([]*counters.Def, error) {
	var out []*counters.Def
	for _, file := range files {
		d, err := counters.ParseFile(file)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	return out, nil
}

// defCheck gathers the steps a command read, to warn after its output about --defs mistakes
// that would otherwise leave no trace (counters.DefWarnings).
type defCheck struct {
	defs  []*counters.Def
	steps []*counters.Step
}

func (d *defCheck) see(s *counters.Step) {
	if d != nil && len(d.defs) > 0 {
		d.steps = append(d.steps, s)
	}
}

func (d *defCheck) warn(w io.Writer) {
	for _, m := range counters.DefWarnings(d.defs, d.steps) {
		fmt.Fprintln(w, "warning: "+m)
	}
}

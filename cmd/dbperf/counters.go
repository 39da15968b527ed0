package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"text/tabwriter"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/spf13/cobra"
)

func countersCmd() *cobra.Command {
	var steps, defFiles []string
	var all, asJSON bool
	var match string
	c := &cobra.Command{
		Use:   "counters RUN",
		Short: "A step's DBMS counters: vital signs per op, then every counter as rate/s and per op",
		Long: `counters reads a run directory (it never runs anything) and prints, for each step (or
those of --step): the vital signs (the host's CPU, IO and context switches per op, then the
DBMS's curated signs), each with what it tells; then every DBMS counter that changed in the
step: a running total as its rate a second and its increase per op, a gauge as its mean,
smallest and largest value; then, for each stall the step had, the counters that moved most
in it against the step's median second.

"Per op" divides by the step's main op type (the one with the most units). --defs FILE adds
definitions (docs/counters.md: NAME = EXPRESSION  # what it tells, under [dbms] headings);
they apply to any archived run, and replace a shipped sign of the same name.`,
		Example: `  dbperf counters runs/pg15 --step qr100
  dbperf counters runs/pg15 --step l.i1 --match 'table.*' --all
  dbperf counters runs/pg15 --defs mine.conf --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			user, err := userDefs(defFiles)
			if err != nil {
				return err
			}
			if _, err := path.Match(match, ""); err != nil {
				return fmt.Errorf("--match %q: %v", match, err)
			}
			check := &defCheck{defs: user}
			defer check.warn(c.ErrOrStderr())
			return writeCounters(c.OutOrStdout(), args[0], steps, append(counters.Vitals(), user...),
				countersOptions{all: all, match: match, json: asJSON, check: check})
		},
	}
	c.Flags().StringSliceVar(&steps, "step", nil, "the steps to show (default: every step)")
	c.Flags().StringArrayVar(&defFiles, "defs", nil, "a file of definitions to evaluate besides the vital signs (repeatable)")
	c.Flags().BoolVar(&all, "all", false, "show counters that did not change too")
	c.Flags().StringVar(&match, "match", "*", "show only the counters whose names match this pattern (path.Match)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: per step its vital signs, counters and stalls")
	return c
}

type countersOptions struct {
	all, json bool
	match     string
	check     *defCheck // sees every step read, for --defs' warnings
}

// stepCounters is one step's explanation, as printed and as JSON.
type stepCounters struct {
	Step     string          `json:"step"`
	Seconds  float64         `json:"seconds"`
	MainOp   string          `json:"main_op,omitempty"`
	OpsRate  *float64        `json:"ops_per_sec,omitempty"`
	Vitals   []jsonFigure    `json:"vital_signs"`
	Counters []jsonFigure    `json:"counters"`
	Stalls   []stallCounters `json:"stalls,omitempty"`
}

type jsonFigure struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind,omitempty"`
	Value float64  `json:"value"` // a sign's value; a counter's rate/s; a gauge's mean
	PerOp *float64 `json:"per_op,omitempty"`
	Min   *float64 `json:"min,omitempty"`
	Max   *float64 `json:"max,omitempty"`
	Doc   string   `json:"doc,omitempty"`
}

type stallCounters struct {
	From  float64          `json:"from_sec"`
	To    float64          `json:"to_sec"`
	Moved []counters.Moved `json:"moved"`
}

func fin(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func writeCounters(out io.Writer, dir string, only []string, defs []*counters.Def, o countersOptions) error {
	meta, sums, err := archive.Read(dir)
	if err != nil {
		return err
	}
	var res []stepCounters
	for i, st := range meta.Steps {
		if len(only) > 0 && !contains(only, st.Name) {
			continue
		}
		s, err := counters.LoadStep(dir, meta, st.Name)
		if err != nil {
			return err
		}
		if len(s.TSec) < 2 {
			continue
		}
		o.check.see(s)
		w := s.Whole()
		sc := stepCounters{Step: st.Name, Seconds: s.Seconds(w), MainOp: s.MainOp, OpsRate: fin(s.OpsRate(w))}
		for _, f := range s.Defined(defs, w) {
			sc.Vitals = append(sc.Vitals, jsonFigure{Name: f.Name, Value: f.Value, Doc: f.Doc})
		}
		for _, f := range s.Counters(w, o.all) {
			if ok, _ := path.Match(o.match, f.Name); !ok {
				continue
			}
			jf := jsonFigure{Name: f.Name, Kind: f.Kind.String(), Value: f.Value, PerOp: fin(f.PerOp)}
			if f.Kind == archive.KindGauge {
				jf.Min, jf.Max = fin(f.Min), fin(f.Max)
			}
			sc.Counters = append(sc.Counters, jf)
		}
		if i < len(sums) {
			for _, win := range s.StallWindows(sums[i].Stalls) {
				sc.Stalls = append(sc.Stalls, stallCounters{From: s.TSec[win.From], To: s.TSec[win.To], Moved: s.Movers(win, 8, defs)})
			}
		}
		res = append(res, sc)
	}
	if len(only) > 0 && len(res) == 0 {
		return fmt.Errorf("%s has no counters for step %v", dir, only)
	}
	if o.json {
		e := json.NewEncoder(out)
		e.SetIndent("", "  ")
		return e.Encode(res)
	}
	for _, sc := range res {
		printStepCounters(out, dir, sc)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// num prints a figure with 4 significant digits, plainly (no exponent below a billion).
func num(v float64) string {
	if v == 0 || math.Abs(v) >= 1e4 && math.Abs(v) < 1e12 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if math.Abs(v) >= 1e12 || math.Abs(v) < 1e-4 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func printStepCounters(out io.Writer, dir string, sc stepCounters) {
	head := fmt.Sprintf("%s %s: %.1f s", dir, sc.Step, sc.Seconds)
	if sc.OpsRate != nil {
		head += fmt.Sprintf(", per op = per %s (%s/s)", sc.MainOp, num(*sc.OpsRate))
	}
	fmt.Fprintln(out, head)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "vital sign\tvalue\t\twhat it tells\t")
	for _, f := range sc.Vitals {
		fmt.Fprintf(tw, "%s\t%s\t\t%s\t\n", f.Name, num(f.Value), f.Doc)
	}
	tw.Flush()
	fmt.Fprintf(out, "\ncounters (%d)\n", len(sc.Counters))
	tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tkind\tper sec | mean\tper op | min..max\t")
	for _, f := range sc.Counters {
		extra := ""
		switch {
		case f.PerOp != nil:
			extra = num(*f.PerOp)
		case f.Min != nil && f.Max != nil:
			extra = num(*f.Min) + ".." + num(*f.Max)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", f.Name, f.Kind, num(f.Value), extra)
	}
	tw.Flush()
	for _, st := range sc.Stalls {
		fmt.Fprintf(out, "\nstall %.1f-%.1f s, counters that moved most against the step's median second:\n", st.From, st.To)
		tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "name\tin the stall\tmedian\t")
		for _, m := range st.Moved {
			unit := "/s"
			if m.Kind == archive.KindGauge {
				unit = ""
			}
			fmt.Fprintf(tw, "%s\t%s%s\t%s%s\t\n", m.Name, num(m.Window), unit, num(m.Median), unit)
		}
		tw.Flush()
	}
	fmt.Fprintln(out)
}

package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/report"
)

// compare --why: for each step of the base whose main op's rate changed significantly, the
// explanation internal/counters builds (counters.ExplainRuns, ExplainGroups): one line naming
// the figures per op that moved most, and a table beneath it, top down. Steps whose rate moved
// by compare's threshold but not significantly get their line alone, ending "not explained".

// whyRuns explains each run against the base, single runs.
func whyRuns(out io.Writer, base string, others []string, defs []*counters.Def, check *defCheck) error {
	bm, _, err := archive.Read(base)
	if err != nil {
		return err
	}
	for _, o := range others {
		om, _, err := archive.Read(o)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\nwhy %s differs from %s (steps whose main rate changed by %.0f%% or more and beyond the noise of the steps' means; under 9 s, of their seconds):\n",
			o, base, 100*counters.WhyThreshold)
		var whys []*counters.Why
		for _, st := range bm.Steps {
			bs, err1 := counters.LoadStep(base, bm, st.Name)
			rs, err2 := counters.LoadStep(o, om, st.Name)
			if err1 != nil || err2 != nil || len(bs.TSec) < 2 || len(rs.TSec) < 2 {
				continue
			}
			check.see(bs)
			check.see(rs)
			whys = append(whys, counters.ExplainRuns(bs, rs, defs))
		}
		printWhys(out, whys)
	}
	return nil
}

// whyGroups explains each group against the base group: a step's significance is the group
// compare's (Welch on logarithms, Benjamini-Hochberg over every figure: docs/repeats.md).
func whyGroups(out io.Writer, groups []report.Group, defs []*counters.Def, check *defCheck) error {
	base := groups[0]
	cmp := report.GroupCompare(base, groups[1:])
	if len(base.Runs) == 0 {
		return nil
	}
	for gi, g := range groups[1:] {
		fmt.Fprintf(out, "\nwhy %s differs from %s (steps whose main rate differs beyond the noise of the repeats: q < %.2g):\n",
			g.Path, base.Path, cmp.FDR)
		var whys []*counters.Why
		for _, st := range base.Runs[0].Meta.Steps {
			bs, err := groupSteps(base, st.Name)
			if err != nil {
				return err
			}
			rs, err := groupSteps(g, st.Name)
			if err != nil {
				return err
			}
			if len(bs) == 0 || len(rs) == 0 {
				continue
			}
			for _, s := range append(bs, rs...) {
				check.see(s)
			}
			significant, test := groupVerdict(cmp, base.Runs[0].Meta.Figures, st.Name, bs[0].MainOp, gi)
			whys = append(whys, counters.ExplainGroups(bs, rs, defs, significant, test))
		}
		printWhys(out, whys)
	}
	return nil
}

// groupSteps loads a step's counters from each repeat of a group that has them.
func groupSteps(g report.Group, step string) ([]*counters.Step, error) {
	var out []*counters.Step
	for _, r := range g.Runs {
		if !hasStep(r.Meta, step) {
			continue
		}
		s, err := counters.LoadStep(r.Path, r.Meta, step)
		if err != nil {
			return nil, err
		}
		if len(s.TSec) >= 2 {
			out = append(out, s)
		}
	}
	return out, nil
}

func hasStep(m archive.Run, step string) bool {
	for _, s := range m.Steps {
		if s.Name == step {
			return true
		}
	}
	return false
}

// groupVerdict is the group compare's verdict on the step's main rate: the row of the
// workload's rate column of the main op, group gi's cell.
func groupVerdict(cmp report.GroupCompareJSON, figs archive.Figures, step, op string, gi int) (bool, string) {
	col := ""
	for _, c := range figs.Columns {
		if c.Key == "" && c.Op == op && c.Stat == archive.StatPerSec && c.Compare {
			col = c.Name
			break
		}
	}
	for _, r := range cmp.Rows {
		if r.Step != step || r.Figure != col || gi >= len(r.Groups) {
			continue
		}
		c := r.Groups[gi]
		switch {
		case c.Mark == "not_comparable":
			return false, col + " not comparable"
		case c.Q == nil:
			return false, col + " not tested"
		}
		return c.Significant, fmt.Sprintf("%s q = %.3g", col, *c.Q)
	}
	return false, "no compare figure of the " + op + " rate"
}

// printWhys prints each significant step's line and table, and the line alone of a step
// whose rate moved by the threshold without being significant.
func printWhys(out io.Writer, whys []*counters.Why) {
	explained := 0
	for _, w := range whys {
		if w == nil {
			continue
		}
		if !w.Significant {
			if math.Abs(w.Ratio()-1) >= counters.WhyThreshold {
				fmt.Fprintln(out, w.Line())
			}
			continue
		}
		explained++
		printWhy(out, w)
	}
	if explained == 0 {
		fmt.Fprintln(out, "  no step's main rate changed significantly")
	}
}

// printWhy prints an explanation's line and its table; "~" marks a change within the
// repeats' spread, "=/s" a figure per op whose rate a second did not change (WhyRow.Steady).
func printWhy(out io.Writer, w *counters.Why) {
	fmt.Fprintln(out, w.Line())
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  figure\tbase\trun\tratio")
	for _, r := range w.Rows {
		mark := ""
		switch {
		case r.InNoise:
			mark = "~"
		case r.Steady:
			mark = " =/s"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s%s\n", r.Name, counters.Num(r.Base), counters.Num(r.Run), r.Ratio(), mark)
	}
	tw.Flush()
}

package report

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/stats"
)

// Group is a loaded run group: every repeat of one run.
type Group struct {
	Path string
	Meta archive.Group
	Runs []Run
}

// LoadGroups reads run groups; ok is false when none of paths is a group, and it fails when
// some are and some are not.
func LoadGroups(paths []string) (groups []Group, ok bool, err error) {
	var plain []string
	for _, p := range paths {
		g, isGroup, err := archive.ReadGroup(p)
		if err != nil {
			return nil, false, err
		}
		if !isGroup {
			plain = append(plain, p)
			continue
		}
		var dirs []string
		for _, r := range g.Runs {
			dirs = append(dirs, filepath.Join(p, r))
		}
		runs, err := Load(dirs)
		if err != nil {
			return nil, false, err
		}
		groups = append(groups, Group{Path: p, Meta: g, Runs: runs})
	}
	if len(groups) > 0 && len(plain) > 0 {
		return nil, false, fmt.Errorf("%s is a run group (--repeat) and %s a run directory: give one kind or the other", groups[0].Path, plain[0])
	}
	return groups, len(groups) > 0, nil
}

func groupName(g Group) string {
	if g.Meta.Name != "" {
		return g.Meta.Name
	}
	return g.Path
}

// values gathers a figure of a step over a group's runs: the runs that have it, and whether
// any run missed the step's gate.
func (g Group) values(step string, fig figure) (vals []float64, missed bool) {
	for _, r := range g.Runs {
		s, ok := findStep(r, step)
		if !ok {
			continue
		}
		if fig.gated && r.Meta.Figures.Gate.Failed(s) {
			missed = true
		}
		if v, ok := fig.value(s); ok {
			vals = append(vals, v)
		}
	}
	return vals, missed
}

// steps are the step names of a group's first run, in order.
func (g Group) steps() []string {
	var names []string
	if len(g.Runs) > 0 {
		for _, s := range g.Runs[0].Steps {
			names = append(names, s.Step)
		}
	}
	return names
}

func (g Group) allRuns() []Run { return g.Runs }

// GroupSummaryRow is a figure of a step of a group across its runs (stats explains the choice
// of statistics): the number of runs with the figure, its median, the 95% confidence interval of
// its mean (never below 0: no figure can be), its coefficient of variation and the values.
type GroupSummaryRow struct {
	Group    string            `json:"group"`
	Step     string            `json:"step"`
	Figure   string            `json:"figure"`
	Better   archive.Direction `json:"better"`
	N        int               `json:"n"`
	Median   float64           `json:"median"`
	Mean     float64           `json:"mean"`
	CI95Low  float64           `json:"ci95_low"`
	CI95High float64           `json:"ci95_high"`
	CVPct    float64           `json:"cv_pct"`
	Min      float64           `json:"min"`
	Max      float64           `json:"max"`
	Values   []float64         `json:"values"` // one per run that has the figure, in the group's order
	// GateMissed counts the runs whose step missed its gate: a gated figure of such a run
	// measured a lighter load than the others'.
	GateMissed int `json:"gate_missed,omitempty"`
	format     string
}

// GroupSummaryRows summarizes every figure of every step of each group.
func GroupSummaryRows(groups []Group) []GroupSummaryRow {
	var all []Run
	for _, g := range groups {
		all = append(all, g.allRuns()...)
	}
	figs := compareFigures(all)
	rows := []GroupSummaryRow{}
	for _, g := range groups {
		for _, step := range g.steps() {
			for _, fig := range figs {
				vals, _ := g.values(step, fig)
				if len(vals) == 0 {
					continue
				}
				s := stats.Summarize(vals)
				rows = append(rows, GroupSummaryRow{Group: groupName(g), Step: step, Figure: fig.name, Better: fig.better,
					N: s.N, Median: s.Median, Mean: s.Mean, CI95Low: s.CILow, CI95High: s.CIHigh, CVPct: 100 * s.CV,
					Min: s.Min, Max: s.Max, Values: s.Values, GateMissed: g.missedRuns(step, fig), format: fig.format})
			}
		}
	}
	return rows
}

// missedRuns counts the runs of a group whose step missed its gate, for a gated figure.
func (g Group) missedRuns(step string, fig figure) int {
	n := 0
	for _, r := range g.Runs {
		if s, ok := findStep(r, step); ok && fig.gated && r.Meta.Figures.Gate.Failed(s) {
			n++
		}
	}
	return n
}

// GroupSummaryTable is GroupSummaryRows as a table: group, step, figure, n, median, the 95%
// interval and the CV in percent. A median whose runs missed the step's gate is marked not
// comparable.
func GroupSummaryTable(groups []Group) Table {
	t := Table{Header: []string{"group", "step", "figure", "n", "median", "ci95_low", "ci95_high", "cv_pct"}}
	for _, r := range GroupSummaryRows(groups) {
		t.Rows = append(t.Rows, []string{r.Group, r.Step, r.Figure, fmt.Sprint(r.N), fmt.Sprintf(r.format, r.Median),
			fmt.Sprintf(r.format, r.CI95Low), fmt.Sprintf(r.format, r.CI95High), fmt.Sprintf("%.1f", r.CVPct)})
		m := MarkNone
		if r.GateMissed > 0 {
			m = MarkNotComparable
		}
		t.Marks = append(t.Marks, []Mark{MarkNone, MarkNone, MarkNone, MarkNone, m})
	}
	return t
}

// GroupExplainRows say what the group summary's own columns mean, in ExplainTable's shape; the
// figures are the runs' (ExplainTable of the groups' runs).
var GroupExplainRows = [][]string{
	{"n", "group", "-", "runs of the group that have the figure for the step"},
	{"median", "group", "-", "the middle of the runs' values (the mean of the two middle ones for an even n): robust to one odd run"},
	{"ci95_low, ci95_high", "group", "-", "95% confidence interval of the mean: Student's t on the logarithms (the geometric mean's), or on the values, cut at 0, when a run is 0"},
	{"cv_pct", "group", "lower", "coefficient of variation: the runs' standard deviation / their mean, in %: the noise of the figure"},
}

// GroupCompareRow is a figure of a step compared between groups and a base group.
type GroupCompareRow struct {
	Step   string             `json:"step"`
	Figure string             `json:"figure"`
	Better archive.Direction  `json:"better"`
	Base   GroupBaseCell      `json:"base"`
	Groups []GroupCompareCell `json:"groups"`
	format string
}

// GroupBaseCell is the base group's figure in a GroupCompareRow.
type GroupBaseCell struct {
	Group  string  `json:"group"`
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Mark   string  `json:"mark,omitempty"` // "not_comparable" when a base run missed the step's gate
	mark   Mark
}

// GroupCompareCell is a group's figure in a GroupCompareRow.
type GroupCompareCell struct {
	Group  string   `json:"group"`
	N      int      `json:"n"`
	Median *float64 `json:"median"` // null: no run of the group has the figure
	// Ratio is the group's median / the base's; null when there is none to show (a missing
	// figure, a base of 0 while the group's is not: RatioText "inf", or not comparable).
	Ratio     *float64 `json:"ratio,omitempty"`
	RatioText string   `json:"ratio_text,omitempty"`
	// P is Welch's t-test on the logarithms of the runs' values, this figure alone; Q is P
	// adjusted by Benjamini-Hochberg over every figure tested in the compare. Both null when
	// there is no test (fewer than 2 runs on a side, a run of 0, not comparable).
	P           *float64 `json:"p,omitempty"`
	Q           *float64 `json:"q,omitempty"`
	Significant bool     `json:"significant"` // Q < stats.FDR
	// Mark is "better" or "worse" for a significant difference, by the figure's direction;
	// "not_comparable" when the base or the group missed the step's gate in some run.
	Mark   string `json:"mark,omitempty"`
	mark   Mark
	d      stats.Difference
	better archive.Direction
}

// GroupCompareJSON is the comparison of run groups with a base group.
type GroupCompareJSON struct {
	Base   string   `json:"base"`
	Groups []string `json:"groups"`
	// FDR is the false discovery rate kept over the Tested figures (Benjamini-Hochberg).
	FDR    float64           `json:"fdr"`
	Tested int               `json:"tested"`
	Rows   []GroupCompareRow `json:"rows"`
}

// GroupCompare compares run groups with a base group, figure by figure, per step of the base:
// medians, their ratio, and Welch's p-value, adjusted by Benjamini-Hochberg over every figure
// tested in this one compare, so that among the differences called significant at most
// stats.FDR are expected to be noise (two identical groups otherwise showed some at p < 0.05).
// A figure whose step missed its gate in any run of the base or the group is not comparable.
func GroupCompare(base Group, groups []Group) GroupCompareJSON {
	out := GroupCompareJSON{Base: groupName(base), FDR: stats.FDR, Rows: []GroupCompareRow{}}
	all := base.allRuns()
	for _, g := range groups {
		out.Groups = append(out.Groups, groupName(g))
		all = append(all, g.allRuns()...)
	}
	var tested []*GroupCompareCell
	for _, step := range base.steps() {
		for _, fig := range compareFigures(all) {
			bv, bMissed := base.values(step, fig)
			if len(bv) == 0 {
				continue
			}
			bm := stats.Summarize(bv).Median
			row := GroupCompareRow{Step: step, Figure: fig.name, Better: fig.better, format: fig.format,
				Base: GroupBaseCell{Group: groupName(base), N: len(bv), Median: bm}}
			if bMissed {
				row.Base.mark, row.Base.Mark = MarkNotComparable, markNames[MarkNotComparable]
			}
			for _, g := range groups {
				row.Groups = append(row.Groups, groupCell(g, step, fig, bv, bMissed))
			}
			out.Rows = append(out.Rows, row)
		}
	}
	for i := range out.Rows {
		for j := range out.Rows[i].Groups {
			if c := &out.Rows[i].Groups[j]; c.P != nil {
				tested = append(tested, c)
			}
		}
	}
	p := make([]float64, len(tested))
	for i, c := range tested {
		p[i] = *c.P
	}
	for i, q := range stats.BenjaminiHochberg(p) {
		c := tested[i]
		c.Q, c.Significant = &q, q < stats.FDR
		c.mark = significanceMark(c.d, c.Significant, c.better)
		c.Mark = markNames[c.mark]
	}
	out.Tested = len(tested)
	return out
}

// groupCell is a group's cell of a figure, before the adjustment of the p-values.
func groupCell(g Group, step string, fig figure, bv []float64, bMissed bool) GroupCompareCell {
	c := GroupCompareCell{Group: groupName(g), RatioText: "-", better: fig.better}
	v, missed := g.values(step, fig)
	if len(v) == 0 {
		return c
	}
	m := stats.Summarize(v).Median
	c.N, c.Median = len(v), &m
	if bMissed || missed {
		c.RatioText, c.mark, c.Mark = NotComparable, MarkNotComparable, markNames[MarkNotComparable]
		return c
	}
	c.d = stats.Compare(bv, v)
	c.RatioText = fmt.Sprintf("%.2f", c.d.Ratio)
	if r := c.d.Ratio; math.IsInf(r, 1) {
		c.RatioText = "inf"
	} else {
		c.Ratio = &r
	}
	if c.d.Tested {
		p := c.d.P
		c.P = &p
	}
	return c
}

// significanceMark marks a significant difference better or worse by the figure's direction:
// by ratio() outside ±5%, and within it still by which way it went.
func significanceMark(d stats.Difference, significant bool, better archive.Direction) Mark {
	if !significant {
		return MarkNone
	}
	_, m := ratio(d.Ratio, 1, better)
	if m == MarkNone {
		m = MarkBetter
		if (d.Ratio < 1) == (better == archive.HigherIsBetter) {
			m = MarkWorse
		}
	}
	return m
}

// GroupCompareTable is GroupCompare as a table: step, figure, the base's median, then per group
// its median, the ratio of medians, p and q. A ratio is marked better or worse only when its
// difference is significant (q < stats.FDR); otherwise "~" follows it. "-" is no test.
func GroupCompareTable(base Group, groups []Group) Table {
	return groupCompareTable(GroupCompare(base, groups))
}

func groupCompareTable(cmp GroupCompareJSON) Table {
	t := Table{Header: []string{"step", "figure", cmp.Base}}
	for _, g := range cmp.Groups {
		t.Header = append(t.Header, g, "ratio", "p", "q")
	}
	num := func(p *float64, format string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf(format, *p)
	}
	for _, r := range cmp.Rows {
		row := []string{r.Step, r.Figure, fmt.Sprintf(r.format, r.Base.Median)}
		marks := []Mark{MarkNone, MarkNone, r.Base.mark}
		for _, c := range r.Groups {
			ratio := c.RatioText
			if c.Median != nil && c.mark != MarkNotComparable && !c.Significant {
				ratio += "~"
			}
			row = append(row, num(c.Median, r.format), ratio, num(c.P, "%.3f"), num(c.Q, "%.3f"))
			marks = append(marks, MarkNone, c.mark, MarkNone, MarkNone)
		}
		t.Rows = append(t.Rows, row)
		t.Marks = append(t.Marks, marks)
	}
	return t
}

// GroupExplainNote precedes the legend of a group summary's columns.
const GroupExplainNote = `A run group (--repeat N) has one row per group, step and figure, over the runs that have the
figure; the figures are those below, the group's columns are "group" in the "shown" column
(docs/repeats.md).`

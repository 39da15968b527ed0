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

// GroupSummaryTable has one row per group, step and figure: the number of runs with the
// figure, its median, the 95% confidence interval of its mean and its coefficient of variation
// (stats explains the choice).
func GroupSummaryTable(groups []Group) Table {
	t := Table{Header: []string{"group", "step", "figure", "n", "median", "ci95_low", "ci95_high", "cv_pct"}}
	var all []Run
	for _, g := range groups {
		all = append(all, g.allRuns()...)
	}
	figs := compareFigures(all)
	for _, g := range groups {
		for _, step := range g.steps() {
			for _, fig := range figs {
				vals, _ := g.values(step, fig)
				if len(vals) == 0 {
					continue
				}
				s := stats.Summarize(vals)
				t.Rows = append(t.Rows, []string{groupName(g), step, fig.name, fmt.Sprint(s.N),
					fmt.Sprintf(fig.format, s.Median), fmt.Sprintf(fig.format, s.CILow), fmt.Sprintf(fig.format, s.CIHigh), fmt.Sprintf("%.1f", 100*s.CV)})
			}
		}
	}
	return t
}

// GroupCompareTable compares run groups with a base group, figure by figure: per step of the
// base and figure, the base's median, then per group its median, the ratio of medians and the
// p-value of the difference. A ratio is marked better or worse (by the figure's direction) only
// when the difference is significant (stats.Alpha); otherwise it is followed by "~": no
// significant difference. A figure whose step missed its gate in any run is not comparable.
func GroupCompareTable(base Group, groups []Group) Table {
	t := Table{Header: []string{"step", "figure", groupName(base)}}
	for _, g := range groups {
		t.Header = append(t.Header, groupName(g), "ratio", "p")
	}
	all := base.allRuns()
	for _, g := range groups {
		all = append(all, g.allRuns()...)
	}
	for _, step := range base.steps() {
		for _, fig := range compareFigures(all) {
			bv, bMissed := base.values(step, fig)
			if len(bv) == 0 {
				continue
			}
			row := []string{step, fig.name, fmt.Sprintf(fig.format, stats.Summarize(bv).Median)}
			marks := []Mark{MarkNone, MarkNone, MarkNone}
			if bMissed {
				marks[2] = MarkNotComparable
			}
			for _, g := range groups {
				v, missed := g.values(step, fig)
				if len(v) == 0 {
					row = append(row, "-", "-", "-")
					marks = append(marks, MarkNone, MarkNone, MarkNone)
					continue
				}
				d := stats.Compare(bv, v)
				row = append(row, fmt.Sprintf(fig.format, stats.Summarize(v).Median))
				marks = append(marks, MarkNone)
				switch {
				case bMissed || missed:
					row = append(row, NotComparable, "")
					marks = append(marks, MarkNotComparable, MarkNone)
					continue
				case math.IsInf(d.Ratio, 1):
					row = append(row, "inf")
				default:
					row = append(row, fmt.Sprintf("%.2f", d.Ratio))
				}
				m := MarkNone
				if d.Significant {
					_, m = ratio(d.Ratio, 1, fig.better)
					if m == MarkNone { // significant but within ±5%: still say which way
						m = MarkBetter
						if (d.Ratio < 1) == (fig.better == archive.HigherIsBetter) {
							m = MarkWorse
						}
					}
				} else {
					row[len(row)-1] += "~"
				}
				marks = append(marks, m)
				row = append(row, fmt.Sprintf("%.3f", d.P))
				marks = append(marks, MarkNone)
			}
			t.Rows = append(t.Rows, row)
			t.Marks = append(t.Marks, marks)
		}
	}
	return t
}

package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/measure"
)

// The report's first screen: a headline per step (its main figure in each run, what changed
// beyond compare's threshold, the one-line explanation of compare --why) and the overview
// chart, each run's main rate a second over every step, so that the story is told before any
// table.

// HTMLOptions are what the page shows beyond the runs' own files.
type HTMLOptions struct {
	// Why explains why a run's step differs from the base's (compare --why's line and table:
	// Explain sets it); nil when it has nothing to say. Nil: no explanations.
	Why func(base, run Run, step string) *counters.Why
	// WhyGroup is Why for run groups, given the group compare's verdict on the main figure
	// (significant, and its test: "qps q = 0.002"); asked only for a significant change.
	WhyGroup func(base, group Group, step string, significant bool, test string) *counters.Why
	// Crash are crash runs (dbperf crash) for the page's section of lost commits.
	Crash []CrashRun
}

// headlineChanged is how many changed figures a headline names; the others are counted.
const headlineChanged = 4

// singleChanged labels single runs' changed figures: beyond compare's mark, not tested.
const singleChanged = "moved 5% or more (one run each: not tested)"

// htmlHeadline is a step's line on the first screen.
type htmlHeadline struct {
	Step, Anchor string
	Figure       string // the main figure's name ("ips"), with its unit when it has no column
	Values       []htmlHeadValue
	Changed      []htmlCell // the other figures that changed, run by run: "run-b i_p99 1.80"
	// ChangedLabel says how Changed was chosen: single runs by compare's 5% mark alone (no
	// test: one run a side has no noise to judge a latency or a cost by), groups by the test.
	ChangedLabel string
	More         int       // changed figures not named
	Why          []string  // per run compared, compare --why's line
	Tables       []htmlWhy // per run explained (a significant change), compare --why's table
}

// htmlHeadValue is a run's main figure: its value and its ratio to the base's.
type htmlHeadValue struct {
	Run, Color, Text, Ratio, Class string
	Named                          bool // the name is shown (a group's: no chip in the header)
}

// mainOp is the op type with the most units in a step (what per-op figures divide by), ties
// going to the one declared first.
func mainOp(s archive.Step, f archive.Figures) string {
	best, op := int64(-1), ""
	place := func(n string) int {
		for i, o := range f.Ops {
			if o.Name == n {
				return i
			}
		}
		return len(f.Ops)
	}
	for n, o := range s.Ops {
		if o.Count > best || o.Count == best && place(n) < place(op) {
			best, op = o.Count, n
		}
	}
	return op
}

// mainFigure is a step's main figure: the workload's rate column of its main op type in the
// base (or the first run that has the step), else that op type's rate.
func mainFigure(runs []Run, base int, step string) (name string, better archive.Direction, value func(archive.Step) (float64, bool)) {
	order := append([]int{base}, seqExcept(len(runs), base)...)
	op := ""
	for _, i := range order {
		if s, ok := findStep(runs[i], step); ok {
			if op = mainOp(s, runs[i].Meta.Figures); op != "" {
				break
			}
		}
	}
	if op == "" {
		return "", "", nil
	}
	for _, c := range workloadColumns(runs, func(c archive.Column) bool { return c.Key == "" }) {
		if c.Op == op && c.Stat == archive.StatPerSec {
			return c.Name, c.Better, c.Value
		}
	}
	return op + "/s", archive.HigherIsBetter, func(s archive.Step) (float64, bool) {
		o, ok := s.Ops[op]
		return o.PerSec, ok
	}
}

func seqExcept(n, skip int) []int {
	var out []int
	for i := range n {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

// headlines are the steps' headlines of single runs: the main figure against the base's,
// the rows of compare that changed, and compare --why's line for each run whose main figure
// changed.
func headlines(runs []Run, names []string, base int, steps []htmlStep, why func(base, run Run, step string) *counters.Why) []htmlHeadline {
	others := make([]Run, 0, len(runs))
	for _, i := range seqExcept(len(runs), base) {
		others = append(others, runs[i])
	}
	rows := CompareRows(runs[base], others)
	var out []htmlHeadline
	for _, st := range steps {
		fig, better, value := mainFigure(runs, base, st.Name)
		h := htmlHeadline{Step: st.Name, Anchor: st.Anchor, Figure: fig, ChangedLabel: singleChanged}
		if value == nil {
			out = append(out, h)
			continue
		}
		bs, bok := findStep(runs[base], st.Name)
		bv, bok2 := value(bs)
		var cmpRow *CompareRow // the main figure's row of compare, whose ratios know the gates
		for i := range rows {
			if rows[i].Step == st.Name && rows[i].Figure == fig && !rows[i].Gate {
				cmpRow = &rows[i]
			}
		}
		for j, ri := range append([]int{base}, seqExcept(len(runs), base)...) {
			hv := htmlHeadValue{Run: names[ri], Color: htmlColor(ri), Text: "-"}
			s, ok := findStep(runs[ri], st.Name)
			v, vok := 0.0, false
			if ok {
				v, vok = value(s)
			}
			if vok {
				hv.Text = headNum(v)
			}
			if vok && j > 0 && bok && bok2 {
				text, m := ratio(v, bv, better)
				if cmpRow != nil {
					text, m = cmpRow.Runs[j-1].RatioText, cmpRow.Runs[j-1].ratioMark
				}
				hv.Ratio, hv.Class = text+"×", htmlMarkClass(m)
				if m == MarkNotComparable {
					hv.Ratio = text
				}
				if (m == MarkBetter || m == MarkWorse) && why != nil {
					h.addWhy(names[ri], htmlColor(ri), names[base], why(runs[base], runs[ri], st.Name))
				}
			}
			h.Values = append(h.Values, hv)
		}
		for _, row := range rows {
			if row.Step != st.Name || row.Figure == fig || row.Gate {
				continue
			}
			for j, c := range row.Runs {
				if c.Mark == "" {
					continue
				}
				if len(h.Changed) == headlineChanged {
					h.More++
					continue
				}
				ri := seqExcept(len(runs), base)[j]
				text := row.Figure + " " + c.RatioText
				if c.RatioText == "inf" && c.Value != nil { // from a base of 0: no ratio says how far
					text = row.Figure + " 0 → " + headNum(*c.Value)
				}
				if len(runs) > 2 {
					text = names[ri] + " " + text
				}
				h.Changed = append(h.Changed, htmlCell{Text: text, Class: htmlMarkClass(c.ratioMark), Title: markNames[c.ratioMark]})
			}
		}
		out = append(out, h)
	}
	return out
}

// groupHeadlines are the steps' headlines of run groups: each group's median of the main
// figure and the figures whose difference from the base group is significant (q < FDR).
// groups are in cmp's order (the base first), colors their first runs'.
func groupHeadlines(cmp GroupCompareJSON, groups []Group, colors []string, steps []htmlStep,
	why func(base, group Group, step string, significant bool, test string) *counters.Why) []htmlHeadline {
	var runs []Run
	for _, g := range groups {
		runs = append(runs, g.Runs...)
	}
	var out []htmlHeadline
	for _, st := range steps {
		h := htmlHeadline{Step: st.Name, Anchor: st.Anchor, ChangedLabel: fmt.Sprintf("changed significantly (q < %.2g)", cmp.FDR)}
		fig, _, _ := mainFigure(runs, 0, st.Name)
		h.Figure = fig + " (median)"
		for _, row := range cmp.Rows {
			if row.Step != st.Name {
				continue
			}
			if row.Figure == fig {
				h.Values = append(h.Values, htmlHeadValue{Run: cmp.Base, Color: colors[0], Text: headNum(row.Base.Median), Named: true})
				for gi, c := range row.Groups {
					hv := htmlHeadValue{Run: c.Group, Color: colors[gi+1], Text: "-", Named: true}
					if c.Median != nil {
						hv.Text = headNum(*c.Median)
						hv.Ratio, hv.Class = c.RatioText+"×", htmlMarkClass(c.mark)
						if !c.Significant && c.mark != MarkNotComparable {
							hv.Ratio += " ~"
						}
						if c.Significant && c.Q != nil && why != nil {
							h.addWhy(c.Group, colors[gi+1], cmp.Base, why(groups[0], groups[gi+1], st.Name, true, fmt.Sprintf("%s q = %.3g", fig, *c.Q)))
						}
					}
					h.Values = append(h.Values, hv)
				}
				continue
			}
			for _, c := range row.Groups {
				if !c.Significant && c.mark != MarkNotComparable {
					continue
				}
				if len(h.Changed) == headlineChanged {
					h.More++
					continue
				}
				text := row.Figure + " " + c.RatioText
				if len(row.Groups) > 1 {
					text = c.Group + " " + text
				}
				h.Changed = append(h.Changed, htmlCell{Text: text, Class: htmlMarkClass(c.mark), Title: markNames[c.mark]})
			}
		}
		out = append(out, h)
	}
	return out
}

// headNum prints a headline's figure with three significant digits: 12.3k, 1.23M, 456.
func headNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

// stepPatterns are the insert patterns the runs declare for a step, index by index
// ("pk=(nAsc:1, nRHS:1) · k1=(inf)"); "" when none is declared. Tables that share their
// indexes' patterns are not repeated: the first run's declaration is shown.
func stepPatterns(runs []Run, step string) string {
	for _, r := range runs {
		ps := r.Meta.Figures.StepPatterns(step)
		if len(ps) == 0 {
			continue
		}
		var parts []string
		seen := map[string]bool{}
		tables := map[string]bool{}
		for _, p := range ps {
			tables[p.Table] = true
		}
		for _, p := range ps {
			name := p.Index
			if len(tables) > 1 && !sameAcrossTables(ps, p) {
				name = p.Table + "." + p.Index
			}
			s := name + "=(" + p.Pattern + ")"
			if !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " · ")
	}
	return ""
}

// sameAcrossTables says whether every table's index of p's name has p's pattern.
func sameAcrossTables(ps []archive.InsertPattern, p archive.InsertPattern) bool {
	for _, q := range ps {
		if q.Index == p.Index && q.Pattern != p.Pattern {
			return false
		}
	}
	return true
}

// overviewPoints is about how many points a run's line of the overview has at most: its
// seconds are averaged into bins of a whole number of seconds.
const overviewPoints = 600

// overviewChart is the first screen's chart: each run's main op rate a second over all its
// steps, end to end on one axis (each step starting where the longest run of the step before
// ended), on a log scale since steps count different units. Bands name the steps. Rates are
// averaged into bins shared by all runs, so that a run's line breaks where it has no data (a
// step shorter than another run's, the end of a step) instead of joining across it.
func overviewChart(names []string, steps []string, files [][]*htmlStepFiles) *htmlChart {
	longest := make([]float64, len(steps))
	total := 0.0
	for si := range steps {
		for _, f := range files[si] {
			if f != nil && f.intervals != nil {
				for _, t := range f.intervals.cols["t_sec"] {
					if t != nil {
						longest[si] = math.Max(longest[si], *t)
					}
				}
			}
		}
		total += longest[si]
	}
	bin := math.Max(1, math.Ceil(total/overviewPoints))
	c := &htmlChart{ID: "overview", Kind: "overview", Title: "main rate per second, step after step",
		XLabel: "seconds, steps end to end", Scales: map[string]htmlScale{"rate": {Label: "main op per second (log)", Log: true, Side: 3}}}
	ys := make([][]*float64, len(names))
	offset := 0.0
	for si, step := range steps {
		if longest[si] == 0 {
			continue
		}
		n := int(math.Ceil(longest[si] / bin))
		for k := range n { // each bin at its middle, then a point of no data at the step's end
			c.X = append(c.X, measure.Round(offset+(float64(k)+0.5)*bin, 3))
		}
		c.X = append(c.X, measure.Round(offset+float64(n)*bin, 3))
		for ri := range names {
			ys[ri] = append(append(ys[ri], overviewBins(files[si][ri], n, bin)...), nil)
		}
		c.Bands = append(c.Bands, htmlBand{Name: step, From: offset, To: offset + float64(n)*bin})
		offset += float64(n) * bin
	}
	for ri, y := range ys {
		for _, v := range y {
			if v != nil {
				c.Series = append(c.Series, htmlSeries{Label: names[ri], What: "main rate", Run: ri, Scale: "rate"})
				c.Y = append(c.Y, y)
				break
			}
		}
	}
	if len(c.X) < 2 || len(c.Series) == 0 {
		return nil
	}
	return c
}

// overviewBins are a run's main rate in a step's n bins: the mean of the intervals ending in
// each (nil for none, or a rate of 0, which a log scale cannot show). A main op whose median
// latency is a second or more (l.x's index builds) counts its units in the interval it ends in:
// its seconds are gaps and one burst (Pebble's l.x drew 2.5M/s against SQLite's 400k, its
// mean rate half SQLite's), so the run's bins show the step's mean rate instead.
func overviewBins(f *htmlStepFiles, n int, bin float64) []*float64 {
	out := make([]*float64, n)
	if f == nil || f.intervals == nil {
		return out
	}
	op := mainOp(f.summary, f.figures)
	if o := f.summary.Ops[op]; o.P50Us >= 1e6 && o.PerSec > 0 {
		r := measure.Round(o.PerSec, 1)
		for k := 0; k < n && float64(k)*bin < f.summary.Seconds; k++ {
			out[k] = &r
		}
		return out
	}
	t, v := f.intervals.cols["t_sec"], f.intervals.cols[op+"_per_sec"]
	sum, cnt := make([]float64, n), make([]int, n)
	for i := range t {
		if t[i] == nil || i >= len(v) || v[i] == nil {
			continue
		}
		k := min(n-1, max(0, int(math.Floor((*t[i]-0.5)/bin)))) // by the middle of a second's interval
		sum[k], cnt[k] = sum[k]+*v[i], cnt[k]+1
	}
	for k := range out {
		if cnt[k] > 0 && sum[k] > 0 {
			m := measure.Round(sum[k]/float64(cnt[k]), 1)
			out[k] = &m
		}
	}
	return out
}

// htmlBand is a step's stretch of the overview's axis.
type htmlBand struct {
	Name string  `json:"name"`
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

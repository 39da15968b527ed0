package report

import (
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
)

// The report's explanations (docs/reports.md, "Explanations and stalls"): under each headline
// whose main figure changed significantly, and again in its step's section, the table of
// compare --why as internal/counters builds it (ExplainRuns, ExplainGroups: one ranking for
// both outputs); and per step, for every stall, the counters that moved most in it against
// the step's median second (summary.json's host.stall_counters, which the monitor ranks with
// counters.Movers; computed the same way for an archive written before it kept them).

// htmlWhy is one explanation's table: a run (or group) against the base.
type htmlWhy struct {
	Run, Color, Base string
	Line             string // the figures the line names, as the headline prints them
	Rows             []htmlWhyRow
}

// htmlWhyRow is a row of an explanation; Section is set on a section's first row only.
type htmlWhyRow struct {
	Section, Name, Base, Run, Ratio string
	Moved                           bool // the line names it
	InNoise                         bool // groups: within the repeats' spread
}

// whySections are the headings of an explanation's sections, top down.
var whySections = map[string]string{
	counters.SectionThroughput: "throughput",
	counters.SectionCPU:        "CPU per op (µs)",
	counters.SectionIO:         "IO per op",
	counters.SectionCS:         "context switches per op",
	counters.SectionDBMS:       "DBMS, ranked by change",
}

// whyTable is an explanation for the page; its line is what follows the main rate in
// Why.Line (the headline shows the rate itself).
func whyTable(run, color, base string, w *counters.Why) htmlWhy {
	_, line, _ := strings.Cut(w.Line(), "; ")
	out := htmlWhy{Run: run, Color: color, Base: base, Line: line}
	moved := map[string]bool{}
	for _, r := range w.Moved() {
		moved[r.Name] = true
	}
	last := ""
	for _, r := range w.Rows {
		row := htmlWhyRow{Name: r.Name, Base: counters.Num(r.Base), Run: counters.Num(r.Run), Ratio: r.Ratio(),
			Moved: moved[r.Name], InNoise: r.InNoise}
		if r.Section != last {
			row.Section, last = whySections[r.Section], r.Section
			if row.Section == "" {
				row.Section = r.Section
			}
		}
		switch {
		case r.InNoise:
			row.Ratio += " ~"
		case r.Steady:
			row.Ratio += " =/s" // its rate a second held: the per-op change is the main rate's
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// addWhy adds an explanation to a headline: its line and, when significant, its table;
// a change within the step's noise reads "not explained" with its test.
func (h *htmlHeadline) addWhy(run, color, base string, w *counters.Why) {
	if w == nil {
		return
	}
	if !w.Significant {
		h.Why = append(h.Why, run+": not explained ("+w.Test+")")
		return
	}
	t := whyTable(run, color, base, w)
	h.Why = append(h.Why, run+": "+t.Line)
	h.Tables = append(h.Tables, t)
}

// attachWhy puts each headline's tables in its step's section too.
func attachWhy(steps []htmlStep, hs []htmlHeadline) {
	for i := range steps {
		steps[i].Why = nil
		for _, h := range hs {
			if h.Anchor == steps[i].Anchor && h.Step == steps[i].Name {
				steps[i].Why = h.Tables
			}
		}
	}
}

// Explain sets o's Why and WhyGroup to compare --why's explanations (counters.ExplainRuns,
// ExplainGroups) of the runs' counters.csv.gz, ranking defs (the vital signs and the user's).
func (o *HTMLOptions) Explain(defs []*counters.Def) {
	o.Why = func(base, run Run, step string) *counters.Why {
		bs, rs := loadCounters(base, step), loadCounters(run, step)
		if bs == nil || rs == nil {
			return nil
		}
		return counters.ExplainRuns(bs, rs, defs)
	}
	o.WhyGroup = func(base, g Group, step string, significant bool, test string) *counters.Why {
		bs, rs := groupCounters(base, step), groupCounters(g, step)
		if len(bs) == 0 || len(rs) == 0 {
			return nil
		}
		return counters.ExplainGroups(bs, rs, defs, significant, test)
	}
}

// loadCounters is a run's step as counters reads it; nil without the step or two ticks.
func loadCounters(r Run, step string) *counters.Step {
	if _, ok := findStep(r, step); !ok {
		return nil
	}
	s, err := counters.LoadStep(r.Path, r.Meta, step)
	if err != nil || len(s.TSec) < 2 {
		return nil
	}
	return s
}

// groupCounters are the step of every repeat of a group that has it.
func groupCounters(g Group, step string) []*counters.Step {
	var out []*counters.Step
	for _, r := range g.Runs {
		if s := loadCounters(r, step); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// htmlStalls are a run's stalls in a step, each with the counters that moved most in it.
type htmlStalls struct {
	Run, Color string
	Stalls     []htmlStall // the first stallsShown
	More       []htmlStall // the others, folded
	Computed   bool        // not in summary.json: ranked here from counters.csv.gz
}

// htmlStall is one stall's window and its counters.
type htmlStall struct {
	Window string // "312-318 s"
	Rows   []htmlStallRow
}

// htmlStallRow is a counter in a stall: a running total's rate a second (a gauge's mean)
// in the stall and in the step's median second.
type htmlStallRow struct {
	Name, Stall, Median, Change string
	Gauge                       bool
}

// stallsShown is how many stalls a run's table shows unfolded; the others are folded.
const stallsShown = 3

// stallMoved is how many counters a stall computed here names, as the monitor's.
const stallMoved = 8

// stallTables are each run's stalls in the step with their counters: summary.json's, else
// ranked from the run's counters (cs, nil where it has none).
func stallTables(names []string, sums []*archive.Step, cs []*counters.Step) []htmlStalls {
	var out []htmlStalls
	for ri, sum := range sums {
		if sum == nil || sum.Stalls == nil || sum.Stalls.Count == 0 {
			continue
		}
		t := htmlStalls{Run: names[ri], Color: htmlColor(ri)}
		var from []archive.StallCounters
		if sum.Host != nil {
			from = sum.Host.StallCounters
		}
		if len(from) == 0 && cs[ri] != nil {
			from, t.Computed = movedInStalls(cs[ri], sum), true
		}
		for _, sc := range from {
			st := htmlStall{Window: fmt.Sprintf("%s-%s s", trimNum(sc.FromSec), trimNum(sc.ToSec))}
			for _, m := range sc.Moved {
				st.Rows = append(st.Rows, htmlStallRow{Name: m.Name, Stall: counters.Num(m.Stall), Median: counters.Num(m.Median),
					Change: stallChange(m), Gauge: m.Gauge})
			}
			t.Stalls = append(t.Stalls, st)
		}
		if len(t.Stalls) > stallsShown {
			t.Stalls, t.More = t.Stalls[:stallsShown], t.Stalls[stallsShown:]
		}
		if len(t.Stalls) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// movedInStalls ranks a step's stalls' counters as the monitor does (counters.Movers over
// each stall window, the vital signs' counters first among equals).
func movedInStalls(s *counters.Step, sum *archive.Step) []archive.StallCounters {
	defs := counters.Vitals()
	var out []archive.StallCounters
	for _, w := range s.StallWindows(sum.Stalls) {
		sc := archive.StallCounters{FromSec: s.TSec[w.From], ToSec: s.TSec[w.To]}
		for _, m := range s.Movers(w, stallMoved, defs) {
			sc.Moved = append(sc.Moved, archive.MovedCounter{Name: m.Name, Stall: m.Window, Median: m.Median, Gauge: m.Kind == archive.KindGauge})
		}
		out = append(out, sc)
	}
	return out
}

// stallChange is how a counter moved in a stall: a gauge's difference ("+312"), a running
// total's ratio as compare --why prints it ("9.1x", "from 0", "to 0").
func stallChange(m archive.MovedCounter) string {
	switch {
	case m.Gauge:
		d := m.Stall - m.Median
		if d >= 0 {
			return "+" + counters.Num(d)
		}
		return counters.Num(d)
	case m.Median == 0:
		return "from 0"
	case m.Stall == 0:
		return "to 0"
	}
	return fmt.Sprintf("%.3gx", m.Stall/m.Median)
}

// trimNum prints seconds with at most 3 decimals, trailing zeros dropped.
func trimNum(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

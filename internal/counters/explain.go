package counters

import (
	"math"
	"sort"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// Figure is one line of an explanation: a definition's value, or a counter's rate and
// increase per op (a running total) or its mean, smallest and largest value (a gauge).
type Figure struct {
	Name, Doc string
	Kind      archive.CounterKind // of a counter; KindUnknown for a definition
	Value     float64             // a definition's value, a running total's rate/s, a gauge's mean
	PerOp     float64             // a running total's increase per op
	Min, Max  float64             // a gauge's
}

// Defined evaluates the definitions that apply to the step over the window, in their order,
// leaving out the undefined ones.
func (s *Step) Defined(defs []*Def, w Window) []Figure {
	e := s.env(w, defs)
	var out []Figure
	for _, d := range s.Applicable(defs) {
		if v := e.variable(d.Name); !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, Figure{Name: d.Name, Doc: d.Doc, Value: v})
		}
	}
	return out
}

// Synthetic tells the counters dbperf added beside the DBMS's (op.*, host.*).
func Synthetic(name string) bool {
	return strings.HasPrefix(name, "op.") || strings.HasPrefix(name, "host.")
}

// Counters are the DBMS's counters over the window, by name: those that changed in it, or
// all known ones with all.
func (s *Step) Counters(w Window, all bool) []Figure {
	ops := s.OpsRate(w)
	var out []Figure
	for _, n := range s.Names {
		if Synthetic(n) {
			continue
		}
		f := Figure{Name: n, Kind: s.Kinds[n], PerOp: math.NaN()}
		if f.Kind == archive.KindGauge {
			f.Value, f.Min, f.Max = s.Gauge(n, w)
			if math.IsNaN(f.Value) || !all && f.Min == f.Max && s.same(n, w) {
				continue
			}
		} else {
			d, ok := s.Increase(n, w)
			if !ok || !all && d == 0 {
				continue
			}
			f.Value = s.Rate(n, w)
			if ops > 0 {
				f.PerOp = f.Value / ops
			}
		}
		out = append(out, f)
	}
	return out
}

// same: the gauge has one value over the window, its start included.
func (s *Step) same(n string, w Window) bool {
	v := s.Values[n]
	first := math.NaN()
	for j := max(w.From, 0); j <= w.To && j < len(v); j++ {
		if math.IsNaN(v[j]) {
			continue
		}
		if math.IsNaN(first) {
			first = v[j]
		} else if v[j] != first {
			return false
		}
	}
	return true
}

// Moved is a counter whose figure in a window differs from the step's typical interval:
// a running total's rate/s, a gauge's mean.
type Moved struct {
	Name   string              `json:"name"`
	Kind   archive.CounterKind `json:"-"`
	Window float64             `json:"window"`         // in the window (a DBMS's running total: to its Late end)
	Median float64             `json:"median"`         // the median over the step's intervals
	Score  float64             `json:"score"`          // |window - median| over the larger of the median, the median deviation and the step's mean
	Only   bool                `json:"only,omitempty"` // a running total that moved in the window alone (95% of its increase)
}

// minScore is how far a counter must move to be named: by more than half of its usual figure
// (a rate halved or grown by half), so that the noise of a steady counter is not named.
const minScore = 0.5

// Movers ranks the counters (the DBMS's and the host's) whose figure in w is far from the
// step's median interval, at most n: first the running totals that moved in w alone (an
// event: a checkpoint, a flush), the vital signs' first among them, then by how far they
// moved (scores equal to two digits: the vital signs' first). The DBMS's running totals are
// read over w widened by its publishing delay (Late): what it counted in w and published after.
func (s *Step) Movers(w Window, n int, defs []*Def) []Moved {
	vital := map[string]bool{}
	for _, d := range s.Applicable(defs) {
		for _, p := range Patterns(d.Expr) {
			for _, name := range s.match(p) {
				vital[name] = true
			}
		}
	}
	var out []Moved
	for _, name := range s.Names {
		if strings.HasPrefix(name, "op.") {
			continue
		}
		kind, cw := s.Kinds[name], w
		if kind != archive.KindGauge && !Synthetic(name) {
			cw = s.Late(w)
		}
		x := s.figure(name, cw)
		if math.IsNaN(x) {
			continue
		}
		b, ok := s.baseline(name)
		if !ok {
			continue
		}
		med, scale := b.median, b.scale
		if d := math.Abs(x - med); d/scale > minScore {
			out = append(out, Moved{Name: name, Kind: kind, Window: x, Median: med, Score: d / scale, Only: s.only(name, cw)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Only != b.Only {
			return a.Only
		}
		if a.Only && vital[a.Name] != vital[b.Name] { // moved only then: the vital signs' first
			return vital[a.Name]
		}
		sa, sb := measure.Round(a.Score, 2-digits(a.Score)), measure.Round(b.Score, 2-digits(b.Score))
		if sa != sb {
			return sa > sb
		}
		return vital[a.Name] && !vital[b.Name]
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// only: a running total that made 95% or more of its step's increase in the window.
func (s *Step) only(name string, w Window) bool {
	if s.Kinds[name] == archive.KindGauge {
		return false
	}
	in, ok1 := s.Increase(name, w)
	all, ok2 := s.Increase(name, s.Whole())
	return ok1 && ok2 && all > 0 && in >= 0.95*all
}

// figure is what Movers compares: a running total's rate a second, a gauge's mean.
func (s *Step) figure(name string, w Window) float64 {
	if s.Kinds[name] == archive.KindGauge {
		m, _, _ := s.Gauge(name, w)
		return m
	}
	return s.Rate(name, w)
}

// moveBase is a counter's typical second: the median of its figure over the step's intervals,
// and the scale a move is measured in (the largest of the median, the median deviation and
// the mean).
type moveBase struct{ median, scale float64 }

// baseline is a counter's moveBase, computed once a step (Movers runs once a stall); false
// when fewer than two intervals know it.
func (s *Step) baseline(name string) (moveBase, bool) {
	if b, ok := s.bases[name]; ok {
		return b, !math.IsNaN(b.median)
	}
	if s.bases == nil {
		s.bases = map[string]moveBase{}
	}
	var per []float64
	for k := 1; k < len(s.TSec); k++ {
		if v := s.figure(name, Window{k - 1, k}); !math.IsNaN(v) {
			per = append(per, v)
		}
	}
	b := moveBase{median: math.NaN()}
	if len(per) >= 2 {
		b.median = median(per)
		dev := make([]float64, len(per))
		mean := 0.0
		for i, v := range per {
			dev[i], mean = math.Abs(v-b.median), mean+v/float64(len(per))
		}
		b.scale = max(math.Abs(b.median), median(dev), math.Abs(mean), 1e-12)
	}
	s.bases[name] = b
	return b, !math.IsNaN(b.median)
}

func median(v []float64) float64 {
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	return measure.Percentile(c, 50)
}

// StallWindows are the windows of a step's stalls (consecutive stalled intervals, by their
// t_sec in summary.json), as tick windows of the step.
func (s *Step) StallWindows(st *measure.Stalls) []Window {
	if st == nil {
		return nil
	}
	tick := map[float64]int{}
	for i, t := range s.TSec {
		tick[measure.Round(t, 3)] = i
	}
	var out []Window
	for _, t := range st.At {
		i, ok := tick[measure.Round(t, 3)]
		if !ok || i == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].To == i-1 {
			out[n-1].To = i
			continue
		}
		out = append(out, Window{i - 1, i})
	}
	return out
}

// PublishDelay is how late the step's DBMS may publish what it counted, in seconds. It is the
// one place this rule lives. PostgreSQL's backends publish their statistics when a transaction
// ends, at most once a second (PGSTAT_MIN_INTERVAL in pgstat.c; docs/counters.md), so a
// second's work can first show in the next second's counters: 1 s. A step with pg_stat_database's
// counters (db.xact_commit) is PostgreSQL's, read back from its archive or in the monitor alike.
// Every other target's counters are read as they are counted (InnoDB's and MyRocks' status,
// the embedded engines' metrics): 0.
func (s *Step) PublishDelay() float64 {
	if _, ok := s.Values["db.xact_commit"]; ok {
		return 1
	}
	return 0
}

// tickSlack: a tick this much before a publishing delay's end still counts as the one after it
// (the runner's ticks are a second apart give or take milliseconds).
const tickSlack = 0.1

// Late is w with its end moved to the first tick at least PublishDelay after it (at most the
// step's last tick): the window in which what the DBMS counted during w has been published.
func (s *Step) Late(w Window) Window {
	d := s.PublishDelay()
	if d == 0 || w.To < 0 || w.To >= len(s.TSec) {
		return w
	}
	end := s.TSec[w.To] + d - tickSlack
	for w.To < len(s.TSec)-1 && s.TSec[w.To] < end {
		w.To++
	}
	return w
}

// digits is the number of digits before the point of v (1 for values below 10).
func digits(v float64) int {
	if v < 10 {
		return 1
	}
	return int(math.Floor(math.Log10(v))) + 1
}

package counters

import (
	"math"

	"github.com/dbperf/dbperf/internal/archive"
)

// Window is a span of a step's ticks: from tick From to tick To (the step: 0 to the last;
// interval k: k-1 to k).
type Window struct{ From, To int }

// Whole is the step's whole window.
func (s *Step) Whole() Window { return Window{0, len(s.TSec) - 1} }

// Seconds is the window's length.
func (s *Step) Seconds(w Window) float64 {
	if w.To <= w.From || w.To >= len(s.TSec) {
		return 0
	}
	return s.TSec[w.To] - s.TSec[w.From]
}

// Increase is a running total's increase over the window, from the first to the last tick
// it is known at. A value below the one before is a reset (a restarted server, a reopened
// engine, a server's counter that went back): that interval adds nothing, since what was
// counted across the reset is not known, and a guess could be off by the counter's whole
// size. False when fewer than two ticks are known.
func (s *Step) Increase(name string, w Window) (float64, bool) {
	d, _, ok := s.increase(name, w)
	return d, ok
}

// increase is Increase and the seconds between the first and last tick known.
func (s *Step) increase(name string, w Window) (sum, secs float64, ok bool) {
	v := s.Values[name]
	prev, first := math.NaN(), -1
	for j := max(w.From, 0); j <= w.To && j < len(v); j++ {
		if math.IsNaN(v[j]) {
			continue
		}
		if first < 0 {
			first = j
		}
		if !math.IsNaN(prev) {
			sum, ok = sum+max(v[j]-prev, 0), true
			secs = s.TSec[j] - s.TSec[first]
		}
		prev = v[j]
	}
	return sum, secs, ok
}

// Rate is a running total's increase per second over the ticks of the window it is known
// at; NaN when not known.
func (s *Step) Rate(name string, w Window) float64 {
	d, secs, ok := s.increase(name, w)
	if !ok || secs <= 0 {
		return math.NaN()
	}
	return d / secs
}

// Gauge is a gauge's mean, smallest and largest value at the window's ticks after its start
// (one interval: its end); NaN when none is known.
func (s *Step) Gauge(name string, w Window) (mean, lo, hi float64) {
	return s.gaugeOf([]string{name}, w)
}

func (s *Step) gaugeOf(names []string, w Window) (mean, lo, hi float64) {
	sum, n := 0.0, 0
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := max(w.From+1, 0); j <= w.To && j < len(s.TSec); j++ {
		tick, known := 0.0, false
		for _, name := range names {
			if v := s.Values[name][j]; !math.IsNaN(v) {
				tick, known = tick+v, true
			}
		}
		if !known {
			continue
		}
		sum, n = sum+tick, n+1
		lo, hi = min(lo, tick), max(hi, tick)
	}
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return sum / float64(n), lo, hi
}

// OpsRate is the main op's units per second over the window.
func (s *Step) OpsRate(w Window) float64 {
	if s.MainOp == "" {
		return math.NaN()
	}
	return s.Rate("op."+s.MainOp, w)
}

// env evaluates expressions over one window of a step.
type env struct {
	s     *Step
	w     Window
	defs  map[string]*Def
	cache map[string]float64
	busy  map[string]bool
}

func (s *Step) env(w Window, defs []*Def) *env {
	e := &env{s: s, w: w, defs: map[string]*Def{}, cache: map[string]float64{}, busy: map[string]bool{}}
	for _, d := range s.Applicable(defs) {
		e.defs[d.Name] = d
	}
	return e
}

// Eval is an expression's value over the window, with defs to refer to; NaN when undefined.
func (s *Step) Eval(x Expr, w Window, defs []*Def) float64 { return x.eval(s.env(w, defs)) }

func (e *env) variable(name string) float64 {
	switch name {
	case "ops":
		return e.s.OpsRate(e.w)
	case "seconds":
		return e.s.Seconds(e.w)
	}
	d, ok := e.defs[name]
	if !ok || e.busy[name] {
		return math.NaN()
	}
	if v, ok := e.cache[name]; ok {
		return v
	}
	e.busy[name] = true
	v := d.Expr.eval(e)
	e.busy[name] = false
	e.cache[name] = v
	return v
}

func (e *env) call(fn string, patterns []string) float64 {
	var names []string
	seen := map[string]bool{}
	for _, p := range patterns {
		for _, n := range e.s.match(p) {
			if !seen[n] { // a counter two patterns match counts once
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	switch fn {
	case "rate", "delta":
		sum, known := 0.0, false
		for _, n := range names {
			if e.s.Kinds[n] == archive.KindGauge {
				continue // a level has no rate
			}
			v := e.s.Rate(n, e.w)
			if fn == "delta" {
				var ok bool
				if v, ok = e.s.Increase(n, e.w); !ok {
					v = math.NaN()
				}
			}
			if !math.IsNaN(v) {
				sum, known = sum+v, true
			}
		}
		if !known {
			return math.NaN()
		}
		return sum
	}
	if len(names) == 0 {
		return math.NaN()
	}
	mean, lo, hi := e.s.gaugeOf(names, e.w)
	switch fn {
	case "max":
		return hi
	case "min":
		return lo
	}
	return mean
}

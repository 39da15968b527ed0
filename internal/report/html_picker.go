package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
)

// The report's counter picker: every DBMS counter of a step's counters.csv.gz that changed,
// embedded compactly, so that the page can chart any of them, a second or per op, on the step's
// time axis with its stalls shaded, offline (docs/reports.md). The page's script decodes them.
//
// Encoding, per run and step: "t" the ticks' t_sec as milliseconds, the first then the
// differences; "ops" the main op type's units in each interval; per counter a kind letter, a
// "|" and its values, one per interval: "c" a running total's increase in the interval, "g" a
// gauge's value at the interval's end, "d" the same for a gauge of whole numbers as the first
// value then differences. Values are comma-separated, an empty value unknown, and "v*n" n
// equal values in a row.

// pickerStep is a step's counters for the picker, one entry per run that has any.
type pickerStep struct {
	Step  string      `json:"step"`
	ID    string      `json:"id"`   // the picker's element id
	Runs  []pickerRun `json:"runs"` // runs with counters
	Shade []htmlShade `json:"shade,omitempty"`
	Main  []string    `json:"main"` // per entry of Runs, what per op divides by
	// Default is the counter drawn when the page opens: the one that moved most in the
	// first stall, else the one whose rate varied most.
	Default string      `json:"default,omitempty"`
	XRange  *[2]float64 `json:"xRange,omitempty"` // the step's time axis, as its other charts'
}

type pickerRun struct {
	Run      int               `json:"run"`
	T        string            `json:"t"`
	Ops      string            `json:"ops"`
	Counters map[string]string `json:"c"`
}

// pickerData is nil when no run has counters for the step.
func pickerData(step string, si int, runs []Run, steps []*counters.Step) *pickerStep {
	p := &pickerStep{Step: step, ID: pickerID(si)}
	for ri, s := range steps {
		if s == nil {
			continue
		}
		pr := pickerRun{Run: ri, Counters: map[string]string{}}
		ms := make([]float64, len(s.TSec))
		for i, t := range s.TSec {
			ms[i] = math.Round(t * 1000)
		}
		pr.T = encodeValues(deltas(ms, false))
		pr.Ops = encodeValues(increases(s.Values["op."+s.MainOp]))
		for _, n := range s.Names {
			if counters.Synthetic(n) {
				continue
			}
			if enc, ok := encodeCounter(s.Kinds[n], s.Values[n]); ok {
				pr.Counters[n] = enc
			}
		}
		if len(pr.Counters) == 0 {
			continue
		}
		p.Runs = append(p.Runs, pr)
		p.Main = append(p.Main, s.MainOp)
		p.Shade = append(p.Shade, stallShade(step, ri, runs[ri], s)...)
	}
	if len(p.Runs) == 0 {
		return nil
	}
	p.Default = pickerDefault(step, runs, steps, p.Runs)
	return p
}

// pickerDefault is the counter the picker draws first: the DBMS counter that moved most in
// the first stall of a run (the first run with counters that had one), else the running total
// whose increase a second varied most ((max - min) / median) in any run, else the first name.
func pickerDefault(step string, runs []Run, steps []*counters.Step, prs []pickerRun) string {
	for _, pr := range prs {
		s := steps[pr.Run]
		if st, ok := findStep(runs[pr.Run], step); ok && st.Stalls != nil {
			if ws := s.StallWindows(st.Stalls); len(ws) > 0 {
				for _, m := range s.Movers(ws[0], 20, counters.Vitals()) {
					if _, ok := pr.Counters[m.Name]; ok {
						return m.Name
					}
				}
			}
		}
	}
	best, most := "", -1.0
	for _, pr := range prs {
		s := steps[pr.Run]
		for _, n := range s.Names {
			if _, ok := pr.Counters[n]; !ok || s.Kinds[n] == archive.KindGauge {
				continue
			}
			if v := variation(increases(s.Values[n])); v > most {
				best, most = n, v
			}
		}
	}
	if best == "" {
		for _, pr := range prs {
			for n := range pr.Counters {
				if best == "" || n < best {
					best = n
				}
			}
		}
	}
	return best
}

// stallShade are a run's stalls in a step as shaded windows of its counters' ticks.
func stallShade(step string, ri int, r Run, s *counters.Step) []htmlShade {
	var out []htmlShade
	if st, ok := findStep(r, step); ok && st.Stalls != nil {
		for _, w := range s.StallWindows(st.Stalls) {
			out = append(out, htmlShade{Run: ri, From: s.TSec[w.From], To: s.TSec[w.To]})
		}
	}
	return out
}

// encodeCounter encodes a counter's values per interval; false when it never changed.
func encodeCounter(kind archive.CounterKind, v []float64) (string, bool) {
	if len(v) < 2 {
		return "", false
	}
	if kind != archive.KindGauge {
		inc := increases(v)
		for _, x := range inc {
			if !math.IsNaN(x) && x != 0 {
				return "c|" + encodeValues(inc), true
			}
		}
		return "", false
	}
	ends := v[1:]
	changed, whole := false, true
	first := math.NaN()
	for _, x := range ends {
		if math.IsNaN(x) {
			continue
		}
		if math.IsNaN(first) {
			first = x
		}
		changed = changed || x != first
		whole = whole && x == math.Trunc(x) && math.Abs(x) < 1<<53
	}
	if !changed {
		return "", false
	}
	if whole {
		return "d|" + encodeValues(deltas(ends, true)), true
	}
	return "g|" + encodeValues(ends), true
}

// increases are a running total's increase in each interval: NaN where either end is
// unknown, 0 across a reset (as counters.Step.Increase counts it).
func increases(v []float64) []float64 {
	if len(v) < 2 {
		return nil
	}
	out := make([]float64, len(v)-1)
	for i := range out {
		out[i] = math.NaN()
		if !math.IsNaN(v[i]) && !math.IsNaN(v[i+1]) {
			out[i] = math.Max(v[i+1]-v[i], 0)
		}
	}
	return out
}

// deltas are the first value, then each value's difference from the last one known
// (skipping unknowns when skipNaN, which stay unknown).
func deltas(v []float64, skipNaN bool) []float64 {
	out := make([]float64, len(v))
	prev := math.NaN()
	for i, x := range v {
		switch {
		case math.IsNaN(x):
			out[i] = math.NaN()
			if !skipNaN {
				prev = math.NaN()
			}
		case math.IsNaN(prev):
			out[i], prev = x, x
		default:
			out[i], prev = x-prev, x
		}
	}
	return out
}

// encodeValues joins values with commas, unknowns empty, runs of equal values as "v*n";
// whole numbers print whole, others with 5 significant digits.
func encodeValues(v []float64) string {
	var b strings.Builder
	for i := 0; i < len(v); {
		j := i + 1
		for j < len(v) && (v[j] == v[i] || math.IsNaN(v[j]) && math.IsNaN(v[i])) {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		if !math.IsNaN(v[i]) {
			b.WriteString(shortNum(v[i]))
		}
		if j-i > 1 {
			b.WriteString("*" + strconv.Itoa(j-i))
		}
		i = j
	}
	return b.String()
}

func shortNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 5, 64)
}

func pickerID(si int) string { return "s" + strconv.Itoa(si) + "-picker" }

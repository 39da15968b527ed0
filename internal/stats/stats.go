// Package stats summarizes a figure across repeated runs and tells whether two sets of runs
// differ by more than their noise, with gonum's distributions.
//
// Methods, and why (docs/repeats.md says the same for users):
//   - Centre: the median, robust to one odd run.
//   - Spread: the coefficient of variation (sample standard deviation / mean).
//   - 95% confidence interval: Student's t interval of the mean of the logarithms, turned back:
//     the interval of the geometric mean. It is never negative for a positive figure (a plain t
//     interval of 3 noisy latencies can reach below zero), it matches the test below, and a
//     distribution-free interval of the median would need at least 6 runs for 95%. A figure
//     with a zero among its runs has no logarithm: it gets the plain t interval of the mean,
//     cut at 0 when no run is negative (every dbperf figure is a count, rate, time, size or
//     a ratio of them: an interval reaching below zero would claim values that cannot occur).
//   - Difference: Welch's t-test on the logarithms of the values. Benchmark figures are ratios
//     in spirit (1.2x faster), and their noise grows with their size, so logarithms make the
//     spread comparable; Welch does not assume equal variances. With 3 runs each it can find a
//     large difference (a rank test such as Mann-Whitney cannot reach p < 0.05 below 4 runs
//     each: its smallest two-sided p with 3 and 3 is 0.1).
//   - Many figures at once: a compare tests dozens of figures; BenjaminiHochberg adjusts their
//     p-values so that the false discovery rate stays at FDR (fdr.go).
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary is one figure across repeats.
type Summary struct {
	N             int
	Median, Mean  float64
	CILow, CIHigh float64 // 95% confidence interval of the mean; equal to Mean when N < 2, never below 0 when Min >= 0
	CV            float64 // coefficient of variation, 0 when N < 2 or the mean is 0
	Min, Max      float64
	Values        []float64
}

// Summarize summarizes values (not modified).
func Summarize(values []float64) Summary {
	s := Summary{N: len(values), Values: slices.Clone(values)}
	if s.N == 0 {
		return s
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[s.N-1]
	if s.N%2 == 1 {
		s.Median = sorted[s.N/2]
	} else {
		s.Median = (sorted[s.N/2-1] + sorted[s.N/2]) / 2
	}
	s.Mean = stat.Mean(values, nil)
	s.CILow, s.CIHigh = s.Mean, s.Mean
	if s.N < 2 {
		return s
	}
	sd := stat.StdDev(values, nil)
	if s.Mean != 0 {
		s.CV = sd / math.Abs(s.Mean)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.N - 1)}.Quantile(0.975)
	if l := logs(values); l != nil {
		m, half := stat.Mean(l, nil), t*stat.StdDev(l, nil)/math.Sqrt(float64(s.N))
		s.CILow, s.CIHigh = math.Exp(m-half), math.Exp(m+half)
		return s
	}
	half := t * sd / math.Sqrt(float64(s.N))
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	if s.Min >= 0 {
		s.CILow = math.Max(s.CILow, 0)
	}
	return s
}

// Difference is how two sets of runs of one figure differ.
type Difference struct {
	Ratio float64 // median of b / median of a
	// P is the two-sided p-value of Welch's t-test on the logarithms; 1 when it cannot be
	// computed (fewer than 2 runs on a side, a value not above 0), and when every run of both
	// sides is the same value.
	P float64
	// Tested says P comes from a test, not from the lack of one: only tested figures count in
	// BenjaminiHochberg's m.
	Tested      bool
	Significant bool // P < Alpha, for this figure alone; a compare of many uses BenjaminiHochberg
}

// Alpha is the significance level of Compare.
const Alpha = 0.05

// Compare tells whether b differs from a by more than their noise.
func Compare(a, b []float64) Difference {
	d := Difference{P: 1}
	sa, sb := Summarize(a), Summarize(b)
	if sa.N == 0 || sb.N == 0 {
		return d
	}
	switch {
	case sa.Median != 0:
		d.Ratio = sb.Median / sa.Median
	case sb.Median == 0:
		d.Ratio = 1
	default:
		d.Ratio = math.Inf(1)
	}
	if sa.N < 2 || sb.N < 2 {
		return d
	}
	la, lb := logs(a), logs(b)
	if la == nil || lb == nil {
		return d
	}
	d.Tested = true
	ma, mb := stat.Mean(la, nil), stat.Mean(lb, nil)
	va, vb := stat.Variance(la, nil)/float64(len(la)), stat.Variance(lb, nil)/float64(len(lb))
	if va+vb == 0 {
		if ma != mb {
			d.P = 0 // every run of each side the same, and the sides differ
		}
		d.Significant = d.P < Alpha
		return d
	}
	t := (mb - ma) / math.Sqrt(va+vb)
	df := (va + vb) * (va + vb) / (va*va/float64(len(la)-1) + vb*vb/float64(len(lb)-1))
	d.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t))
	d.Significant = d.P < Alpha
	return d
}

func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		if x <= 0 {
			return nil
		}
		out[i] = math.Log(x)
	}
	return out
}

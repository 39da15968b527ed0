package counters

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The noise a single run's change is judged against (docs/counters.md, "Which steps"): a
// step's per-second rates scatter (per-second noise), and its mean, the figure compared, is
// known the better the longer the step ran (the noise of the mean). Seconds of a DBMS are
// not independent (a checkpoint, a flush, PostgreSQL's statistics published at most once a
// second), so the mean's noise is taken from batch means, which absorb that correlation.

// secondRates are f over each interval of the step of half a second or more (a short tail
// interval's few ops make a rate of no meaning), in order; unknown intervals left out.
func (s *Step) secondRates(f func(Window) float64) []float64 {
	var out []float64
	for k := 1; k < len(s.TSec); k++ {
		w := Window{k - 1, k}
		if r := f(w); !math.IsNaN(r) && !math.IsInf(r, 0) && s.Seconds(w) >= 0.5 {
			out = append(out, r)
		}
	}
	return out
}

// secondNoise is the per-second noise of rates: the median change from one second to the
// next, over 0.954 (for normal noise of standard deviation σ, the median |difference| of two
// seconds is 0.954σ), so that neither a trend across the step nor a single stall inflates
// it. NaN with fewer than 3 rates.
func secondNoise(x []float64) float64 {
	var d []float64
	for i := 1; i < len(x); i++ {
		d = append(d, math.Abs(x[i]-x[i-1]))
	}
	if len(d) < 2 {
		return math.NaN()
	}
	return median(d) / 0.954
}

// minBatches is the fewest batches a mean's noise is estimated from, minBatchSec the fewest
// seconds a batch holds: a step of under 9 s has no known noise of its mean.
const (
	minBatches  = 3
	minBatchSec = 3
)

// meanNoise is the standard error of the mean of per-second rates by batch means: the
// seconds in k batches of b = ⌊√n⌋ (at least minBatchSec) consecutive seconds (the first n mod b left out), the
// batch means' standard deviation over √k, with k-1 degrees of freedom. Batches of √n
// seconds grow with the step, so a correlation over a few seconds is inside them while the
// batches stay many. NaN with fewer than minBatches batches.
func meanNoise(x []float64) (se, dof float64) {
	b := max(int(math.Sqrt(float64(len(x)))), minBatchSec)
	if b < 1 || len(x)/b < minBatches {
		return math.NaN(), 0
	}
	k := len(x) / b
	x = x[len(x)-k*b:]
	means := make([]float64, k)
	for i := range means {
		sum := 0.0
		for _, v := range x[i*b : (i+1)*b] {
			sum += v
		}
		means[i] = sum / float64(b)
	}
	m := 0.0
	for _, v := range means {
		m += v
	}
	m /= float64(k)
	ss := 0.0
	for _, v := range means {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(k-1) / float64(k)), float64(k - 1)
}

// diffNoise is the half-width of the 95% interval of the difference of two steps' means
// (Welch's t on their batch means, Welch-Satterthwaite's degrees of freedom): a difference
// of means larger than it is significant. NaN when either mean's noise is unknown.
func diffNoise(a, b []float64) float64 {
	sa, da := meanNoise(a)
	sb, db := meanNoise(b)
	if math.IsNaN(sa) || math.IsNaN(sb) {
		return math.NaN()
	}
	va, vb := sa*sa, sb*sb
	if va+vb == 0 {
		return 0
	}
	dof := (va + vb) * (va + vb) / (va*va/da + vb*vb/db)
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dof}.Quantile(0.975) * math.Sqrt(va+vb)
}

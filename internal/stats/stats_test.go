package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %v, want %v ± %v", name, got, want, tol)
	}
}

// TestSummarizeKnown checks the arithmetic on values with a known answer: 0, 10, 20, 30, 40
// (a zero: the plain interval) have mean 20, sd sqrt(250), t(0.975, 4) = 2.776445, so the
// interval is 20 ± 19.6324; e, e^2, e^3 have logarithms 1, 2, 3: mean 2, sd 1, t(0.975, 2) =
// 4.302653, so the interval is exp(2 ± 2.4842).
func TestSummarizeKnown(t *testing.T) {
	s := Summarize([]float64{40, 0, 20, 10, 30})
	near(t, "median", s.Median, 20, 0)
	near(t, "mean", s.Mean, 20, 1e-12)
	near(t, "cv", s.CV, math.Sqrt(250)/20, 1e-12)
	near(t, "ci low", s.CILow, 20-2.776445*math.Sqrt(250)/math.Sqrt(5), 1e-5)
	near(t, "ci high", s.CIHigh, 20+2.776445*math.Sqrt(250)/math.Sqrt(5), 1e-5)
	g := Summarize([]float64{math.E, math.Exp(2), math.Exp(3)})
	near(t, "geometric ci low", g.CILow, math.Exp(2-4.302653/math.Sqrt(3)), 1e-4)
	near(t, "geometric ci high", g.CIHigh, math.Exp(2+4.302653/math.Sqrt(3)), 1e-2)
	if e := Summarize([]float64{3, 1, 2, 4}); e.Median != 2.5 || e.Min != 1 || e.Max != 4 {
		t.Errorf("even count: %+v", e)
	}
	if one := Summarize([]float64{7}); one.CILow != 7 || one.CIHigh != 7 || one.CV != 0 {
		t.Errorf("one value: %+v", one)
	}
}

// TestIntervalCoverage draws 2,000 samples of 5 from a lognormal distribution of geometric
// mean 100: about 95% of their intervals must hold 100. The binomial standard error of 2,000 draws at 95% is
// 0.49%, so [93%, 97%] fails by chance about once in 10^5.
func TestIntervalCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	hits := 0
	for range 2000 {
		v := make([]float64, 5)
		for i := range v {
			v[i] = 100 * math.Exp(0.1*r.NormFloat64())
		}
		if s := Summarize(v); s.CILow <= 100 && 100 <= s.CIHigh {
			hits++
		}
	}
	if p := float64(hits) / 2000; p < 0.93 || p > 0.97 {
		t.Errorf("coverage %.3f, want 0.95", p)
	}
}

// TestCompareKnown: Welch on logs by hand. log values of a: ln 100, ln 110, ln 90 and of b:
// ln 200, ln 220, ln 180: the same spread, twice the size: p far below 0.05. Identical sets:
// p = 1, no difference.
func TestCompareKnown(t *testing.T) {
	d := Compare([]float64{100, 110, 90}, []float64{200, 220, 180})
	near(t, "ratio", d.Ratio, 2, 1e-12)
	if !d.Significant || d.P > 0.01 {
		t.Errorf("twice as large: %+v, want significant", d)
	}
	same := Compare([]float64{100, 110, 90}, []float64{100, 110, 90})
	if same.Significant || same.P < 0.99 {
		t.Errorf("identical: %+v", same)
	}
	if one := Compare([]float64{100}, []float64{200}); one.Significant || one.Ratio != 2 {
		t.Errorf("one run each: %+v, want a ratio and no verdict", one)
	}
}

// TestCompareFalsePositives: 2,000 pairs of 5-run sets from the same distribution (lognormal,
// 5% noise). Welch at 0.05 must call about 5% of them different: [3%, 7%] fails by chance far
// less than once in 10^5 (binomial standard error 0.49%).
func TestCompareFalsePositives(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	draw := func() []float64 {
		v := make([]float64, 5)
		for i := range v {
			v[i] = 1000 * math.Exp(0.05*r.NormFloat64())
		}
		return v
	}
	called := 0
	for range 2000 {
		if Compare(draw(), draw()).Significant {
			called++
		}
	}
	if p := float64(called) / 2000; p < 0.03 || p > 0.07 {
		t.Errorf("false positives %.3f, want 0.05", p)
	}
}

// TestComparePower: 5 runs each, 5% noise, a true 15% difference: the expected t is
// ln(1.15) / (0.05 x sqrt(2/5)) = 4.4 against a critical 2.3 (8 degrees of freedom), a power of
// about 97%; at least 85% of 500 draws must be called different (a 10% difference has a power
// of only about 75% with 5 runs: more runs are needed to see it).
func TestComparePower(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	draw := func(m float64) []float64 {
		v := make([]float64, 5)
		for i := range v {
			v[i] = m * math.Exp(0.05*r.NormFloat64())
		}
		return v
	}
	called := 0
	for range 500 {
		if Compare(draw(1000), draw(1150)).Significant {
			called++
		}
	}
	if p := float64(called) / 500; p < 0.85 {
		t.Errorf("power %.3f, want above 0.85", p)
	}
}

// TestIntervalNeverNegative: stalls of 0, 0 and 3 in three runs have no logarithm; the plain t
// interval, 1 ± 4.303 x sqrt(3)/sqrt(3), reaches -3.3 stalls. A figure none of whose runs is
// negative gets its interval cut at 0; one with a negative run keeps the plain interval.
func TestIntervalNeverNegative(t *testing.T) {
	s := Summarize([]float64{0, 0, 3})
	near(t, "ci low", s.CILow, 0, 0)
	near(t, "ci high", s.CIHigh, 1+4.302653, 1e-5)
	if n := Summarize([]float64{-1, 0, 4}); n.CILow >= 0 {
		t.Errorf("a figure with a negative run: interval %v..%v, want the plain one below 0", n.CILow, n.CIHigh)
	}
	if d := Compare([]float64{0, 0, 3}, []float64{1, 2, 3}); d.Tested || d.P != 1 {
		t.Errorf("a zero run: %+v, want no test", d)
	}
	if d := Compare([]float64{1, 2, 3}, []float64{1, 2, 3}); !d.Tested {
		t.Errorf("positive runs: %+v, want a test", d)
	}
}

package linkbench

import (
	"math"
	"math/rand/v2"
)

// Zipf is the original's ZipfDistribution (ZipfDistribution.java:45-207): ranks [0, n) drawn by
// Gray et al.'s quantile method, with the harmonic number approximated for n >= 100000 as the
// original does (ApproxHarmonic.java:37-67). Rank 0 and rank 1 have their exact probabilities;
// the rest follow the approximation.
type Zipf struct {
	n                              int64
	shape, alpha, eta, zetan, half float64
}

// NewZipf returns the Zipf distribution of shape (0 < shape < 1) over n ranks.
func NewZipf(n int64, shape float64) *Zipf {
	z := &Zipf{n: n, shape: shape, alpha: 1 / (1 - shape)}
	z.zetan = approxHarmonic(n, shape)
	z.eta = (1 - math.Pow(2.0/float64(n), 1-shape)) / (1 - harmonic(2, shape)/z.zetan)
	z.half = math.Pow(0.5, shape)
	return z
}

// Quantile is the rank whose cumulative probability is p.
func (z *Zipf) Quantile(p float64) int64 {
	uz := p * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < 1+z.half {
		return 1
	}
	off := int64(float64(z.n) * math.Pow(z.eta*p-z.eta+1, z.alpha))
	if off >= z.n {
		return z.n - 1
	}
	return off
}

// P is the probability of rank r under the exact Zipf law (for tests and docs).
func (z *Zipf) P(r int64) float64 { return 1 / math.Pow(float64(r+1), z.shape) / z.zetan }

func harmonic(n int64, m float64) float64 {
	v := 0.0
	for k := n; k > 0; k-- {
		v += 1 / math.Pow(float64(k), m)
	}
	return v
}

func approxHarmonic(n int64, m float64) float64 {
	if n < 100000 {
		return harmonic(n, m)
	}
	if m == 1 {
		return math.Log(float64(n)) + 0.5772156649015329 + 1/(2*float64(n))
	}
	return 1/(1-m)*math.Pow(float64(n), 1-m) + 0.58 - 1/(1-m)
}

// multigetSize is the number of id2s of a MULTIGET_LINK: the original's GeometricDistribution
// with p = 0.382 over [1, 128) (GeometricDistribution.java:93-106, FBWorkload.properties
// link_multiget_dist_*): 1 + ceil(ln(1-r)/ln(1-p)), at most 127; 1 only when r is exactly 0.
func multigetSize(r float64) int {
	const p, lo, hi = 0.382, 1, 128
	if r == 0 {
		return lo
	}
	x := lo + int64(math.Ceil(math.Log(1-r)/math.Log(1-p)))
	return int(min(x, hi-1))
}

// dataSize is a payload size: round(exp(N(ln median, sigma = 1))) clamped to [0, max)
// (LogNormalDistribution.java:76-84, Config.java:66-67).
func dataSize(rng *rand.Rand, median float64, max int64) int {
	v := int64(math.Round(math.Exp(rng.NormFloat64() + math.Log(median))))
	if v < 0 {
		v = 0
	}
	if v >= max {
		v = max - 1
	}
	return int(v)
}

// javaInt is java.util.Random.nextInt(): a uniform signed 32-bit value.
func javaInt(rng *rand.Rand) int64 { return int64(int32(rng.Uint32())) }

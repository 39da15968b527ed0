package kv

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func TestAppendKey(t *testing.T) {
	k := appendKey(nil, 258, 20)
	want := append([]byte{0, 0, 0, 0, 0, 0, 1, 2}, bytes.Repeat([]byte("0"), 12)...)
	if !bytes.Equal(k, want) {
		t.Fatalf("appendKey(258, 20) = %q, want %q", k, want)
	}
	if keyNumber(k) != 258 {
		t.Fatalf("keyNumber = %d", keyNumber(k))
	}
	for _, p := range [][2]uint64{{0, 1}, {255, 256}, {65535, 65536}, {1 << 40, 1<<40 + 1}} {
		if bytes.Compare(appendKey(nil, p[0], 16), appendKey(nil, p[1], 16)) >= 0 {
			t.Errorf("key %d does not sort before key %d", p[0], p[1])
		}
	}
}

// TestValues checks db_bench's value shape: 100-byte pieces of ratio x 100 random bytes repeated,
// cut in turn and wrapping at the buffer's end.
func TestValues(t *testing.T) {
	buf := valueBuffer(0.5, 400, 1)
	if len(buf) < valueBufferBytes {
		t.Fatalf("buffer of %d bytes", len(buf))
	}
	for p := 0; p+100 <= len(buf); p += 100 {
		for j := 50; j < 100; j++ {
			if buf[p+j] != buf[p+j-50] {
				t.Fatalf("piece at %d is not 50 random bytes repeated", p)
			}
		}
	}
	v := values{buf: buf, size: 400}
	first := v.next()
	for i := 1; i < len(buf)/400; i++ {
		v.next()
	}
	if again := v.next(); len(again) != 400 || !bytes.Equal(again, first) {
		t.Fatal("values do not wrap to the buffer's start")
	}
}

// chiSquare of counts against equal expected counts.
func chiSquare(counts []int, total int) float64 {
	exp := float64(total) / float64(len(counts))
	x := 0.0
	for _, c := range counts {
		d := float64(c) - exp
		x += d * d / exp
	}
	return x
}

// TestUniform: 1e6 draws over 50 keys; chi-square with 49 degrees of freedom exceeds 125 with
// probability below 1e-7 (Wilson-Hilferty), so a correct generator fails by chance far less
// than once in a million runs (and the seed is fixed).
func TestUniform(t *testing.T) {
	const n, draws = 50, 1000000
	rng := rand.New(rand.NewPCG(1, 2))
	u := uniform{n}
	counts := make([]int, n)
	for i := 0; i < draws; i++ {
		k := u.next(rng)
		if k >= n {
			t.Fatalf("key %d out of [0, %d)", k, n)
		}
		counts[k]++
	}
	if x := chiSquare(counts, draws); x > 125 {
		t.Fatalf("chi-square %.1f > 125 for 49 degrees of freedom: not uniform", x)
	}
}

// within6Sigma tells whether an observed frequency is within 6 binomial standard deviations of p
// (a correct generator falls outside with probability about 2e-9).
func within6Sigma(observed int, draws int, p float64) bool {
	sigma := math.Sqrt(p * (1 - p) / float64(draws))
	return math.Abs(float64(observed)/float64(draws)-p) <= 6*sigma
}

// TestZipfian checks YCSB's generator against its own closed-form distribution (ranks 0 and 1
// exactly 1/zeta(n) and 0.5^0.99/zeta(n); the CDF of larger ranks from Gray et al.'s formula) with
// 6-sigma tolerances, and against the true Zipf CDF within 5% (the formula is an approximation).
func TestZipfian(t *testing.T) {
	const n, draws = 1000, 1000000
	z := newZipfian(n, false)
	rng := rand.New(rand.NewPCG(3, 4))
	counts := make([]int, n)
	for i := 0; i < draws; i++ {
		r := z.rank(rng)
		if r >= n {
			t.Fatalf("rank %d out of [0, %d)", r, n)
		}
		counts[r]++
	}
	if p := 1 / z.zetan; !within6Sigma(counts[0], draws, p) {
		t.Errorf("rank 0: frequency %.5f, want %.5f", float64(counts[0])/draws, p)
	}
	if p := math.Pow(0.5, zipfTheta) / z.zetan; !within6Sigma(counts[1], draws, p) {
		t.Errorf("rank 1: frequency %.5f, want %.5f", float64(counts[1])/draws, p)
	}
	t1 := z.threshold1 / z.zetan
	cum := 0
	for x := 0; x <= 500; x++ {
		if x == 2 || x == 10 || x == 100 || x == 500 {
			// The generator's P(rank < x): u below the value whose formula gives x.
			ux := (math.Pow(float64(x)/n, 1/z.alpha) - 1 + z.eta) / z.eta
			p := min(1, max(ux, t1))
			if !within6Sigma(cum, draws, p) {
				t.Errorf("P(rank < %d) = %.5f, the generator's formula gives %.5f", x, float64(cum)/draws, p)
			}
			if zipf := zeta(uint64(x), zipfTheta) / z.zetan; math.Abs(float64(cum)/draws-zipf) > 0.05*zipf {
				t.Errorf("P(rank < %d) = %.5f, Zipf's is %.5f: more than 5%% apart", x, float64(cum)/draws, zipf)
			}
		}
		cum += counts[x]
	}
}

// TestZipfianPermutation: the scrambled keys are a permutation of the ranks, so the
// distribution over keys is the ranks' exactly.
func TestZipfianPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 97, 1000, 1024, 100000} {
		z := newZipfian(n, true)
		seen := make([]bool, n)
		for r := uint64(0); r < n; r++ {
			k := z.keyOfRank(r)
			if seen[k] {
				t.Fatalf("n=%d: key %d reached twice", n, k)
			}
			seen[k] = true
		}
	}
}

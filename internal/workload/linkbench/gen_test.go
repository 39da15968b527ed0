package linkbench

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The reference's test vectors for n = 10,000,000 (../shared/reference/linkbench.md).
func TestShufflerVectors(t *testing.T) {
	const n = 10_000_000
	s := NewShuffler(nlinksShufflerSeed, shufflerGroups, n)
	if s.minGroupSize != 9765 {
		t.Errorf("minGroupSize %d, want 9765", s.minGroupSize)
	}
	for i, want := range []int64{347, 5629, 1728, 6331, 8819} {
		if s.offsets[i] != want {
			t.Errorf("offset %d = %d, want %d", i, s.offsets[i], want)
		}
	}
	if got := 1 + s.Permute(0); got != 355329 {
		t.Errorf("top-degree id1 %d, want 355329", got)
	}
	d, err := NewDegrees(distribution2013, 1, n+1)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Total(355329); got != 961963 {
		t.Errorf("degree of id1 355329 = %d, want 961963", got)
	}
	a := NewAccess(1, n+1)
	for _, c := range []struct {
		name string
		got  int64
		want int64
	}{
		{"hottest uncorrelated link id (rank 0)", 1 + a.linkReads.uncorr.shuf.Permute(0), 5915649},
		{"uncorrelated link id of rank 1", 1 + a.linkReads.uncorr.shuf.Permute(1), 7568386},
		{"hottest node id", 1 + a.nodeReads.shuf.Permute(0), 6192129},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestShufflerIsAPermutation(t *testing.T) {
	for _, n := range []int64{1, 7, 1024, 1025, 10_000, 123_457} {
		s := NewShuffler(uncorrShufflerSeed, shufflerGroups, n)
		seen := make([]bool, n)
		for i := range n {
			p := s.Permute(i)
			if p < 0 || p >= n || seen[p] {
				t.Fatalf("n=%d: permute(%d) = %d is out of range or repeated", n, i, p)
			}
			seen[p] = true
			if s.InvertPermute(p) != i {
				t.Fatalf("n=%d: invertPermute(permute(%d)) = %d", n, i, s.InvertPermute(p))
			}
		}
	}
}

// The realized out-degrees against the reference's figures: mean links per id with the
// original's split and with the fixed one, and the exact totals at 10M ids.
func TestDegreeTotals(t *testing.T) {
	if testing.Short() {
		t.Skip("10M ids take a few seconds")
	}
	d, err := NewDegrees(distribution2013, 1, 10_000_001)
	if err != nil {
		t.Fatal(err)
	}
	var fixed, buggy, buggyRows int64
	for id := int64(1); id < 10_000_001; id++ {
		tot := d.Total(id)
		for ty := range int64(LinkTypes) {
			fixed += splitDegree(tot, ty)
			// The original's split: remainder tot - tot/k (ID2Chooser.java:255-266).
			n := tot / LinkTypes
			if ty < tot-n {
				n++
			}
			buggy += n
			if n > 0 {
				buggyRows++
			}
		}
	}
	if buggy != 44_458_555 || buggyRows != 7_720_581 {
		t.Errorf("with the original's split: %d links, %d count rows; the reference has 44,458,555 and 7,720,581", buggy, buggyRows)
	}
	if mean := float64(fixed) / 1e7; math.Abs(mean-4.172) > 0.0005 {
		t.Errorf("mean links per id %.4f, the reference's fixed split gives 4.172", mean)
	}
}

// The out-degree of ids is the CDF's step lookup over a permutation: the fraction of ids of each
// degree equals the CDF's step within 1/n (no randomness is involved).
func TestDegreeDistribution(t *testing.T) {
	const n = 100_000
	for _, data := range [][]byte{distribution2013, distribution2017} {
		d, err := NewDegrees(data, 1, n+1)
		if err != nil {
			t.Fatal(err)
		}
		hist := map[int64]int64{}
		for id := int64(1); id <= n; id++ {
			hist[d.Total(id)]++
		}
		var cum float64
		for i, pt := range d.cdf[:20] {
			cum += float64(hist[pt.value]) / n
			if math.Abs(cum-pt.prob) > 2.0/n {
				t.Errorf("point %d: fraction of ids with degree <= %d is %.6f, the CDF says %.6f", i, pt.value, cum, pt.prob)
			}
		}
	}
}

func TestSplitDegree(t *testing.T) {
	for tot := int64(0); tot < 50; tot++ {
		a, b := splitDegree(tot, 0), splitDegree(tot, 1)
		if a+b != tot || a-b < 0 || a-b > 1 {
			t.Errorf("split of %d: %d + %d", tot, a, b)
		}
	}
}

func TestJavaRandom(t *testing.T) {
	// Printed by OpenJDK's java.util.Random: new Random(42).nextInt(100) five times, then
	// new Random(-7).nextInt(1 << 20) three times (the power-of-two path).
	r := newJavaRand(42)
	for i, want := range []int32{30, 63, 48, 84, 70} {
		if got := r.nextInt(100); got != want {
			t.Errorf("nextInt(100) #%d = %d, want %d", i, got, want)
		}
	}
	r = newJavaRand(-7)
	for i, want := range []int32{282194, 945288, 705881} {
		if got := r.nextInt(1 << 20); got != want {
			t.Errorf("nextInt(1<<20) #%d = %d, want %d", i, got, want)
		}
	}
}

// binomialOK tells whether k successes in n trials fit probability p within 6 standard
// deviations (a chance failure is about 2 in a billion).
func binomialOK(k, n int64, p float64) bool {
	sd := math.Sqrt(float64(n) * p * (1 - p))
	return math.Abs(float64(k)-float64(n)*p) <= 6*sd+1
}

func TestOpMix(t *testing.T) {
	const n = 1_000_000
	for _, m := range mixes {
		rng := rand.New(rand.NewPCG(1, 2))
		var counts [numReqOps]int64
		for range n {
			counts[m.pick(rng)]++
		}
		var total float64
		for op := range numReqOps {
			total += m.Pct[op]
			if !binomialOK(counts[op], n, m.Pct[op]/100) {
				t.Errorf("mix %s: %s %d of %d, expected %.4f%%", m.Name, requestOps[op].Name, counts[op], n, m.Pct[op])
			}
		}
		if math.Abs(total-100) > 1e-5 {
			t.Errorf("mix %s sums to %v", m.Name, total)
		}
	}
}

// Multiget sizes: 1 + ceil(ln(1-r)/ln(0.618)): P(1 + k) = 0.618^(k-1) x 0.382, support 2..127.
func TestMultigetSizes(t *testing.T) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(3, 4))
	counts := map[int]int64{}
	var sum int64
	for range n {
		s := multigetSize(rng.Float64())
		if s < 2 || s > 127 {
			t.Fatalf("size %d outside 2..127", s)
		}
		counts[s]++
		sum += int64(s)
	}
	for k := 1; k <= 8; k++ {
		p := math.Pow(0.618, float64(k-1)) * 0.382
		if !binomialOK(counts[1+k], n, p) {
			t.Errorf("size %d: %d of %d, expected p = %.4f", 1+k, counts[1+k], n, p)
		}
	}
	// Mean 1 + 1/0.382 = 3.618, sd of the mean ~ 2.0/sqrt(n).
	if mean := float64(sum) / n; math.Abs(mean-3.618) > 6*2.1/1000 {
		t.Errorf("mean size %.4f, expected 3.618", mean)
	}
}

// Zipf: ranks 0 and 1 have their exact probabilities 1/zeta and 0.5^s/zeta in Gray's method; the
// mass below rank k follows the method's closed form.
func TestZipfFrequencies(t *testing.T) {
	const draws = 1_000_000
	for _, c := range []struct {
		n     int64
		shape float64
	}{{1000, 0.8}, {50_000, 0.741}, {1_000_000, 0.625}, {10_000_000, 0.606}} {
		z := NewZipf(c.n, c.shape)
		rng := rand.New(rand.NewPCG(5, uint64(c.n)))
		var r0, r1, below int64
		k := c.n / 10
		for range draws {
			r := z.Quantile(rng.Float64())
			switch r {
			case 0:
				r0++
			case 1:
				r1++
			}
			if r < k {
				below++
			}
		}
		if !binomialOK(r0, draws, 1/z.zetan) || !binomialOK(r1, draws, z.half/z.zetan) {
			t.Errorf("zipf(%d, %.3f): rank 0 %d, rank 1 %d of %d; expected p %.5f and %.5f", c.n, c.shape, r0, r1, draws, 1/z.zetan, z.half/z.zetan)
		}
		// offset < k  <=>  eta p - eta + 1 < (k/n)^(1/alpha)
		pk := (math.Pow(float64(k)/float64(c.n), 1/z.alpha) - 1 + z.eta) / z.eta
		if !binomialOK(below, draws, pk) {
			t.Errorf("zipf(%d, %.3f): %d of %d below rank %d, expected p %.5f", c.n, c.shape, below, draws, k, pk)
		}
	}
}

// Link reads blend 99.5% uncorrelated ids with 0.5% correlated ones; writes 95% / 5%.
func TestAccessBlend(t *testing.T) {
	const n, draws = 1_000_000, 1_000_000
	a := NewAccess(1, n+1)
	hotUncorr := 1 + a.linkReads.uncorr.shuf.Permute(0)
	hotCorr := 1 + a.linkReads.corr.shuf.Permute(0)
	rng := rand.New(rand.NewPCG(6, 7))
	var u, c int64
	for range draws {
		switch a.linkReads.id(rng) {
		case hotUncorr:
			u++
		case hotCorr:
			c++
		}
	}
	p0 := 1 / a.linkReads.uncorr.zipf.zetan
	if !binomialOK(u, draws, 0.995*p0) || !binomialOK(c, draws, 0.005*p0) {
		t.Errorf("hottest uncorrelated id %d times, correlated %d, of %d; expected p %.5f and %.6f", u, c, draws, 0.995*p0, 0.005*p0)
	}
}

func TestDataSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 200_000
	var sum, empty int64
	for range n {
		s := dataSize(rng, 8, maxLinkData)
		if s < 0 || s > 254 {
			t.Fatalf("link data size %d outside 0..254", s)
		}
		sum += int64(s)
		if s == 0 {
			empty++
		}
	}
	// The reference: mean ~13.2, 0.28% empty (round(x) = 0 when x < 0.5: P(N < ln(0.5/8))).
	if mean := float64(sum) / n; math.Abs(mean-13.2) > 0.3 {
		t.Errorf("mean link data size %.2f, the reference says ~13.2", mean)
	}
	if !binomialOK(empty, n, 0.00276) {
		t.Errorf("%d of %d links empty, expected ~0.28%%", empty, n)
	}
}

// TestTouchListsPairs: the pairs a requester wrote come out once each, whether or not the list
// was compacted while it grew; past maxTouched distinct pairs the rest are lost, and said to be.
func TestTouchListsPairs(t *testing.T) {
	r := &requester{}
	for i := range 3 * maxTouched { // a compaction at 2*maxTouched; 1,000 pairs written over and over
		r.touch(&Link{ID1: int64(i%500) + 1, LinkType: FirstLinkType + int64(i/500%2)})
	}
	got := compactTouched(r.stats.touched)
	if len(got) != 1000 || r.stats.touchedLost {
		t.Fatalf("%d pairs listed (lost %v), want 1000", len(got), r.stats.touchedLost)
	}
	for i, p := range got {
		if want := (pair{int64(i/2) + 1, FirstLinkType + int64(i%2)}); p != want {
			t.Fatalf("pair %d = %v, want %v", i, p, want)
		}
	}
	r = &requester{}
	for i := range 2*maxTouched + 1 {
		r.touch(&Link{ID1: int64(i), LinkType: FirstLinkType})
	}
	if !r.stats.touchedLost || len(r.stats.touched) != 2*maxTouched {
		t.Errorf("after %d distinct pairs: lost %v, %d listed; want lost, the %d distinct ones compacted", 2*maxTouched+1,
			r.stats.touchedLost, len(r.stats.touched), 2*maxTouched)
	}
}

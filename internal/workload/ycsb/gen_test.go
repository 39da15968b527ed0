package ycsb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKeyName: hashed keys are YCSB's (the reference's examples, from a Java transcription of
// Utils.fnvhash64); ordered keys are zero-padded numbers.
func TestKeyName(t *testing.T) {
	c := DefaultConfig()
	for k, want := range map[int64]string{0: "user6284781860667377211", 1: "user8517097267634966620", 2: "user1820151046732198393"} {
		if got := c.KeyName(k); got != want {
			t.Errorf("KeyName(%d) = %s, want %s", k, got, want)
		}
	}
	c.InsertOrder, c.ZeroPadding = "ordered", 5
	if got := c.KeyName(42); got != "user00042" {
		t.Errorf("ordered, zeropadding 5: %s", got)
	}
}

// TestZipfian: ZipfianGenerator's frequencies follow 1/(k+1)^0.99 (item 0 the most popular),
// and extending the item count incrementally gives the zeta a full computation gives.
func TestZipfian(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, draws = 1000, 500000
	z := NewZipfian(0, n-1, zipfianConstant, -1)
	counts := make([]float64, n)
	for range draws {
		v := z.Next(r, n)
		if v < 0 || v >= n {
			t.Fatalf("draw %d outside [0, %d)", v, n)
		}
		counts[v]++
	}
	// Gray's method is exact for items 0 and 1 and approximates the rest through the CDF: check
	// those two, and the share of the hottest tenth.
	zn := zeta(0, n, zipfianConstant, 0)
	var top, topWant float64
	for k := range n / 10 {
		top += counts[k] / draws
		topWant += math.Pow(float64(k+1), -zipfianConstant) / zn
	}
	for _, c := range []struct{ got, want float64 }{
		{counts[0] / draws, 1 / zn}, {counts[1] / draws, math.Pow(2, -zipfianConstant) / zn}, {top, topWant}} {
		if math.Abs(c.got-c.want) > 0.05*c.want {
			t.Errorf("frequency %.4f, want %.4f", c.got, c.want)
		}
	}
	inc := NewZipfian(0, 99, zipfianConstant, -1)
	inc.Next(r, 500)
	if full := zeta(0, 500, zipfianConstant, 0); math.Abs(inc.zetan-full) > 1e-9 {
		t.Errorf("incremental zeta %v, full %v", inc.zetan, full)
	}
}

// TestScrambledZipfian: draws stay in [min, max], and the hottest keys are not the lowest.
func TestScrambledZipfian(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := newScrambled(100, 1099)
	counts := map[int64]int{}
	for range 200000 {
		v := s.Next(r)
		if v < 100 || v > 1099 {
			t.Fatalf("draw %d outside [100, 1099]", v)
		}
		counts[v]++
	}
	hot, hotN := int64(0), 0
	for k, n := range counts {
		if n > hotN {
			hot, hotN = k, n
		}
	}
	if hot < 110 || hotN < 200000/100 {
		t.Errorf("hottest key %d drawn %d times: want a scattered key drawn often", hot, hotN)
	}
}

// TestLatestAndHotspot: latest favours the newest acknowledged key; hotspot sends its share to
// the hot set.
func TestLatestAndHotspot(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a := NewAcknowledged(1000)
	l := &latest{basis: a, z: NewZipfian(0, a.Last()-1, zipfianConstant, -1)}
	newest := 0
	for range 10000 {
		v := l.Next(r)
		if v > a.Last() || v < 0 {
			t.Fatalf("latest drew %d beyond the last key %d", v, a.Last())
		}
		if v == a.Last() {
			newest++
		}
	}
	if newest < 1000 {
		t.Errorf("latest drew the newest key %d times in 10000", newest)
	}
	h := newHotspot(0, 999, 0.2, 0.8)
	hot := 0
	for range 100000 {
		if h.Next(r) < 200 {
			hot++
		}
	}
	if hot < 79000 || hot > 81000 {
		t.Errorf("hotspot: %d of 100000 in the hot 20%%, want about 80000", hot)
	}
}

// TestAcknowledged: Last moves only past contiguous acknowledged inserts.
func TestAcknowledged(t *testing.T) {
	a := NewAcknowledged(10)
	k1, k2, k3 := a.Next(), a.Next(), a.Next()
	if a.Last() != 9 {
		t.Fatalf("Last %d before any acknowledgement", a.Last())
	}
	a.Acknowledge(k2)
	a.Acknowledge(k3)
	if a.Last() != 9 {
		t.Errorf("Last %d with %d not acknowledged", a.Last(), k1)
	}
	a.Acknowledge(k1)
	if a.Last() != 12 {
		t.Errorf("Last %d, want 12", a.Last())
	}
}

// TestOperationMix: the op chooser follows the proportions, only positive ones.
func TestOperationMix(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ApplyWorkload("b")
	b := &Bench{cfg: cfg, inserts: NewAcknowledged(cfg.RecordCount)}
	c := b.newClient("run", 0, nil)
	n := map[int]int{}
	for range 100000 {
		n[int(c.opOf[c.ops.Next(c.r)])]++
	}
	if len(n) != 2 || n[int(opRead)] < 94500 || n[int(opRead)] > 95500 {
		t.Errorf("workload b's mix: %v, want 95%% reads and 5%% updates", n)
	}
}

// seq is a key chooser that returns its values in turn.
type seq struct {
	v []int64
	i int
}

func (s *seq) Next(*rand.Rand) int64 { s.i++; return s.v[s.i-1] }

// TestNextKeynumRedraws: a key beyond the last acknowledged insert is drawn again
// (CoreWorkload.nextKeynum), so reads never ask for a record not yet written.
func TestNextKeynumRedraws(t *testing.T) {
	b := &Bench{cfg: DefaultConfig(), inserts: NewAcknowledged(100)}
	c := &client{b: b, r: rand.New(rand.NewPCG(1, 1)), keys: &seq{v: []int64{150, 100, 99}}}
	if k := c.nextKeynum(); k != 99 {
		t.Errorf("nextKeynum = %d, want 99 (150 and 100 are not inserted yet)", k)
	}
}

// TestSequentialAndExponential: sequential hands out the interval in order across clients and
// wraps; exponential keys fall mostly near the last insert (95% of draws within 0.857 x
// recordcount of it).
func TestSequentialAndExponential(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Distribution, cfg.RecordCount = "sequential", 3
	b := &Bench{cfg: cfg, inserts: NewAcknowledged(3)}
	c1, c2 := b.newClient("run", 0, nil), b.newClient("run", 1, nil)
	var got []int64
	for _, c := range []*client{c1, c2, c1, c2} {
		got = append(got, c.nextKeynum())
	}
	if want := []int64{0, 1, 2, 0}; !slicesEqual(got, want) {
		t.Errorf("sequential: %v, want %v", got, want)
	}
	cfg.Distribution, cfg.RecordCount = "exponential", 10000
	b = &Bench{cfg: cfg, inserts: NewAcknowledged(10000)}
	c := b.newClient("run", 0, nil)
	near := 0
	for range 20000 {
		k := c.nextKeynum()
		if k < 0 || k > 9999 {
			t.Fatalf("exponential drew %d", k)
		}
		if k >= 9999-8571 {
			near++
		}
	}
	// 95% of draws are below 8571, 97% below 9999; draws past key 0 are redrawn: 0.95/0.97.
	if near < 19400 || near > 19800 {
		t.Errorf("exponential: %d of 20000 within 8571 of the last key, want about 19600", near)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

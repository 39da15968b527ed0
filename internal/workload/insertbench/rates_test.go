package insertbench

import (
	"testing"
	"time"
)

// np.sh:626-641 on 20 seconds of rates 1..20: sort -rn, off = round(0.5 x 20) = 10 -> 11, and
// round(0.99 x 20) = 20 -> 1: the reference's p99 is the lowest rate, its low tail.
func TestRefPercentile(t *testing.T) {
	var rates []float64
	for i := 1; i <= 20; i++ {
		rates = append(rates, float64(i))
	}
	if v, ok := refPercentile(rates, 50); !ok || v != 11 {
		t.Errorf("p50 = %g, %v; want 11", v, ok)
	}
	if v, ok := refPercentile(rates, 99); !ok || v != 1 {
		t.Errorf("p99 = %g, %v; want 1 (the low tail)", v, ok)
	}
	if _, ok := refPercentile(rates[:9], 50); ok {
		t.Errorf("a figure from 9 seconds; np.sh needs 10")
	}
}

// Units land in the second of the runner's window they were counted in; the partial last
// second is left out.
func TestRateCounterSeconds(t *testing.T) {
	r := &rateCounter{anchor: time.Unix(1000, 0)}
	r.buckets = make([]int64, 400)
	r.buckets[50] = 5   // 0.5 s after the anchor: before the window
	r.buckets[120] = 7  // 1.2 s: second 0 of a window starting at 1 s
	r.buckets[199] = 1  // 1.99 s: second 0
	r.buckets[200] = 3  // 2.0 s: second 1
	r.buckets[350] = 11 // 3.5 s: the partial third second
	got := r.Rates(time.Unix(1001, 0), time.Unix(1003, 600_000_000))
	if len(got) != 2 || got[0] != 8 || got[1] != 3 {
		t.Errorf("Rates = %v, want [8 3]", got)
	}
}

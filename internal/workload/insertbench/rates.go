package insertbench

import (
	"math"
	"slices"
	"sync"
	"time"
)

// The reference's p50 and p99 (np.sh:626-641, read by etl.sh:114-120) are of client 1's
// per-second rates (inserts on load steps, queries on q steps), sorted in descending order, the
// off-th value with off = round(x/100 x lines): its "p99" is the low tail, the rate that 99% of
// seconds beat. dbperf's own percentiles of all clients' merged rate are in the step's host
// figures; these are the reference's, computed from client 1's units counted here.

// rateCounter counts one client's units in 10-ms buckets from an anchor taken before the step
// starts; Rates regroups them into whole seconds from the runner's start instant.
type rateCounter struct {
	mu      sync.Mutex
	anchor  time.Time
	buckets []int64
}

const rateBucket = 10 * time.Millisecond

func newRateCounter() *rateCounter { return &rateCounter{anchor: time.Now()} }

func (r *rateCounter) add(n int64) {
	i := int(time.Since(r.anchor) / rateBucket)
	r.mu.Lock()
	if i >= len(r.buckets) {
		r.buckets = append(r.buckets, make([]int64, i+1-len(r.buckets))...)
	}
	r.buckets[i] += n
	r.mu.Unlock()
}

// Rates are the per-second rates of the whole seconds from start to end (the runner's window),
// exact to one bucket at each boundary.
func (r *rateCounter) Rates(start, end time.Time) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := int(start.Sub(r.anchor) / rateBucket)
	per := int(time.Second / rateBucket)
	var rates []float64
	for s := 0; start.Add(time.Duration(s+1)*time.Second).Compare(end) <= 0; s++ {
		var n int64
		for i := max(first+s*per, 0); i < first+(s+1)*per && i < len(r.buckets); i++ {
			n += r.buckets[i]
		}
		rates = append(rates, float64(n))
	}
	return rates
}

// refPercentile is np.sh's: descending order, the round(x/100 x lines)-th line; no figure with
// fewer than 10 seconds (np.sh:629, 636-638).
func refPercentile(rates []float64, x float64) (float64, bool) {
	if len(rates) < 10 {
		return 0, false
	}
	s := slices.Clone(rates)
	slices.Sort(s)
	slices.Reverse(s) // sort -rn
	off := int(math.Round(x / 100 * float64(len(s))))
	off = min(max(off, 1), len(s))
	return s[off-1], true
}

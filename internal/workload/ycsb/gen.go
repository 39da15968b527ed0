package ycsb

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// The generators of YCSB's core package (core/src/main/java/site/ycsb/generator/ at 0.17.0),
// transcribed: the same formulas and constants, drawing from each client's own random stream
// (Java's ThreadLocalRandom cannot be seeded, so no run of YCSB's is reproducible value for
// value; the distributions are the same).

// zipfianConstant is ZipfianGenerator.ZIPFIAN_CONSTANT (ZipfianGenerator.java:40-43).
const zipfianConstant = 0.99

// The scrambled zipfian's keyspace and its precomputed zeta (ScrambledZipfianGenerator.java:
// 33-35): zeta(10^10, 0.99).
const (
	scrambledItems = 10000000000
	scrambledZetan = 26.46902820178302
)

// zeta is the sum of 1/(i+1)^theta for i in [st, n), added to initial (ZipfianGenerator.zeta).
func zeta(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Zipfian is ZipfianGenerator (Gray et al., SIGMOD 1994): min is the most popular value.
type Zipfian struct {
	items, base                int64
	theta, zeta2, alpha, zetan float64
	eta                        float64
	countForZeta               int64
}

// NewZipfian is ZipfianGenerator(min, max, constant, zetan); zetan < 0 computes it.
func NewZipfian(min, max int64, constant, zetan float64) *Zipfian {
	z := &Zipfian{items: max - min + 1, base: min, theta: constant}
	z.zeta2 = zeta(0, 2, z.theta, 0)
	z.alpha = 1 / (1 - z.theta)
	if zetan < 0 {
		zetan = zeta(0, z.items, z.theta, 0)
	}
	z.zetan, z.countForZeta = zetan, z.items
	z.eta = (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2/z.zetan)
	return z
}

// Next is nextLong(itemcount) (ZipfianGenerator.java:219-264). A larger itemcount extends zeta
// incrementally; eta keeps using the constructor's item count, as YCSB's does.
func (z *Zipfian) Next(r *rand.Rand, itemcount int64) int64 {
	if itemcount > z.countForZeta {
		z.zetan = zeta(z.countForZeta, itemcount, z.theta, z.zetan)
		z.countForZeta = itemcount
		z.eta = (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2/z.zetan)
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	return z.base + int64(float64(itemcount)*math.Pow(z.eta*u-z.eta+1, z.alpha))
}

// clone is a copy for another client: the zeta sum is computed once.
func (z *Zipfian) clone() *Zipfian { c := *z; return &c }

// FNVHash64 is Utils.fnvhash64 (Utils.java:39-65): FNV-1a over the long's 8 bytes, least
// significant first, then Math.abs (which leaves Long.MIN_VALUE negative).
func FNVHash64(v int64) int64 {
	h := int64(-3750763034362895579) // 0xCBF29CE484222325
	for range 8 {
		h ^= v & 0xff
		v >>= 8
		h *= 1099511628211
	}
	if h < 0 && h != math.MinInt64 {
		h = -h
	}
	return h
}

// KeyChooser draws the keynum of a read, update, scan or read-modify-write.
type KeyChooser interface {
	Next(r *rand.Rand) int64
}

type uniform struct{ lo, hi int64 }

// Next is UniformLongGenerator: uniform in [lo, hi].
func (u uniform) Next(r *rand.Rand) int64 { return u.lo + r.Int64N(u.hi-u.lo+1) }

// scrambled is ScrambledZipfianGenerator (ScrambledZipfianGenerator.java:84-106): a zipfian
// draw over 10^10 items, hashed onto [min, max], so the popular keys are scattered.
type scrambled struct {
	min, count int64
	z          *Zipfian
}

func newScrambled(min, max int64) *scrambled {
	return &scrambled{min: min, count: max - min + 1, z: NewZipfian(0, scrambledItems, zipfianConstant, scrambledZetan)}
}

func (s *scrambled) Next(r *rand.Rand) int64 {
	v := s.z.Next(r, s.z.items)
	return s.min + FNVHash64(v)%s.count
}

// latest is SkewedLatestGenerator (SkewedLatestGenerator.java:27-43): the newest acknowledged
// insert is the most popular.
type latest struct {
	basis *Acknowledged
	z     *Zipfian
}

func (l *latest) Next(r *rand.Rand) int64 {
	max := l.basis.Last()
	return max - l.z.Next(r, max)
}

// hotspot is HotspotIntegerGenerator (HotspotIntegerGenerator.java:48-87): a fraction opn of
// the draws go to the lowest fraction data of [lb, ub].
type hotspot struct {
	lb, hot, cold int64
	opn           float64
}

func newHotspot(lb, ub int64, data, opn float64) *hotspot {
	interval := ub - lb + 1
	hot := int64(float64(interval) * data)
	return &hotspot{lb: lb, hot: hot, cold: interval - hot, opn: opn}
}

func (h *hotspot) Next(r *rand.Rand) int64 {
	if r.Float64() < h.opn {
		return h.lb + absMod(r.Int64(), h.hot)
	}
	return h.lb + h.hot + absMod(r.Int64(), h.cold)
}

// absMod is Java's Math.abs(x) % n for n > 0 (0 when n is 0); Math.abs(Long.MIN_VALUE) stays
// negative, and so does its remainder, as in Java.
func absMod(x, n int64) int64 {
	if n <= 0 {
		return 0
	}
	if x < 0 && x != math.MinInt64 {
		x = -x
	}
	return x % n
}

// Acknowledged is AcknowledgedCounterGenerator (AcknowledgedCounterGenerator.java:27-87): the
// run phase's insert keys; Last moves past a key only when it and every key before it were
// acknowledged, so reads never pick a key still being inserted.
type Acknowledged struct {
	mu    sync.Mutex
	next  int64
	limit int64
	done  map[int64]bool
}

// NewAcknowledged starts at start: Last is start-1.
func NewAcknowledged(start int64) *Acknowledged {
	return &Acknowledged{next: start, limit: start - 1, done: map[int64]bool{}}
}

// Next hands out the next key.
func (a *Acknowledged) Next() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := a.next
	a.next++
	return v
}

// Acknowledge marks an insert done.
func (a *Acknowledged) Acknowledge(v int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done[v] = true
	for a.done[a.limit+1] {
		delete(a.done, a.limit+1)
		a.limit++
	}
}

// Last is the highest key below which every insert was acknowledged.
func (a *Acknowledged) Last() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit
}

// discrete is DiscreteGenerator (DiscreteGenerator.java:51-69): weights normalised by their sum.
type discrete struct {
	weights []float64
	sum     float64
}

func (d *discrete) Next(r *rand.Rand) int {
	v := r.Float64()
	for i, w := range d.weights {
		if v < w/d.sum {
			return i
		}
		v -= w / d.sum
	}
	return len(d.weights) - 1
}

// sequential is SequentialGenerator: start, start+1, ... wrapping over the interval, one
// counter for every thread as CoreWorkload's single keychooser has.
type sequential struct {
	start, interval int64
	counter         *atomic.Int64
}

func (s sequential) Next(*rand.Rand) int64 { return s.start + (s.counter.Add(1)-1)%s.interval }

// exponential is ExponentialGenerator (ExponentialGenerator.java:33-38 for its defaults):
// percentile of the draws fall below rng; CoreWorkload subtracts the draw from the last
// acknowledged insert, so recent keys are the most popular (CW:688-700).
type exponential struct {
	gamma float64
}

func newExponential(percentile, rng float64) exponential {
	return exponential{gamma: -math.Log(1-percentile/100) / rng}
}

func (e exponential) Next(r *rand.Rand) int64 { return int64(int32(-math.Log(r.Float64()) / e.gamma)) }

// The exponential distribution's defaults: exponential.percentile, exponential.frac.
const (
	exponentialPercentile = 95
	exponentialFrac       = 0.8571428571
)

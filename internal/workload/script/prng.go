package script

import (
	"math"
	"math/bits"
)

// PRNG is PostgreSQL's pg_prng: xoroshiro128** seeded through splitmix64
// (src/common/pg_prng.c). pgbench draws every random function of a client from one
// (cs_func_rs, pgbench.c:7217-7221 in 15.18), so the same seed gives the same values as pgbench.
type PRNG struct{ s0, s1 uint64 }

// splitmix64 fills the state from a 64-bit seed (pg_prng.c, splitmix64).
func splitmix64(x *uint64) uint64 {
	*x += 0x9E3779B97f4A7C15
	v := *x
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Seed is pg_prng_seed: never the all-zero fixed point (pg_prng_seed_check).
func (p *PRNG) Seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

// NewPRNG returns a generator seeded as pg_prng_seed does.
func NewPRNG(seed uint64) *PRNG {
	p := &PRNG{}
	p.Seed(seed)
	return p
}

// Uint64 is one xoroshiro128** step (pg_prng_uint64).
func (p *PRNG) Uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Range is pg_prng_uint64_range: uniform in [lo, hi] by bitmask rejection.
func (p *PRNG) Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(bits.LeadingZeros64(r))
	for {
		if v := p.Uint64() >> shift; v <= r {
			return lo + v
		}
	}
}

// Float64 is pg_prng_double: 52 random bits, in [0, 1).
func (p *PRNG) Float64() float64 { return math.Ldexp(float64(p.Uint64()>>12), -52) }

// Random is pgbench's getrand: uniform in [min, max] (pgbench.c:1099-1107).
func (p *PRNG) Random(min, max int64) int64 { return min + int64(p.Range(0, uint64(max-min))) }

// Exponential is getExponentialRand (pgbench.c:1110-1131): the density at max is exp(-param).
func (p *PRNG) Exponential(min, max int64, param float64) int64 {
	cut := math.Exp(-param)
	u := 1.0 - p.Float64()
	r := -math.Log(cut+(1.0-cut)*u) / param
	return min + int64(float64(max-min+1)*r)
}

// Gaussian is getGaussianRand (pgbench.c:1134-1185): Box-Muller, truncated to
// [-param, param) standard deviations.
func (p *PRNG) Gaussian(min, max int64, param float64) int64 {
	var stdev float64
	for {
		r1 := 1.0 - p.Float64()
		r2 := 1.0 - p.Float64()
		stdev = math.Sqrt(-2.0*math.Log(r1)) * math.Sin(2.0*math.Pi*r2)
		if stdev >= -param && stdev < param {
			break
		}
	}
	r := (stdev + param) / (param * 2.0)
	return min + int64(float64(max-min+1)*r)
}

// Zipfian is getZipfianRand with computeIterativeZipfian (pgbench.c:1216-1255): Devroye's
// rejection method; min is the most frequent value.
func (p *PRNG) Zipfian(min, max int64, s float64) int64 {
	n := max - min + 1
	if n <= 1 {
		return min
	}
	b := math.Pow(2.0, s-1.0)
	var x float64
	for {
		u := p.Float64()
		v := p.Float64()
		x = math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			break
		}
	}
	return min - 1 + int64(x)
}

// The hash functions' constants (pgbench.c:76-81).
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is getHashFnv1a (pgbench.c:1261-1279).
func HashFNV1a(val int64, seed uint64) int64 {
	result := uint64(fnvOffsetBasis) ^ seed
	for range 8 {
		octet := uint64(val & 0xff)
		val >>= 8
		result ^= octet
		result *= fnvPrime
	}
	return int64(result)
}

// HashMurmur2 is getHashMurmur2 (pgbench.c:1281-1303), the default of hash().
func HashMurmur2(val int64, seed uint64) int64 {
	result := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	result ^= k
	result *= mm2Mul
	result ^= result >> mm2Rot
	result *= mm2Mul
	result ^= result >> mm2Rot
	return int64(result)
}

// Permute is pgbench's permute (pgbench.c:1319-1404): a pseudorandom bijection of [0, size)
// from six rounds of multiply, xor, rotate and offset, with its own generator seeded by seed.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	st := NewPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	for range 6 {
		m := (st.Uint64() & mask) | 1
		r := st.Uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = (st.Uint64() & mask) | 1
		r = st.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = st.Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}

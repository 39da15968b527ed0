package kv

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Keys and values as db_bench makes them.

// appendKey appends key number n as db_bench's GenerateKeyFromInt does: 8 bytes big-endian, then
// size-8 ASCII '0' bytes, so keys sort as their numbers (db_bench_tool.cc:3959-4003).
func appendKey(dst []byte, n uint64, size int) []byte {
	dst = binary.BigEndian.AppendUint64(dst, n)
	for i := 8; i < size; i++ {
		dst = append(dst, '0')
	}
	return dst
}

// keyNumber reads the key number back.
func keyNumber(key []byte) uint64 { return binary.BigEndian.Uint64(key) }

// valueBufferBytes is the size of db_bench's RandomGenerator buffer (db_bench_tool.cc:2284).
const valueBufferBytes = 1 << 20

// valueBuffer builds db_bench's value buffer: 100-byte pieces, each ratio x 100 random printable
// bytes repeated to 100 (test_util/testutil.cc CompressibleString), so a compressor shrinks a value
// to about ratio of its size. The bytes are not RocksDB's (another RNG), their shape is.
func valueBuffer(ratio float64, size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 301))
	n := max(valueBufferBytes, size)
	buf := make([]byte, 0, n+100)
	raw := max(1, int(100*ratio))
	for len(buf) < n {
		piece := make([]byte, raw)
		for i := range piece {
			piece[i] = byte(' ' + rng.IntN(95))
		}
		for j := 0; j < 100; j++ {
			buf = append(buf, piece[j%raw])
		}
	}
	return buf
}

// values cuts values from the shared buffer in turn, wrapping at its end, as RandomGenerator's
// Generate does; each client has its own.
type values struct {
	buf  []byte
	size int
	pos  int
}

func (v *values) next() []byte {
	if v.pos+v.size > len(v.buf) {
		v.pos = 0
	}
	out := v.buf[v.pos : v.pos+v.size]
	v.pos += v.size
	return out
}

// keyChooser picks the key number of a random operation in [0, n).
type keyChooser interface {
	next(rng *rand.Rand) uint64
}

// uniform picks every key with the same probability, as db_bench's rand.Next() % num.
type uniform struct{ n uint64 }

func (u uniform) next(rng *rand.Rand) uint64 { return rng.Uint64N(u.n) }

// zipfTheta is YCSB's zipfian constant (ZipfianGenerator.ZIPFIAN_CONSTANT).
const zipfTheta = 0.99

// zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly generating billion-record synthetic
// databases"): rank r has probability about 1/(r+1)^0.99 / zeta(n). Ranks are spread over the key
// space by a fixed permutation, so the hot keys are not the first keys (YCSB scrambles them with a
// hash; a permutation keeps the distribution exact).
type zipfian struct {
	n                 uint64
	zetan, alpha, eta float64
	threshold1        float64 // u*zetan below 1 + 0.5^theta: rank 1
	mult, add         uint64  // the permutation: key = (rank*mult + add) mod n
	scramble          bool
}

func newZipfian(n uint64, scramble bool) *zipfian {
	z := &zipfian{n: n, scramble: scramble}
	z.zetan = zeta(n, zipfTheta)
	z.alpha = 1 / (1 - zipfTheta)
	z.eta = (1 - math.Pow(2/float64(n), 1-zipfTheta)) / (1 - zeta(2, zipfTheta)/z.zetan)
	z.threshold1 = 1 + math.Pow(0.5, zipfTheta)
	z.mult = coprime(n, 0x9E3779B97F4A7C15%max(n, 1))
	z.add = 0x2545F4914F6CDD1D % max(n, 1)
	return z
}

// zeta is sum over i = 1..n of 1/i^theta.
func zeta(n uint64, theta float64) float64 {
	s := 0.0
	for i := uint64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// rank draws a rank: 0 is the most frequent.
func (z *zipfian) rank(rng *rand.Rand) uint64 {
	u := rng.Float64()
	uz := u * z.zetan
	switch {
	case uz < 1:
		return 0
	case uz < z.threshold1:
		return min(1, z.n-1)
	}
	r := uint64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(r, z.n-1)
}

func (z *zipfian) next(rng *rand.Rand) uint64 {
	r := z.rank(rng)
	if !z.scramble {
		return r
	}
	return z.keyOfRank(r)
}

// keyOfRank is the permutation of ranks onto keys: (r*mult + add) mod n, mult coprime with n.
func (z *zipfian) keyOfRank(r uint64) uint64 {
	hi, lo := bits.Mul64(r, z.mult)
	_, rem := bits.Div64(hi%z.n, lo, z.n)
	return (rem + z.add) % z.n
}

// coprime returns the first number from start up that shares no factor with n (1 if none below n).
func coprime(n, start uint64) uint64 {
	for m := max(start, 1); m < n; m++ {
		if gcd(m, n) == 1 {
			return m
		}
	}
	return 1
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

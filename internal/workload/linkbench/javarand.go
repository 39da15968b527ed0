package linkbench

// javaRand is java.util.Random's linear congruential generator, bit for bit. LinkBench seeds its
// shufflers with fixed seeds through java.util.Random (InvertibleShuffler.java:31-50), so the
// permutation of ids, and with it which id gets which out-degree and which ids are hot, is the
// original's only if this generator is.
type javaRand struct{ seed uint64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaMask       = 1<<48 - 1
)

func newJavaRand(seed int64) *javaRand {
	return &javaRand{seed: (uint64(seed) ^ javaMultiplier) & javaMask}
}

func (r *javaRand) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + 0xB) & javaMask
	return int32(r.seed >> (48 - bits))
}

// nextInt is Random.nextInt(bound), bound > 0, with Java's int32 overflow in the rejection test.
func (r *javaRand) nextInt(bound int32) int32 {
	if bound&-bound == bound {
		return int32((int64(bound) * int64(r.next(31))) >> 31)
	}
	for {
		bits := r.next(31)
		val := bits % bound
		if bits-val+(bound-1) >= 0 {
			return val
		}
	}
}

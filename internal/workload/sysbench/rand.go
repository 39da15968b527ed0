package sysbench

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// RandConfig is sysbench's --rand-* options (sb_rand.c:47-66 at 1.0.20).
type RandConfig struct {
	Type     string  // --rand-type: uniform, gaussian, special (the default) or pareto
	SpecIter int     // --rand-spec-iter: uniforms averaged by gaussian and special; 12
	SpecPct  int     // --rand-spec-pct: the width of special's hot band, in % of the range; 1
	SpecRes  int     // --rand-spec-res: the % of special's values drawn in that band; 75
	ParetoH  float64 // --rand-pareto-h: pareto's shape; 0.2
}

// DefaultRand is sysbench 1.0.20's default.
func DefaultRand() RandConfig {
	return RandConfig{Type: "special", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2}
}

// Validate says what is wrong with the options.
func (rc RandConfig) Validate() error {
	switch rc.Type {
	case "uniform", "gaussian", "special", "pareto":
	default:
		return fmt.Errorf("--rand-type %q: give uniform, gaussian, special or pareto (sysbench 1.0.20's)", rc.Type)
	}
	if rc.SpecIter < 1 || rc.SpecPct < 0 || rc.SpecPct > 100 || rc.SpecRes < 0 || rc.SpecRes >= 100 {
		return fmt.Errorf("--rand-spec-iter must be at least 1, --rand-spec-pct 0 to 100 and --rand-spec-res 0 to 99 (got %d, %d, %d)", rc.SpecIter, rc.SpecPct, rc.SpecRes)
	}
	if rc.ParetoH <= 0 || rc.ParetoH >= 1 {
		return fmt.Errorf("--rand-pareto-h must be between 0 and 1 exclusive (got %g)", rc.ParetoH)
	}
	return nil
}

// Rand is one client's generator: sysbench.rand.default with the configured type, and
// sysbench.rand.uniform and .string. The stream is a PCG seeded from --seed, not sysbench's
// xoroshiro128+ seeded from libc's random(): the distributions are sysbench's, the draws are not.
type Rand struct {
	r        *rand.Rand
	def      func(a, b uint32) uint32
	iterMult float64 // 1/iter
	pctMult  float64 // pct/100
	pct2Mult float64 // pct/200
	resMult  float64 // 100/(100-res)
	iter     int
	power    float64 // pareto: ln h / ln(1-h)
}

// NewRand returns a generator over r with rc's type and parameters (sb_rand_init, sb_rand.c).
func NewRand(rc RandConfig, r *rand.Rand) *Rand {
	g := &Rand{r: r, iter: rc.SpecIter, iterMult: 1 / float64(rc.SpecIter),
		pctMult: float64(rc.SpecPct) / 100, pct2Mult: float64(rc.SpecPct) / 200,
		resMult: 100 / (100 - float64(rc.SpecRes)), power: math.Log(rc.ParetoH) / math.Log(1-rc.ParetoH)}
	switch rc.Type {
	case "uniform":
		g.def = g.Uniform
	case "gaussian":
		g.def = g.Gaussian
	case "pareto":
		g.def = g.Pareto
	default:
		g.def = g.Special
	}
	return g
}

// Default is sysbench.rand.default (sb_rand_default): the --rand-type's value in [a, b].
func (g *Rand) Default(a, b uint32) uint32 { return g.def(a, b) }

// Uniform is sb_rand_uniform: a + U*(b-a+1), truncated.
func (g *Rand) Uniform(a, b uint32) uint32 {
	return a + uint32(g.r.Float64()*float64(b-a+1))
}

// Gaussian is sb_rand_gaussian: a + the mean of iter uniforms over [0, b-a+1), truncated.
func (g *Rand) Gaussian(a, b uint32) uint32 {
	t := float64(b - a + 1)
	sum := 0.0
	for range g.iter {
		sum += g.r.Float64() * t
	}
	return a + uint32(sum*g.iterMult)
}

// Special is sb_rand_special: with probability (100-res)% a gaussian over the whole range,
// else a uniform over the middle pct% of it, drawn from the same U (so only the band's upper
// res/100 part is reached).
func (g *Rand) Special(a, b uint32) uint32 {
	t := float64(b - a)
	rnd := g.r.Float64()
	if rnd*t*g.resMult < t {
		sum := 0.0
		for range g.iter {
			sum += g.r.Float64()
		}
		return a + uint32(sum*t*g.iterMult)
	}
	d := t * g.pctMult
	res := rnd*(d+1) + t/2 - t*g.pct2Mult
	return a + uint32(res)
}

// Pareto is sb_rand_pareto: a + (b-a+1) * U^(ln h / ln(1-h)), truncated.
func (g *Rand) Pareto(a, b uint32) uint32 {
	return a + uint32(float64(b-a+1)*math.Pow(g.r.Float64(), g.power))
}

// String fills buf from a template as sb_rand_str does: '#' a uniform digit, '@' a uniform
// lowercase letter, anything else itself.
func (g *Rand) String(buf []byte, template string) []byte {
	buf = buf[:0]
	for i := 0; i < len(template); i++ {
		switch template[i] {
		case '#':
			buf = append(buf, byte(g.Uniform('0', '9')))
		case '@':
			buf = append(buf, byte(g.Uniform('a', 'z')))
		default:
			buf = append(buf, template[i])
		}
	}
	return buf
}

// The templates of c and pad (oltp_common.lua:130-140): groups of 11 digits joined by '-'.
const (
	CTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	PadTemplate = "###########-###########-###########-###########-###########"
)

// Unique is sb_rand_unique (sb_rand.c, from preshing/RandomSequence): a permutation of the
// uint32s, walked from a seeded index, so that oltp_insert's ids with --auto-inc off never repeat.
// Safe for one goroutine; the workload shares one under a lock.
type Unique struct{ index, offset uint32 }

// NewUnique seeds the sequence (rand_unique_seed).
func NewUnique(r *rand.Rand) *Unique {
	idx, off := r.Uint32(), r.Uint32()
	return &Unique{index: permute(permute(idx) + 0x682f0161), offset: permute(permute(off) + 0x46790905)}
}

// Next is the sequence's next value.
func (u *Unique) Next() uint32 {
	i := u.index
	u.index++
	return permute((permute(i) + u.offset) ^ 0x5bf03635)
}

func permute(x uint32) uint32 {
	const prime = 4294967291
	if x >= prime {
		return x
	}
	residue := uint32(uint64(x) * uint64(x) % prime)
	if x <= prime/2 {
		return residue
	}
	return prime - residue
}

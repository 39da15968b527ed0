package linkbench

// Shuffler is the original's InvertibleShuffler (InvertibleShuffler.java:23-101): ids are split
// into residue classes mod groups, and each class is rotated by an offset drawn from
// java.util.Random(seed). It maps popularity (or degree) ranks to ids and back.
type Shuffler struct {
	groups                int64
	n                     int64
	roundedUp, roundedDwn int64
	minGroupSize          int64
	offsets               []int64
}

// The shufflers' seeds and group counts (RealDistribution.java:47-73).
const (
	nlinksShufflerSeed = 20343988438726021 // degree, and requests correlated with degree
	uncorrShufflerSeed = 53238253823453    // requests uncorrelated with degree
	nodeShufflerSeed   = 4766565305853767165
	shufflerGroups     = 1024
)

// NewShuffler returns the permutation of [0, n) that the original builds for seed.
func NewShuffler(seed int64, groups int, n int64) *Shuffler {
	if int64(groups) > n {
		groups = int(n)
	}
	s := &Shuffler{groups: int64(groups), n: n, offsets: make([]int64, groups)}
	s.minGroupSize = int64(int32(n)) / int64(groups) // (int)n / shuffleGroups, as the original
	rng := newJavaRand(seed)
	for i := range s.offsets {
		v := int64(rng.nextInt(int32(s.minGroupSize)))
		if v < 0 {
			v = -v
		}
		s.offsets[i] = v
	}
	s.roundedDwn = n / s.groups * s.groups
	s.roundedUp = s.roundedDwn
	if n != s.roundedDwn {
		s.roundedUp += s.groups
	}
	return s
}

// Permute maps i in [0, n) to its place in the permutation.
func (s *Shuffler) Permute(i int64) int64 { return s.permute(i, false) }

// InvertPermute is Permute's inverse.
func (s *Shuffler) InvertPermute(i int64) int64 { return s.permute(i, true) }

func (s *Shuffler) permute(i int64, inverse bool) int64 {
	group := i % s.groups
	big := group < s.n%s.groups
	rotate := s.offsets[group]
	if inverse {
		if big {
			rotate = s.minGroupSize + 1 - rotate
		} else {
			rotate = s.minGroupSize - rotate
		}
	}
	j := i + s.groups*rotate
	if j < s.n {
		return j
	}
	var r int64
	if big {
		r = j % s.roundedUp
	} else {
		r = j % s.roundedDwn
	}
	if r >= s.n {
		r = group
	}
	return r
}

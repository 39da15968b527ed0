package linkbench

import (
	"math"
	"math/rand/v2"
)

// reqOp is a request type, in the order of the original's cumulative percentages
// (LinkBenchRequest.java:251-268); it is also the op's index in the request step's op types.
type reqOp int

const (
	opAddLink reqOp = iota
	opDeleteLink
	opUpdateLink
	opCountLink
	opGetLink // MULTIGET_LINK
	opGetLinkList
	opAddNode
	opUpdateNode
	opDeleteNode
	opGetNode
	numReqOps
)

// Mix is a workload version: the percentage of each request type, payload medians, and the
// distribution file of out-degrees.
type Mix struct {
	Name                   string
	Pct                    [numReqOps]float64
	LinkMedian, NodeMedian float64 // link_datasize, node_datasize
	Data                   []byte
}

var mixes = map[string]*Mix{
	// FBWorkload.properties of the original.
	"2013": {Name: "2013", LinkMedian: 8, NodeMedian: 128, Data: distribution2013,
		Pct: [numReqOps]float64{8.9886601, 2.9907664, 8.0122125, 4.8863567, 0.5261142, 50.7119145,
			2.5732789, 7.366437, 1.0115914, 12.9326683}},
	// FBWorkload.properties of mdcallag/linkbench.
	"2017": {Name: "2017", LinkMedian: 23, NodeMedian: 168, Data: distribution2017,
		Pct: [numReqOps]float64{5.35038, 0.98401, 4.75589, 4.27898, 12.14725, 22.57039,
			2.61198, 3.06256, 0.25166, 43.9869}},
}

// pick chooses a request type as the original does: r = 100 x uniform, the first type whose
// cumulative percentage is >= r (LinkBenchRequest.java:473-650).
func (m *Mix) pick(rng *rand.Rand) reqOp {
	r := rng.Float64() * 100
	cum := 0.0
	for op := range numReqOps {
		cum += m.Pct[op]
		if r <= cum {
			return op
		}
	}
	return opGetNode // the sum may round just below 100
}

// main is the mix's most frequent request type: the step's main op for per-op costs.
func (m *Mix) main() reqOp {
	best := reqOp(0)
	for op := range numReqOps {
		if m.Pct[op] > m.Pct[best] {
			best = op
		}
	}
	return best
}

// access draws ids [start, start+n) from a Zipf popularity rank mapped through a shuffler
// (AccessDistributions.java:124-145, LinkBenchRequest.java:416-465).
type access struct {
	start int64
	zipf  *Zipf
	shuf  *Shuffler
}

func (a access) id(rng *rand.Rand) int64 {
	return a.start + a.shuf.Permute(a.zipf.Quantile(rng.Float64()))
}

// blend draws from uncorr with probability pUncorr, else from corr (LinkBenchRequest.java:416-434).
type blend struct {
	uncorr, corr access
	pUncorr      float64
}

func (b blend) id(rng *rand.Rand) int64 {
	if rng.Float64() < b.pUncorr {
		return b.uncorr.id(rng)
	}
	return b.corr.id(rng)
}

// Access is the request step's id distributions, shared by all requesters.
type Access struct {
	linkReads, linkWrites blend
	nodeReads, nodeUpdate access
	nodeDelete            *Shuffler // node deletes: uniform, through the node shuffler
	start, n              int64
}

// NewAccess builds the shipped workload's access distributions over ids [start, end)
// (FBWorkload.properties read_*, write_*, node_*): link reads 99.5% Zipf 0.8 uncorrelated with
// degree + 0.5% Zipf 0.8 correlated; link writes 95% Zipf 0.741 uncorrelated + 5% correlated, as
// configured (the original reads the uncorrelated write settings from the read keys,
// Config.java:90, and so does 99.5% Zipf 0.8 + 0.5% Zipf 0.741); node reads Zipf 0.625, node
// updates Zipf 0.606, node deletes uniform.
func NewAccess(start, end int64) *Access {
	n := end - start
	corr := NewShuffler(nlinksShufflerSeed, shufflerGroups, n)
	uncorr := NewShuffler(uncorrShufflerSeed, shufflerGroups, n)
	node := NewShuffler(nodeShufflerSeed, shufflerGroups, n)
	z08, z0741 := NewZipf(n, 0.8), NewZipf(n, 0.741)
	return &Access{
		linkReads:  blend{uncorr: access{start, z08, uncorr}, corr: access{start, z08, corr}, pUncorr: 0.995},
		linkWrites: blend{uncorr: access{start, z0741, uncorr}, corr: access{start, z0741, corr}, pUncorr: 0.95},
		nodeReads:  access{start, NewZipf(n, 0.625), node},
		nodeUpdate: access{start, NewZipf(n, 0.606), node},
		nodeDelete: node,
		start:      start, n: n,
	}
}

func (a *Access) nodeDeleteID(rng *rand.Rand) int64 {
	return a.start + a.nodeDelete.Permute(rng.Int64N(a.n))
}

// The chance that an op's id2 is among the links loaded (ID2Chooser.java:40-43).
const (
	pGetExist    = 0.5
	pUpdateExist = 0.9
	pDeleteExist = 0.9
	pAddExist    = 0.05
)

// id2Range is how many id2s from id1 an op draws from: ceil(nlinks / p), at least 1
// (ID2Chooser.java:169-173).
func id2Range(nlinks int64, p float64) int64 {
	r := int64(math.Ceil(float64(nlinks) / p))
	return max(1, r)
}

// chooseID2 is ID2Chooser.chooseForOp: id1 + rand(range).
func chooseID2(rng *rand.Rand, id1, nlinks int64, p float64) int64 {
	return id1 + rng.Int64N(id2Range(nlinks, p))
}

// chooseID2s is ID2Chooser.chooseMultipleForOp (ID2Chooser.java:122-150): consecutive id2s from
// id1 when the range is no larger than the number asked, else distinct random ones (up to 100
// tries each).
func chooseID2s(rng *rand.Rand, id1, nlinks int64, n int, out []int64) []int64 {
	out = out[:0]
	r := id2Range(nlinks, pGetExist)
	if r <= int64(n) {
		for i := range n {
			out = append(out, id1+int64(i))
		}
		return out
	}
	for range n {
		var id2 int64
		for iters := 0; ; iters++ {
			id2 = id1 + rng.Int64N(r)
			if !contains(out, id2) || iters >= 100 {
				break
			}
		}
		out = append(out, id2)
	}
	return out
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Package keyorder infers an index's insert pattern (archive.Streams, the Insert Benchmark's
// nAsc/nDesc/nRHS/nLHS or inf) from a sample of the keys a step inserted, in commit order: each
// workload's tests read back what a step wrote and check that it is the pattern the workload
// declares (docs/insert-benchmark.md, "Insert patterns").
//
// The inference is statistical and can fail. Keys are grouped into batches (one commit of one
// source: a client, a loader's chunk), and sources whose key ranges overlap into one insert
// point (N clients appending interleaved ids to one table are one stream). An insert point is
// ascending when at least 75% of its consecutive batches ascend (each compared with the batch
// as many before it as the point has writers, which may commit out of order), descending when
// at most 25% do, random otherwise (about 50%); a point of one batch tells nothing and is left
// out. A sample is inf when all its points are random, and an error when random and sequential
// points mix. nAsc is the most ascending insert points active at once; an ascending point is at
// the right end when 75% of its keys land above every key committed before them (but the last
// few batches of its own writers); nRHS is 1 when such points carry at least half a stream's
// share of the ascending keys. nDesc and nLHS likewise.
package keyorder

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dbperf/dbperf/internal/archive"
)

// Insert is one inserted key: Commit orders the commits (equal for the keys of one statement),
// Source says who inserted it.
type Insert[K any] struct {
	Key    K
	Commit int64
	Source int
}

// Sample is what one step inserted into one index, and the keys it held before the step.
type Sample[K any] struct {
	Inserts []Insert[K]
	Before  []K
	Compare func(a, b K) int
	// Writers is how many writers may commit one insert point's batches out of order, when the
	// sample cannot tell them apart as sources (rows read back from a shared table); 0: one
	// writer per source. A batch is compared with the one that many batches before it.
	Writers int
}

// Shares of consecutive batch pairs that ascend, and of an insert point's batches at its end,
// that make a pattern; MinPairs is the fewest pairs a decision needs.
const (
	sequential = 0.75
	MinPairs   = 30
)

// Result is the pattern inferred, with the figures behind it.
type Result struct {
	Streams archive.Streams
	Points  []Point // the insert points, in key order
	Pairs   int     // consecutive batch pairs compared, all points
}

// Point is one insert point: the sources it merges and how its batches went.
type Point struct {
	Sources     []int
	Keys        int
	Pairs       int
	AscFrac     float64 // of consecutive batch pairs that ascend
	RHSFrac     float64 // of keys in batches above every key committed before
	LHSFrac     float64 // of keys in batches below every key committed before
	First, Last int64   // commits
	Asc, Desc   bool
	Right, Left bool
}

func (r Result) String() string {
	code, _ := r.Streams.Code()
	s := fmt.Sprintf("%s from %d pairs;", code, r.Pairs)
	for _, p := range r.Points {
		s += fmt.Sprintf(" [sources %v: %d keys, asc %.2f, rhs %.2f, lhs %.2f, commits %d..%d]",
			p.Sources, p.Keys, p.AscFrac, p.RHSFrac, p.LHSFrac, p.First, p.Last)
	}
	return s
}

type batch[K any] struct {
	min, max K
	commit   int64
	source   int
	n        int
	point    int
}

// Infer infers the sample's pattern; it fails when the sample has too few batches to say.
func Infer[K any](s Sample[K]) (Result, error) {
	batches := group(s)
	points, bs := merge(s, batches)
	var res Result
	for i := range points {
		res.Pairs += points[i].Pairs
	}
	if res.Pairs < MinPairs {
		return res, fmt.Errorf("only %d pairs of consecutive batches: a sample needs at least %d", res.Pairs, MinPairs)
	}
	ends(s, bs, points)
	res.Points = points
	var randomKeys, total int
	for _, p := range points {
		if p.Pairs == 0 { // one batch: no direction to tell, and too small to matter
			continue
		}
		total += p.Keys
		if !p.Asc && !p.Desc {
			randomKeys += p.Keys
		}
	}
	if randomKeys > 0 {
		if randomKeys < total {
			return res, fmt.Errorf("random and sequential insert points mixed, which the code cannot say: %v", res)
		}
		res.Streams = archive.Random
		return res, nil
	}
	res.Streams.Asc = concurrent(points, func(p Point) bool { return p.Asc })
	res.Streams.Desc = concurrent(points, func(p Point) bool { return p.Desc })
	res.Streams.RHS = end(points, res.Streams.Asc, func(p Point) bool { return p.Asc }, func(p Point) bool { return p.Right })
	res.Streams.LHS = end(points, res.Streams.Desc, func(p Point) bool { return p.Desc }, func(p Point) bool { return p.Left })
	return res, nil
}

// group makes the batches: the keys of one commit of one source, in commit order.
func group[K any](s Sample[K]) []batch[K] {
	ins := slices.Clone(s.Inserts)
	slices.SortStableFunc(ins, func(a, b Insert[K]) int {
		return cmp.Or(cmp.Compare(a.Commit, b.Commit), cmp.Compare(a.Source, b.Source))
	})
	var out []batch[K]
	for i, in := range ins {
		if i > 0 && in.Commit == ins[i-1].Commit && in.Source == ins[i-1].Source {
			b := &out[len(out)-1]
			if s.Compare(in.Key, b.min) < 0 {
				b.min = in.Key
			}
			if s.Compare(in.Key, b.max) > 0 {
				b.max = in.Key
			}
			b.n++
			continue
		}
		out = append(out, batch[K]{min: in.Key, max: in.Key, commit: in.Commit, source: in.Source, n: 1})
	}
	return out
}

// merge joins sources whose key ranges overlap into insert points and measures each point's
// consecutive batches.
func merge[K any](s Sample[K], batches []batch[K]) ([]Point, []batch[K]) {
	type span struct {
		source   int
		min, max K
	}
	bySource := map[int]*span{}
	for _, b := range batches {
		sp, ok := bySource[b.source]
		if !ok {
			bySource[b.source] = &span{b.source, b.min, b.max}
			continue
		}
		if s.Compare(b.min, sp.min) < 0 {
			sp.min = b.min
		}
		if s.Compare(b.max, sp.max) > 0 {
			sp.max = b.max
		}
	}
	spans := make([]*span, 0, len(bySource))
	for _, sp := range bySource {
		spans = append(spans, sp)
	}
	slices.SortFunc(spans, func(a, b *span) int { return cmp.Or(s.Compare(a.min, b.min), cmp.Compare(a.source, b.source)) })
	pointOf := map[int]int{}
	var points []Point
	var top K
	for i, sp := range spans {
		if i == 0 || s.Compare(sp.min, top) > 0 { // no overlap with the point so far: a new one
			points = append(points, Point{})
			top = sp.max
		} else if s.Compare(sp.max, top) > 0 {
			top = sp.max
		}
		p := len(points) - 1
		points[p].Sources = append(points[p].Sources, sp.source)
		pointOf[sp.source] = p
	}
	history := make([][]*batch[K], len(points))
	asc := make([]int, len(points))
	for i := range batches {
		b := &batches[i]
		b.point = pointOf[b.source]
		p := &points[b.point]
		if p.Keys == 0 {
			p.First = b.commit
		}
		p.Keys += b.n
		p.Last = b.commit
		h := history[b.point]
		if lag := s.writers(*p); len(h) >= lag && h[len(h)-lag].commit != b.commit {
			switch c := s.Compare(h[len(h)-lag].min, b.min); {
			case c < 0:
				asc[b.point]++
				p.Pairs++
			case c > 0:
				p.Pairs++
			}
		}
		history[b.point] = append(h, b)
	}
	for i := range points {
		p := &points[i]
		if p.Pairs > 0 {
			p.AscFrac = float64(asc[i]) / float64(p.Pairs)
		}
		p.Asc = p.Pairs > 0 && p.AscFrac >= sequential
		p.Desc = p.Pairs > 0 && p.AscFrac <= 1-sequential
	}
	return points, batches
}

// writers is how many writers may commit a point's batches out of order.
func (s Sample[K]) writers(p Point) int { return max(s.Writers, len(p.Sources), 1) }

// ends measures how much of each point's keys land beyond every key committed before them: the
// keys before the step, the other points' batches, and the point's own batches but its last
// few (as many as it has writers less one, which may commit out of order).
func ends[K any](s Sample[K], batches []batch[K], points []Point) {
	type bound struct {
		set      bool
		min, max K
	}
	widen := func(b *bound, lo, hi K) {
		if !b.set || s.Compare(lo, b.min) < 0 {
			b.min = lo
		}
		if !b.set || s.Compare(hi, b.max) > 0 {
			b.max = hi
		}
		b.set = true
	}
	var before bound
	for _, k := range s.Before {
		widen(&before, k, k)
	}
	seen := make([]bound, len(points))   // per point: the others' batches, its own out of its window
	window := make([][]int, len(points)) // each point's last batches, by index
	right, left := make([]int, len(points)), make([]int, len(points))
	for i, b := range batches {
		lim := before // every key committed before b that b's stream must pass
		if seen[b.point].set {
			widen(&lim, seen[b.point].min, seen[b.point].max)
		}
		if !lim.set || s.Compare(b.min, lim.max) > 0 {
			right[b.point] += b.n
		}
		if !lim.set || s.Compare(b.max, lim.min) < 0 {
			left[b.point] += b.n
		}
		w := append(window[b.point], i)
		if keep := s.writers(points[b.point]) - 1; len(w) > keep {
			old := batches[w[0]]
			widen(&seen[b.point], old.min, old.max)
			w = w[1:]
		}
		window[b.point] = w
		for j := range points {
			if j != b.point {
				widen(&seen[j], b.min, b.max)
			}
		}
	}
	for i := range points {
		p := &points[i]
		p.RHSFrac = float64(right[i]) / float64(p.Keys)
		p.LHSFrac = float64(left[i]) / float64(p.Keys)
		p.Right, p.Left = p.RHSFrac >= sequential, p.LHSFrac >= sequential
	}
}

// concurrent is the most points of a kind active at one commit; a point that ends where another
// begins (a loader taking its next chunk within one statement) does not overlap it.
func concurrent(points []Point, kind func(Point) bool) int {
	type event struct {
		at    int64
		delta int
	}
	var evs []event
	for _, p := range points {
		if kind(p) {
			evs = append(evs, event{p.First, 1}, event{p.Last, -1})
		}
	}
	slices.SortFunc(evs, func(a, b event) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	n, most := 0, 0
	for _, e := range evs {
		n += e.delta
		most = max(most, n)
	}
	return most
}

// end is 1 when the points at an end carry at least half a stream's share of the keys of their
// kind (streams of them).
func end(points []Point, streams int, kind, atEnd func(Point) bool) int {
	if streams == 0 {
		return 0
	}
	var atEndKeys, kindKeys int
	for _, p := range points {
		if !kind(p) {
			continue
		}
		kindKeys += p.Keys
		if atEnd(p) {
			atEndKeys += p.Keys
		}
	}
	if atEndKeys > 0 && 2*streams*atEndKeys >= kindKeys {
		return 1
	}
	return 0
}

package linkbench

import (
	"context"
	"hash"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dbperf/dbperf/internal/measure"
)

// historyLimit is the size of each requester's cache of link lists that filled a page
// (LinkBenchRequest.java:242).
const historyLimit = 2048

// pHistory is the chance that GET_LINKS_LIST pages on through a cached list
// (getlinklist_history = 0.3 %).
const pHistory = 0.003

// pair is (id1, link_type).
type pair struct{ id1, linkType int64 }

// history is the original's listTailHistory (LinkBenchRequest.java:130-136, 943-986): the
// last link of lists that returned a full page, to page on from.
type history struct {
	entries []Link
	index   map[pair]int
}

func (h *history) add(rng *rand.Rand, l Link) {
	k := pair{l.ID1, l.LinkType}
	if _, ok := h.index[k]; ok {
		return
	}
	if len(h.entries) < historyLimit {
		h.entries = append(h.entries, l)
		h.index[k] = len(h.entries) - 1
		return
	}
	h.remove(rng.IntN(len(h.entries)), &l)
}

// remove drops entry pos, putting repl (or the last entry) in its place.
func (h *history) remove(pos int, repl *Link) {
	delete(h.index, pair{h.entries[pos].ID1, h.entries[pos].LinkType})
	last := len(h.entries) - 1
	if repl == nil {
		if pos != last {
			h.entries[pos] = h.entries[last]
			h.index[pair{h.entries[pos].ID1, h.entries[pos].LinkType}] = pos
		}
		h.entries = h.entries[:last]
		return
	}
	h.entries[pos] = *repl
	h.index[pair{repl.ID1, repl.LinkType}] = pos
}

// reqStats are what a requester counts beside latency, for the step's figures and checks.
type reqStats struct {
	historyQueries int64
	listRows       int64 // rows returned by link lists
	multigetAsked  int64 // id2s asked by multigets
	multigetFound  int64
	linksInserted  int64 // ADD/UPDATE_LINK that inserted a new row
	nodesAdded     int64
	nodesDeleted   int64
	// touched lists the (id1, link_type) pairs written, repeats included: at 2*maxTouched
	// entries compactTouched sorts and dedupes it, and if maxTouched or more distinct pairs
	// remain the list stops growing (touchedLost). A slice, as a write's append is sequential
	// where a map's insert misses the cache.
	touched     []pair
	touchedLost bool // pairs written after the list stopped growing are not in it
}

// maxTouched bounds each requester's record of the pairs it wrote, checked after the step.
const maxTouched = 200000

// requester is one client of the request step. prepare draws an operation and its arguments;
// exec runs it, and runs it again unchanged when the runner retries it.
type requester struct {
	b      *Bench
	conn   Conn
	rng    *rand.Rand
	mix    *Mix
	linkUp *motif // link_add_datagen and link_up_datagen are separate generators
	linkAd *motif
	nodeUp *motif
	nodeAd *motif
	hist   history
	stats  reqStats
	warm   warmStats   // the counts when the warm-up ended, which the figures leave out
	sum    hash.Hash64 // of every result read, for the same-results test; nil unless Config.SumResults

	// The prepared operation.
	op      reqOp
	link    Link
	id2s    []int64
	node    Node
	histPos int // the history entry paged from, or -1
	out     []Link
	scratch [8]byte
}

func newRequester(b *Bench, conn Conn, rng *rand.Rand) *requester {
	r := &requester{b: b, conn: conn, rng: rng, mix: b.mix, linkUp: linkMotif(), linkAd: linkMotif(),
		nodeUp: nodeMotif(), nodeAd: nodeMotif(), hist: history{index: map[pair]int{}}}
	if b.cfg.SumResults {
		r.sum = fnv.New64a()
	}
	return r
}

// do is the requester's runner.DoFunc.
func (r *requester) do(ctx context.Context, attempt int) (measure.Op, int64, error) {
	if attempt == 0 {
		r.prepare()
	}
	return measure.Op(r.op), 1, r.exec(ctx)
}

func (r *requester) linkType() int64 { return FirstLinkType + r.rng.Int64N(LinkTypes) }

func (r *requester) prepare() {
	b, rng := r.b, r.rng
	r.op = r.mix.pick(rng)
	r.histPos = -1
	now := b.now()
	switch r.op {
	case opAddLink, opUpdateLink:
		id1 := b.access.linkWrites.id(rng)
		lt := r.linkType()
		p, gen := pAddExist, r.linkAd
		if r.op == opUpdateLink {
			p, gen = pUpdateExist, r.linkUp
		}
		id2 := chooseID2(rng, id1, b.degrees.PerType(id1, lt), p)
		data := gen.fill(rng, nil, dataSize(rng, r.mix.LinkMedian, maxLinkData))
		r.link = Link{ID1: id1, LinkType: lt, ID2: id2, Visibility: VisibilityDefault, Data: data, Time: now.UnixMilli()}
	case opDeleteLink:
		id1 := b.access.linkWrites.id(rng)
		lt := r.linkType()
		r.link = Link{ID1: id1, LinkType: lt, ID2: chooseID2(rng, id1, b.degrees.PerType(id1, lt), pDeleteExist)}
	case opCountLink:
		r.link = Link{ID1: b.access.linkReads.id(rng), LinkType: r.linkType()}
	case opGetLink:
		id1 := b.access.linkReads.id(rng)
		lt := r.linkType()
		n := multigetSize(rng.Float64())
		r.link = Link{ID1: id1, LinkType: lt}
		r.id2s = chooseID2s(rng, id1, b.degrees.PerType(id1, lt), n, r.id2s)
	case opGetLinkList:
		if rng.Float64() < pHistory && len(r.hist.entries) > 0 {
			r.histPos = rng.IntN(len(r.hist.entries))
			r.link = r.hist.entries[r.histPos]
		} else {
			r.link = Link{ID1: b.access.linkReads.id(rng), LinkType: r.linkType(), Time: math.MaxInt64}
		}
	case opAddNode:
		data := r.nodeAd.fill(rng, nil, dataSize(rng, r.mix.NodeMedian, maxNodeData))
		r.node = Node{ID: b.newNodeID(), Type: NodeType, Version: 1, Time: now.Unix(), Data: data}
	case opUpdateNode:
		id := b.access.nodeUpdate.id(rng)
		data := r.nodeUp.fill(rng, nil, dataSize(rng, r.mix.NodeMedian, maxNodeData))
		r.node = Node{ID: id, Type: NodeType, Version: 2, Time: now.Unix(), Data: data}
	case opDeleteNode:
		r.node = Node{ID: b.access.nodeDeleteID(rng), Type: NodeType}
	case opGetNode:
		r.node = Node{ID: b.access.nodeReads.id(rng), Type: NodeType}
	}
}

// Payload limits: link data is varchar(255) and sizes are clamped below it; node data below
// 1 MiB (LinkStore.MAX_LINK_DATA, NodeStore.MAX_NODE_DATA).
const (
	maxLinkData = 255
	maxNodeData = 1 << 20
)

func (r *requester) touch(l *Link) {
	st := &r.stats
	if st.touchedLost {
		return
	}
	if len(st.touched) >= 2*maxTouched {
		st.touched = compactTouched(st.touched)
		if len(st.touched) >= maxTouched {
			st.touchedLost = true
			return
		}
	}
	st.touched = append(st.touched, pair{l.ID1, l.LinkType})
}

// compactTouched sorts pairs and drops repeats.
func compactTouched(pairs []pair) []pair {
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.id1 != b.id1 {
			return cmpInt(a.id1, b.id1)
		}
		return cmpInt(a.linkType, b.linkType)
	})
	return slices.Compact(pairs)
}

func (r *requester) exec(ctx context.Context) error {
	c, l := r.conn, &r.link
	var err error
	switch r.op {
	case opAddLink, opUpdateLink:
		var inserted bool
		if inserted, err = c.AddLink(ctx, l, r.b.now().UnixMilli()); err == nil {
			r.touch(l)
			if inserted {
				r.stats.linksInserted++
			}
		}
	case opDeleteLink:
		if _, err = c.DeleteLink(ctx, l.ID1, l.LinkType, l.ID2, r.b.now().UnixMilli()); err == nil {
			r.touch(l)
		}
	case opCountLink:
		var n int64
		if n, err = c.CountLinks(ctx, l.ID1, l.LinkType); err == nil {
			r.hashInt(n)
		}
	case opGetLink:
		if r.out, err = c.GetLinks(ctx, l.ID1, l.LinkType, r.id2s, r.out[:0]); err == nil {
			r.stats.multigetAsked += int64(len(r.id2s))
			r.stats.multigetFound += int64(len(r.out))
			r.hashLinks(r.out)
		}
	case opGetLinkList:
		err = r.linkList(ctx)
	case opAddNode:
		if err = c.AddNode(ctx, &r.node); err == nil {
			r.stats.nodesAdded++
		}
	case opUpdateNode:
		_, err = c.UpdateNode(ctx, &r.node)
	case opDeleteNode:
		var deleted bool
		if deleted, err = c.DeleteNode(ctx, r.node.Type, r.node.ID); err == nil && deleted {
			r.stats.nodesDeleted++
		}
	case opGetNode:
		var n Node
		var found bool
		if n, found, err = c.GetNode(ctx, r.node.Type, r.node.ID); err == nil && found && r.sum != nil {
			r.hashInt(n.ID, n.Version, n.Time)
			r.sum.Write(n.Data)
		}
	}
	return err
}

// linkList is GET_LINKS_LIST, a first page or, from the history, the next page of a long list
// (LinkBenchRequest.java:578-597, 882-937).
func (r *requester) linkList(ctx context.Context) error {
	l := &r.link
	offset := 0
	if r.histPos >= 0 {
		offset = 1 // the original pages on with time <= last time, offset 1
	}
	var err error
	r.out, err = r.conn.GetLinkList(ctx, l.ID1, l.LinkType, 0, l.Time, offset, RangeLimit, r.out[:0])
	if err != nil {
		return err
	}
	r.stats.listRows += int64(len(r.out))
	r.hashLinks(r.out)
	full := len(r.out) >= RangeLimit
	switch {
	case r.histPos < 0 && full:
		r.hist.add(r.rng, r.out[len(r.out)-1].key())
	case r.histPos >= 0:
		r.stats.historyQueries++
		if full {
			r.hist.entries[r.histPos] = r.out[len(r.out)-1].key()
		} else {
			r.hist.remove(r.histPos, nil)
		}
	}
	return nil
}

// key is the part of a link the history keeps.
func (l Link) key() Link { return Link{ID1: l.ID1, LinkType: l.LinkType, Time: l.Time} }

func (r *requester) hashInt(vs ...int64) {
	if r.sum == nil {
		return
	}
	for _, v := range vs {
		for i := range r.scratch {
			r.scratch[i] = byte(v >> (8 * i))
		}
		r.sum.Write(r.scratch[:])
	}
}

func (r *requester) hashLinks(ls []Link) {
	if r.sum == nil {
		return
	}
	for i := range ls {
		l := &ls[i]
		r.hashInt(l.ID1, l.LinkType, l.ID2, int64(l.Visibility), l.Time, l.Version)
		r.sum.Write(l.Data)
	}
}

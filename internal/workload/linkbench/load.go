package linkbench

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// The load step's op types, as indexes of its declared ops.
const (
	loadLinks measure.Op = iota
	loadCounts
	loadNodes
)

// chunks hands out ids in chunks of ChunkIDs, the highest first, as the original queues them
// in reverse (LinkBenchDriver.java:330-351).
type chunks struct {
	start, end, size int64
	taken            atomic.Int64
	count            int64
	stop             int64 // a shard's chunks end here (shard.go); 0: at count
}

func newChunks(start, end, size int64) *chunks {
	return &chunks{start: start, end: end, size: size, count: (end - start + size - 1) / size}
}

// take returns the next chunk [from, to) and its number, or false when all are taken.
func (c *chunks) take() (from, to, k int64, ok bool) {
	k = c.taken.Add(1) - 1
	if k >= c.count || (c.stop > 0 && k >= c.stop) {
		return 0, 0, 0, false
	}
	from = c.start + (c.count-1-k)*c.size
	return from, min(from+c.size, c.end), k, true
}

// prepSchedule is a closed loop whose worker prepares its next statement before it is due, so
// that generating rows is not timed, and ends when prepare has nothing left.
type prepSchedule struct{ prepare func() bool }

// Next implements runner.Schedule.
func (s prepSchedule) Next(ctx context.Context, _ runner.Tick) (time.Time, bool) {
	if ctx.Err() != nil || !s.prepare() {
		return time.Time{}, false
	}
	return time.Now(), true
}

// linkLoader is one of the load step's link loaders (LinkBenchLoad.java:184-377): it takes
// chunks of ids, generates each id's links type by type, and writes them Batch rows to a
// statement, each statement its own transaction; the count rows it computes go out in their
// own Batch-row statements.
type linkLoader struct {
	b      *Bench
	step   string
	conn   Conn
	rng    *rand.Rand // the current chunk's
	gen    *motif
	chunks *chunks
	now    int64 // ms: link times are uniform over the 2^32 ms before it

	// Generation state: id1 of chunk [id1, to), the type, link j of n.
	id1, to    int64
	typeNum, j int64
	n          int64
	newest     int64 // the newest time of the current (id1, type)
	done       bool

	links  []Link
	counts []Count
	// The statement prepared: links or counts, resent unchanged on a retry.
	op      measure.Op
	pending int
}

// prepare readies the next statement; false when the loader is done.
func (l *linkLoader) prepare() bool {
	batch := l.b.cfg.Batch
	if len(l.counts) >= batch {
		l.op, l.pending = loadCounts, batch
		return true
	}
	l.fill(batch)
	switch {
	case len(l.links) > 0:
		l.op, l.pending = loadLinks, min(batch, len(l.links))
	case len(l.counts) > 0:
		l.op, l.pending = loadCounts, min(batch, len(l.counts))
	default:
		return false
	}
	return true
}

// fill generates links until a statement's worth is ready or the ids run out.
func (l *linkLoader) fill(batch int) {
	for len(l.links) < batch && !l.done {
		if l.j >= l.n { // the current (id1, type) is complete: next type, next id, next chunk
			if l.n > 0 {
				l.counts = append(l.counts, Count{ID1: l.id1, LinkType: FirstLinkType + l.typeNum, Count: l.n, Time: l.newest})
			}
			if !l.advance() {
				l.done = true
				return
			}
			continue
		}
		data := l.gen.fill(l.rng, nil, dataSize(l.rng, l.b.mix.LinkMedian, maxLinkData))
		// time = now - 2^31 + nextInt(): uniform over the 2^32 ms before now (LinkBenchLoad.java:423-427).
		t := l.now - 1<<31 + javaInt(l.rng)
		l.links = append(l.links, Link{ID1: l.id1, LinkType: FirstLinkType + l.typeNum, ID2: l.id1 + l.j,
			Visibility: VisibilityDefault, Data: data, Time: t})
		if l.j == 0 || t > l.newest {
			l.newest = t
		}
		l.j++
	}
}

// advance moves to the next (id1, type) and sets its number of links; false at the end.
func (l *linkLoader) advance() bool {
	if l.to > 0 && l.typeNum+1 < LinkTypes {
		l.typeNum++
	} else {
		l.typeNum = 0
		if l.to > 0 {
			l.id1++
		}
		if l.id1 >= l.to {
			from, to, k, ok := l.chunks.take()
			if !ok {
				return false
			}
			l.id1, l.to = from, to
			// Each chunk has its own random stream, as in the original (LoadChunk.rng), so the
			// graph depends on the seed only, not on which loader took which chunk.
			l.rng, l.gen = l.b.rng(l.step, "chunk", int(k)), linkMotif()
		}
	}
	l.j, l.n = 0, l.b.degrees.PerType(l.id1, FirstLinkType+l.typeNum)
	return true
}

// do writes the prepared statement.
func (l *linkLoader) do(ctx context.Context, _ int) (measure.Op, int64, error) {
	n := l.pending
	var err error
	if l.op == loadLinks {
		err = l.conn.LoadLinks(ctx, l.links[:n])
	} else {
		err = l.conn.LoadCounts(ctx, l.counts[:n])
	}
	if err != nil {
		return l.op, 0, err
	}
	if l.op == loadLinks {
		l.links = append(l.links[:0], l.links[n:]...)
	} else {
		l.counts = append(l.counts[:0], l.counts[n:]...)
	}
	l.pending = 0
	return l.op, int64(n), nil
}

// nodeLoader is the load step's node loader (NodeLoader.java:100-226): nodes of ids StartID ..
// MaxID-1 in order, Batch to a statement. The original sends an empty, invalid statement when
// the number of ids is a multiple of the batch; dbperf sends none.
type nodeLoader struct {
	b     *Bench
	conn  Conn
	rng   *rand.Rand
	gen   *motif
	next  int64
	nodes []Node
}

func (n *nodeLoader) prepare() bool {
	if len(n.nodes) > 0 {
		return true
	}
	end := min(n.next+int64(n.b.cfg.Batch), n.b.cfg.MaxID)
	if n.next >= end {
		return false
	}
	secs := n.b.now().Unix()
	for id := n.next; id < end; id++ {
		data := n.gen.fill(n.rng, nil, dataSize(n.rng, n.b.mix.NodeMedian, maxNodeData))
		n.nodes = append(n.nodes, Node{ID: id, Type: NodeType, Version: 1, Time: secs, Data: data})
	}
	n.next = end
	return true
}

func (n *nodeLoader) do(ctx context.Context, _ int) (measure.Op, int64, error) {
	if err := n.conn.LoadNodes(ctx, n.nodes); err != nil {
		return loadNodes, 0, err
	}
	k := int64(len(n.nodes))
	n.nodes = n.nodes[:0]
	return loadNodes, k, nil
}

package lbkv

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// Conn is one client's use of the store; its buffers make it one goroutine's.
type Conn struct {
	s                *Store
	key, key2, val   []byte
	ikey, ival, ckey []byte
	cval             []byte
}

var _ lb.Conn = (*Conn)(nil)

// LoadLinks implements linkbench.Conn: a link that exists keeps its row and takes the new
// visibility, as the original's INSERT ... ON DUPLICATE KEY UPDATE visibility does. Loaders
// write disjoint ids and nothing else writes during the load, so it takes no locks; the reads
// come before the batch (bbolt must not read inside its write transaction).
func (c *Conn) LoadLinks(_ context.Context, links []lb.Link) error {
	type put struct {
		l, old lb.Link
		found  bool
	}
	puts := make([]put, 0, len(links))
	for _, l := range links {
		old, found, err := c.readLink(l.ID1, l.LinkType, l.ID2)
		if err != nil {
			return err
		}
		if found {
			if old.Visibility == l.Visibility {
				continue
			}
			vis := l.Visibility
			l = old
			l.Visibility = vis
		}
		puts = append(puts, put{l, old, found})
	}
	return c.s.db.Write(func(w kvdriver.Writer) error {
		for i := range puts {
			if err := c.putLink(w, &puts[i].l, puts[i].found, &puts[i].old); err != nil {
				return err
			}
		}
		return nil
	})
}

// putLink writes a link and keeps its index entry in step: only visible links are indexed.
func (c *Conn) putLink(w kvdriver.Writer, l *lb.Link, hadOld bool, old *lb.Link) error {
	if hadOld && old.Visibility == lb.VisibilityDefault {
		if err := w.Delete(indexKey(c.ikey, old.ID1, old.LinkType, old.Time, old.ID2)); err != nil {
			return err
		}
	}
	c.key = linkKey(c.key, l.ID1, l.LinkType, l.ID2)
	c.val = linkValue(c.val, l)
	if err := w.Set(c.key, c.val); err != nil {
		return err
	}
	if l.Visibility != lb.VisibilityDefault {
		return nil
	}
	c.ikey = indexKey(c.ikey, l.ID1, l.LinkType, l.Time, l.ID2)
	c.ival = indexValue(c.ival, l)
	return w.Set(c.ikey, c.ival)
}

// LoadCounts implements linkbench.Conn (REPLACE).
func (c *Conn) LoadCounts(_ context.Context, counts []lb.Count) error {
	return c.s.db.Write(func(w kvdriver.Writer) error {
		for i := range counts {
			c.ckey = countKey(c.ckey, counts[i].ID1, counts[i].LinkType)
			c.cval = countValue(c.cval, &counts[i])
			if err := w.Set(c.ckey, c.cval); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoadNodes implements linkbench.Conn.
func (c *Conn) LoadNodes(_ context.Context, nodes []lb.Node) error {
	return c.s.db.Write(func(w kvdriver.Writer) error {
		for i := range nodes {
			c.key = nodeKey(c.key, nodes[i].ID)
			c.val = nodeValue(c.val, &nodes[i])
			if err := w.Set(c.key, c.val); err != nil {
				return err
			}
		}
		return nil
	})
}

// readLink reads one link; found is false if it does not exist.
func (c *Conn) readLink(id1, lt, id2 int64) (lb.Link, bool, error) {
	var l lb.Link
	c.key2 = linkKey(c.key2, id1, lt, id2)
	found, err := c.s.db.Get(c.key2, func(v []byte) { decodeLink(c.key2, v, &l) })
	return l, found, err
}

// updateCount adds delta to a count, never below 0, creating the row with max(delta, 0); the
// version counts updates (LinkStoreMysql.java:377-398, 560-577).
func (c *Conn) updateCount(w kvdriver.Writer, id1, lt, delta, nowMs int64) error {
	c.ckey = countKey(c.ckey, id1, lt)
	cnt := lb.Count{ID1: id1, LinkType: lt, Count: max(delta, 0), Time: nowMs}
	var old lb.Count
	found, err := c.s.db.Get(c.ckey, func(v []byte) { decodeCount(c.ckey, v, &old) })
	if err != nil {
		return err
	}
	if found {
		cnt.Count, cnt.Version = max(old.Count+delta, 0), old.Version+1
	}
	c.cval = countValue(c.cval, &cnt)
	return w.Set(c.ckey, c.cval)
}

// AddLink implements linkbench.Conn.
func (c *Conn) AddLink(_ context.Context, l *lb.Link, nowMs int64) (bool, error) {
	mu := c.s.lock('l', l.ID1)
	mu.Lock()
	defer mu.Unlock()
	old, found, err := c.readLink(l.ID1, l.LinkType, l.ID2)
	if err != nil {
		return false, err
	}
	return !found, c.s.db.Write(func(w kvdriver.Writer) error {
		if err := c.putLink(w, l, found, &old); err != nil {
			return err
		}
		if (!found || old.Visibility != lb.VisibilityDefault) && l.Visibility == lb.VisibilityDefault {
			return c.updateCount(w, l.ID1, l.LinkType, 1, nowMs)
		}
		return nil
	})
}

// DeleteLink implements linkbench.Conn.
func (c *Conn) DeleteLink(_ context.Context, id1, lt, id2, nowMs int64) (bool, error) {
	mu := c.s.lock('l', id1)
	mu.Lock()
	defer mu.Unlock()
	old, found, err := c.readLink(id1, lt, id2)
	if err != nil || !found || old.Visibility != lb.VisibilityDefault {
		return found, err
	}
	return true, c.s.db.Write(func(w kvdriver.Writer) error {
		l := old
		l.Visibility = lb.VisibilityHidden
		if err := c.putLink(w, &l, true, &old); err != nil {
			return err
		}
		return c.updateCount(w, id1, lt, -1, nowMs)
	})
}

// GetLinks implements linkbench.Conn: point reads, in id2 order.
func (c *Conn) GetLinks(_ context.Context, id1, lt int64, id2s []int64, out []lb.Link) ([]lb.Link, error) {
	sorted := slices.Clone(id2s)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	for _, id2 := range sorted {
		l, found, err := c.readLink(id1, lt, id2)
		if err != nil {
			return out, err
		}
		if found {
			out = append(out, l)
		}
	}
	return out, nil
}

// GetLinkList implements linkbench.Conn: a range scan of the covering index.
func (c *Conn) GetLinkList(ctx context.Context, id1, lt, minTime, maxTime int64, offset, limit int, out []lb.Link) ([]lb.Link, error) {
	if maxTime < minTime || limit <= 0 {
		return out, nil
	}
	lower := indexKey(c.ikey, id1, lt, maxTime, math.MaxInt64)
	c.ival = indexKey(c.ival, id1, lt, minTime, math.MinInt64)
	upper := kvdriver.PrefixEnd(c.ival)
	skipped, n := 0, 0
	err := c.s.scan(ctx, lower, upper, func(k, v []byte) error {
		if skipped < offset {
			skipped++
			return nil
		}
		var l lb.Link
		decodeIndex(k, v, &l)
		out = append(out, l)
		if n++; n >= limit {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return out, err
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// CountLinks implements linkbench.Conn.
func (c *Conn) CountLinks(_ context.Context, id1, lt int64) (int64, error) {
	var cnt lb.Count
	c.ckey = countKey(c.ckey, id1, lt)
	_, err := c.s.db.Get(c.ckey, func(v []byte) { decodeCount(c.ckey, v, &cnt) })
	return cnt.Count, err
}

// CountVisible implements linkbench.Conn from linktable.
func (c *Conn) CountVisible(ctx context.Context, id1, lt int64) (int64, error) {
	p := appendInts(append([]byte(nil), linkSpace...), id1, lt)
	var n int64
	err := c.s.scanSpace(ctx, p, func(_, v []byte) error {
		if v[0] == byte(lb.VisibilityDefault) {
			n++
		}
		return nil
	})
	return n, err
}

// AddNode implements linkbench.Conn.
func (c *Conn) AddNode(ctx context.Context, n *lb.Node) error {
	return c.LoadNodes(ctx, []lb.Node{*n})
}

// readNode reads a node under its lock.
func (c *Conn) readNode(id int64) (lb.Node, bool, error) {
	var n lb.Node
	c.key2 = nodeKey(c.key2, id)
	found, err := c.s.db.Get(c.key2, func(v []byte) { decodeNode(c.key2, v, &n) })
	return n, found, err
}

// UpdateNode implements linkbench.Conn.
func (c *Conn) UpdateNode(_ context.Context, n *lb.Node) (bool, error) {
	mu := c.s.lock('n', n.ID)
	mu.Lock()
	defer mu.Unlock()
	old, found, err := c.readNode(n.ID)
	if err != nil || !found || old.Type != n.Type {
		return false, err
	}
	return true, c.s.db.Write(func(w kvdriver.Writer) error {
		c.key = nodeKey(c.key, n.ID)
		c.val = nodeValue(c.val, n)
		return w.Set(c.key, c.val)
	})
}

// DeleteNode implements linkbench.Conn.
func (c *Conn) DeleteNode(_ context.Context, nodeType int32, id int64) (bool, error) {
	mu := c.s.lock('n', id)
	mu.Lock()
	defer mu.Unlock()
	old, found, err := c.readNode(id)
	if err != nil || !found || old.Type != nodeType {
		return false, err
	}
	return true, c.s.db.Write(func(w kvdriver.Writer) error { return w.Delete(nodeKey(c.key, id)) })
}

// GetNode implements linkbench.Conn.
func (c *Conn) GetNode(_ context.Context, nodeType int32, id int64) (lb.Node, bool, error) {
	n, found, err := c.readNode(id)
	return n, found && n.Type == nodeType, err
}

// Close implements linkbench.Conn.
func (c *Conn) Close() error { return nil }

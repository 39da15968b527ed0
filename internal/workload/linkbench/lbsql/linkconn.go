package lbsql

import (
	"context"
	"errors"
	"slices"

	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// statements are one connection's SQL texts, built once.
type statements struct {
	selectVis, update, hide, inc, dec, list, count, visible string
	addNode, updateNode, deleteNode, getNode                string
}

// Conn is one client's connection to LinkBench's tables.
type Conn struct {
	c        conn
	d        dialect
	sql      statements
	getLinks map[int]string    // by number of id2s
	loads    map[[2]int]string // by table (0 links, 1 counts, 2 nodes) and rows
	args     []any
	scan     scanTarget
	// multiget runs MULTIGET_LINK: the connection's query, or its text form in prepared mode
	// on MySQL, as the fork sends it (LinkStoreSql.java multigetLinksImpl).
	multiget func(ctx context.Context, q string, args []any, fn func(rows) error) error
}

var _ lb.Conn = (*Conn)(nil)

func (c *Conn) load(table, n int) string {
	k := [2]int{table, n}
	q, ok := c.loads[k]
	if !ok {
		switch table {
		case 0:
			q = c.d.loadLinks(n)
		case 1:
			q = c.d.loadCounts(n)
		default:
			q = c.d.loadNodes(n)
		}
		c.loads[k] = q
	}
	return q
}

// tx runs fn in a write transaction: committed if fn succeeds, rolled back otherwise (also
// when the DBMS already aborted it, as after a deadlock), so the caller may retry.
//
// On MySQL's lean path BEGIN goes in the same write as the transaction's first statement,
// saving a round trip per transaction (measured: docs/linkbench.md "Beside the Java client"):
// the references start theirs with none, on a connection with autocommit off.
func (c *Conn) tx(ctx context.Context, fn func() error) error {
	if q, ok := c.c.(interface{ queueBegin(string) error }); ok {
		if err := q.queueBegin(c.d.begin); err != nil {
			return err
		}
	} else if _, err := c.c.exec(ctx, c.d.begin); err != nil {
		return err
	}
	err := fn()
	if err == nil {
		_, err = c.c.exec(ctx, "COMMIT")
	}
	if err != nil {
		// The rollback's own error says nothing more: after a deadlock the DBMS has already
		// rolled back, and a broken connection fails the retry anyway.
		c.c.exec(context.WithoutCancel(ctx), "ROLLBACK")
	}
	return err
}

// LoadLinks implements linkbench.Conn (LinkStoreMysql.java:430-463, 829-837).
func (c *Conn) LoadLinks(ctx context.Context, links []lb.Link) error {
	c.args = c.args[:0]
	for i := range links {
		l := &links[i]
		c.args = append(c.args, l.ID1, l.ID2, l.LinkType, int64(l.Visibility), l.Data, l.Time, l.Version)
	}
	return c.tx(ctx, func() error {
		_, err := c.c.exec(ctx, c.load(0, len(links)), c.args...)
		return err
	})
}

// LoadCounts implements linkbench.Conn (LinkStoreMysql.java:854-886).
func (c *Conn) LoadCounts(ctx context.Context, counts []lb.Count) error {
	c.args = c.args[:0]
	for _, n := range counts {
		c.args = append(c.args, n.ID1, n.LinkType, n.Count, n.Time, n.Version)
	}
	return c.tx(ctx, func() error {
		_, err := c.c.exec(ctx, c.load(1, len(counts)), c.args...)
		return err
	})
}

// LoadNodes implements linkbench.Conn (LinkStoreMysql.java:937-976).
func (c *Conn) LoadNodes(ctx context.Context, nodes []lb.Node) error {
	c.args = c.args[:0]
	for _, n := range nodes {
		c.args = append(c.args, n.ID, int64(n.Type), n.Version, n.Time, n.Data)
	}
	return c.tx(ctx, func() error {
		_, err := c.c.exec(ctx, c.load(2, len(nodes)), c.args...)
		return err
	})
}

// AddLink implements linkbench.Conn: insert if missing, else lock the row, read its visibility
// and update it, with the count, in one transaction.
func (c *Conn) AddLink(ctx context.Context, l *lb.Link, nowMs int64) (bool, error) {
	var inserted bool
	err := c.tx(ctx, func() error {
		n, err := c.c.exec(ctx, c.d.insertIfMissing, l.ID1, l.ID2, l.LinkType, int64(l.Visibility), l.Data, l.Time, l.Version)
		if err != nil {
			return err
		}
		inserted = n == 1
		wasVisible := false
		if !inserted {
			vis, found, err := c.visibility(ctx, l.LinkType, l.ID1, l.ID2)
			if err != nil {
				return err
			}
			if !found {
				return errors.New("add_link: the link neither inserted nor found")
			}
			wasVisible = vis == lb.VisibilityDefault
			if _, err := c.c.exec(ctx, c.sql.update, int64(l.Visibility), l.Data, l.Time, l.Version, l.LinkType, l.ID1, l.ID2); err != nil {
				return err
			}
		}
		if (inserted || !wasVisible) && l.Visibility == lb.VisibilityDefault {
			_, err = c.c.exec(ctx, c.sql.inc, l.ID1, l.LinkType, nowMs)
		}
		return err
	})
	return inserted, err
}

func (c *Conn) visibility(ctx context.Context, linkType, id1, id2 int64) (int8, bool, error) {
	var vis int64
	found := false
	err := c.c.query(ctx, c.sql.selectVis, []any{linkType, id1, id2}, func(r rows) error {
		for r.Next() {
			found = true
			if err := r.Scan(&vis); err != nil {
				return err
			}
		}
		return nil
	})
	return int8(vis), found, err
}

// DeleteLink implements linkbench.Conn.
func (c *Conn) DeleteLink(ctx context.Context, id1, linkType, id2, nowMs int64) (bool, error) {
	var found bool
	err := c.tx(ctx, func() error {
		vis, f, err := c.visibility(ctx, linkType, id1, id2)
		if err != nil || !f || vis == lb.VisibilityHidden {
			found = f
			return err
		}
		found = true
		if _, err := c.c.exec(ctx, c.sql.hide, linkType, id1, id2); err != nil {
			return err
		}
		_, err = c.c.exec(ctx, c.sql.dec, id1, linkType, nowMs)
		return err
	})
	return found, err
}

func (c *Conn) readLinks(ctx context.Context, query func(context.Context, string, []any, func(rows) error) error, q string, args []any, out []lb.Link) ([]lb.Link, error) {
	err := query(ctx, q, args, func(r rows) error {
		for r.Next() {
			if len(out) < cap(out) {
				out = out[:len(out)+1] // the element keeps its Data array for scanLink to reuse
			} else {
				out = append(out, lb.Link{})
			}
			if err := c.scan.scanLink(r, &out[len(out)-1]); err != nil {
				out = out[:len(out)-1]
				return err
			}
		}
		return nil
	})
	return out, err
}

// GetLinks implements linkbench.Conn; the rows are put in id2 order here, so the statement is
// the original's.
func (c *Conn) GetLinks(ctx context.Context, id1, linkType int64, id2s []int64, out []lb.Link) ([]lb.Link, error) {
	q, ok := c.getLinks[len(id2s)]
	if !ok {
		q = c.d.getLinks(len(id2s))
		c.getLinks[len(id2s)] = q
	}
	c.args = append(c.args[:0], id1, linkType)
	for _, id2 := range id2s {
		c.args = append(c.args, id2)
	}
	start := len(out)
	out, err := c.readLinks(ctx, c.multiget, q, c.args, out)
	slices.SortFunc(out[start:], func(a, b lb.Link) int { return int(a.ID2 - b.ID2) })
	return out, err
}

// GetLinkList implements linkbench.Conn.
func (c *Conn) GetLinkList(ctx context.Context, id1, linkType, minTime, maxTime int64, offset, limit int, out []lb.Link) ([]lb.Link, error) {
	return c.readLinks(ctx, c.c.query, c.sql.list, []any{id1, linkType, minTime, maxTime, int64(offset), int64(limit)}, out)
}

func (c *Conn) readInt(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := c.c.query(ctx, q, args, func(r rows) error {
		for r.Next() {
			if err := r.Scan(&n); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// CountLinks implements linkbench.Conn (LinkStoreMysql.java:782-807).
func (c *Conn) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	return c.readInt(ctx, c.sql.count, id1, linkType)
}

// CountVisible implements linkbench.Conn.
func (c *Conn) CountVisible(ctx context.Context, id1, linkType int64) (int64, error) {
	return c.readInt(ctx, c.sql.visible, id1, linkType)
}

// AddNode implements linkbench.Conn.
func (c *Conn) AddNode(ctx context.Context, n *lb.Node) error {
	_, err := c.c.exec(ctx, c.sql.addNode, n.ID, int64(n.Type), n.Version, n.Time, n.Data)
	return err
}

// UpdateNode implements linkbench.Conn.
func (c *Conn) UpdateNode(ctx context.Context, n *lb.Node) (bool, error) {
	k, err := c.c.exec(ctx, c.sql.updateNode, n.Version, n.Time, n.Data, n.ID, int64(n.Type))
	return k == 1, err
}

// DeleteNode implements linkbench.Conn.
func (c *Conn) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	k, err := c.c.exec(ctx, c.sql.deleteNode, id, int64(nodeType))
	return k == 1, err
}

// GetNode implements linkbench.Conn: a node of another type is not found
// (LinkStoreMysql.java:991-1011).
func (c *Conn) GetNode(ctx context.Context, nodeType int32, id int64) (lb.Node, bool, error) {
	var n lb.Node
	found := false
	err := c.c.query(ctx, c.sql.getNode, []any{id}, func(r rows) error {
		for r.Next() {
			var err error
			if n, err = c.scan.scanNode(r); err != nil {
				return err
			}
			found = n.Type == nodeType
		}
		return nil
	})
	return n, found, err
}

// Close implements linkbench.Conn.
func (c *Conn) Close() error { return c.c.close() }

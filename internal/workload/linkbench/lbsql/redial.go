package lbsql

import (
	"context"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/runner"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// redialConn is a client's connection that survives the server's restart: an error that says
// the connection is gone comes back as a runner.Lost, whose Redial opens a new Conn (session
// settings, the lean socket, statements prepared again on use), and the runner retries the
// operation, as LinkBench's reference retries its failed transactions (LinkStoreMysql.java's
// retry loops, up to --retries for deadlocks and lock timeouts).
//
// A write transaction whose reply was lost may have committed. Its retry settles what it can:
// a node insert that meets its own id committed; a link write or a node delete is idempotent in
// the database, but its retry cannot tell the client whether the first attempt inserted the
// link or deleted the node, so such retries are counted as in doubt (InDoubt) and the check
// after the step allows exactly that many links or nodes either way (docs/reliability.md).
type redialConn struct {
	*runner.Redial[*Conn]
	// doubt: the last write lost its connection, so its retry may find its own work.
	doubt                  bool
	doubtLinks, doubtNodes int64
}

var _ lb.Conn = (*redialConn)(nil)

// connLost says an error means the connection is gone.
func connLost(err error) bool { return driver.ErrorKind(err) == driver.KindConnLost }

// inner is the Conn a redialConn holds now (tests look inside it).
func inner(c lb.Conn) lb.Conn {
	if r, ok := c.(*redialConn); ok {
		if c, _ := r.Conn(); c != nil {
			return c
		}
		return nil // lost: no typed nil
	}
	return c
}

// InDoubt is how many link inserts and node deletes may have happened without the client
// knowing (their reply was lost, their retry found the work done or never needed).
func (r *redialConn) InDoubt() (links, nodes int64) { return r.doubtLinks, r.doubtNodes }

// lost returns err, as a runner.Lost if it says the connection is gone; write says the
// operation was a write, whose commit is then unknown.
func (r *redialConn) lost(err error, write bool) error {
	if err = r.Check(err); r.Down() && write {
		r.doubt = true
	}
	return err
}

// write runs a write transaction; dup says whether its error means the lost attempt committed
// (a duplicate key on a retry in doubt).
func (r *redialConn) write(fn func(c *Conn) error, dup bool) error {
	c, err := r.Conn()
	if err != nil {
		return err
	}
	err = fn(c)
	if err != nil && dup && r.doubt && driver.DuplicateKey(err) {
		err = nil
	}
	if err == nil {
		r.doubt = false
	}
	return r.lost(err, true)
}

// read runs a read.
func (r *redialConn) read(fn func(c *Conn) error) error {
	c, err := r.Conn()
	if err != nil {
		return err
	}
	return r.Check(fn(c))
}

func (r *redialConn) LoadLinks(ctx context.Context, links []lb.Link) error {
	return r.write(func(c *Conn) error { return c.LoadLinks(ctx, links) }, false)
}

func (r *redialConn) LoadCounts(ctx context.Context, counts []lb.Count) error {
	return r.write(func(c *Conn) error { return c.LoadCounts(ctx, counts) }, false)
}

func (r *redialConn) LoadNodes(ctx context.Context, nodes []lb.Node) error {
	return r.write(func(c *Conn) error { return c.LoadNodes(ctx, nodes) }, true)
}

func (r *redialConn) AddLink(ctx context.Context, l *lb.Link, nowMs int64) (inserted bool, err error) {
	doubt := r.doubt
	err = r.write(func(c *Conn) (err error) { inserted, err = c.AddLink(ctx, l, nowMs); return err }, false)
	if err == nil && doubt && !inserted {
		r.doubtLinks++ // the lost attempt may have inserted it
	}
	return inserted, err
}

func (r *redialConn) DeleteLink(ctx context.Context, id1, linkType, id2, nowMs int64) (found bool, err error) {
	err = r.write(func(c *Conn) (err error) { found, err = c.DeleteLink(ctx, id1, linkType, id2, nowMs); return err }, false)
	return found, err
}

func (r *redialConn) GetLinks(ctx context.Context, id1, linkType int64, id2s []int64, out []lb.Link) ([]lb.Link, error) {
	c, err := r.Conn()
	if err != nil {
		return out, err
	}
	out, err = c.GetLinks(ctx, id1, linkType, id2s, out)
	return out, r.Check(err)
}

func (r *redialConn) GetLinkList(ctx context.Context, id1, linkType, minTime, maxTime int64, offset, limit int, out []lb.Link) ([]lb.Link, error) {
	c, err := r.Conn()
	if err != nil {
		return out, err
	}
	out, err = c.GetLinkList(ctx, id1, linkType, minTime, maxTime, offset, limit, out)
	return out, r.Check(err)
}

func (r *redialConn) CountLinks(ctx context.Context, id1, linkType int64) (n int64, err error) {
	err = r.read(func(c *Conn) (err error) { n, err = c.CountLinks(ctx, id1, linkType); return err })
	return n, err
}

func (r *redialConn) CountVisible(ctx context.Context, id1, linkType int64) (n int64, err error) {
	err = r.read(func(c *Conn) (err error) { n, err = c.CountVisible(ctx, id1, linkType); return err })
	return n, err
}

func (r *redialConn) AddNode(ctx context.Context, n *lb.Node) error {
	return r.write(func(c *Conn) error { return c.AddNode(ctx, n) }, true)
}

func (r *redialConn) UpdateNode(ctx context.Context, n *lb.Node) (ok bool, err error) {
	err = r.write(func(c *Conn) (err error) { ok, err = c.UpdateNode(ctx, n); return err }, false)
	return ok, err
}

func (r *redialConn) DeleteNode(ctx context.Context, nodeType int32, id int64) (deleted bool, err error) {
	doubt := r.doubt
	err = r.write(func(c *Conn) (err error) { deleted, err = c.DeleteNode(ctx, nodeType, id); return err }, false)
	if err == nil && doubt && !deleted {
		r.doubtNodes++ // the lost attempt may have deleted it
	}
	return deleted, err
}

func (r *redialConn) GetNode(ctx context.Context, nodeType int32, id int64) (n lb.Node, found bool, err error) {
	err = r.read(func(c *Conn) (err error) { n, found, err = c.GetNode(ctx, nodeType, id); return err })
	return n, found, err
}

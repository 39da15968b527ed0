package sysbench

import (
	"context"
	"strconv"

	"github.com/dbperf/dbperf/internal/measure"
)

// Tally is what a client's statements did, as sysbench counts them (SQL statistics: read,
// write, other; ignored errors), the events done (sysbench's transactions), and the rows
// oltp_insert added and oltp_delete removed.
type Tally struct {
	Events                        int64
	Reads, Writes, Other, Ignored int64
	Inserted, Deleted             int64
	ByStmt                        [NumStmts]int64 // statements run, by kind
}

func (t *Tally) add(o Tally) {
	t.Events += o.Events
	t.Reads += o.Reads
	t.Writes += o.Writes
	t.Other += o.Other
	t.Ignored += o.Ignored
	t.Inserted += o.Inserted
	t.Deleted += o.Deleted
	for i := range t.ByStmt {
		t.ByStmt[i] += o.ByStmt[i]
	}
}

// Queries is sysbench's "total" queries: reads, writes and other.
func (t Tally) Queries() int64 { return t.Reads + t.Writes + t.Other }

// Client is one sysbench thread: its connection, generator and counts.
type Client struct {
	Tally
	b      *Bench
	conn   Conn
	g      *Rand
	args   [4]Arg
	c, pad []byte
	text   []byte
	seen   bool // the warm-up's end was seen
	// before are the counts of the events that ended before the client saw the warm-up's
	// end (if the step has one: warmup.go), which the figures set aside
	before Tally
}

// NewClient makes client i of a step on conn.
func (b *Bench) NewClient(step string, i int, conn Conn) *Client {
	return &Client{b: b, conn: conn, g: NewRand(b.cfg.Rand, b.rng(step, i))}
}

// do runs an event for the runner. The warm-up's cut falls between two events, for the
// transactions and the queries alike: an event that ends before the client sees the warm-up's
// end (warmup.go) is the warm-up's, with all its statements; one that ends after it, the
// measured part's, even if it began before.
func (c *Client) do(ctx context.Context, _ int) (measure.Op, int64, error) {
	err := c.Event(ctx)
	if err == nil {
		c.Events++
	}
	if !c.seen && !c.b.mark.Passed(&c.seen) {
		c.before = c.Tally
	}
	return OpTrx, 1, err
}

// Event runs one event. An error sysbench ignores rolls the transaction back and runs the
// event again, counted in Ignored (sysbench.sql.lua:247-261, sysbench.lua:28-56), so its
// latency includes the restarts; any other error ends it.
func (c *Client) Event(ctx context.Context) error {
	for {
		err := c.event(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !c.b.store.Ignorable(err) {
			if c.b.ev.Trx {
				c.conn.Rollback(context.WithoutCancel(ctx))
			}
			return err
		}
		c.Ignored++
		if rerr := c.conn.Rollback(ctx); rerr != nil {
			return rerr
		}
	}
}

func (c *Client) table() int { return int(c.g.Uniform(1, uint32(c.b.cfg.Tables))) }

func (c *Client) id() int64 { return int64(c.g.Default(1, uint32(c.b.cfg.TableSize))) }

// exec runs a statement and counts it as sysbench does. The arguments go to the connection in
// the client's own array, so that the variadic slice stays on the stack.
func (c *Client) exec(ctx context.Context, s Stmt, table int, args ...Arg) (Result, error) {
	n := copy(c.args[:], args)
	r, err := c.conn.Exec(ctx, s, table, c.args[:n])
	if err != nil {
		return r, err
	}
	c.count(s, r)
	return r, nil
}

func (c *Client) count(s Stmt, r Result) {
	c.ByStmt[s]++
	switch {
	case s >= Begin: // whatever count the driver reports (SQLite's is the last change's)
		c.Other++
	case r.Rows:
		c.Reads++
	case r.Affected > 0:
		c.Writes++
	default:
		c.Other++
	}
}

// event is the test's event() (oltp_read_write.lua:44-65 and the others), with the statement
// groups of oltp_common.lua:396-490: a uniform table per group, ids by --rand-type.
func (c *Client) event(ctx context.Context) error {
	e, cfg := &c.b.ev, &c.b.cfg
	if e.Trx {
		if _, err := c.exec(ctx, Begin, 0); err != nil {
			return err
		}
	}
	if e.PointSelects > 0 {
		t := c.table()
		for range e.PointSelects {
			if _, err := c.exec(ctx, PointSelect, t, Int(c.id())); err != nil {
				return err
			}
		}
	}
	for _, r := range [...]struct {
		s Stmt
		n int
	}{{SimpleRange, e.SimpleRanges}, {SumRange, e.SumRanges}, {OrderRange, e.OrderRanges}, {DistinctRange, e.DistinctRanges}} {
		if r.n == 0 {
			continue
		}
		t := c.table()
		for range r.n {
			id := c.id()
			if _, err := c.exec(ctx, r.s, t, Int(id), Int(id+cfg.RangeSize-1)); err != nil {
				return err
			}
		}
	}
	if err := c.writes(ctx); err != nil {
		return err
	}
	if e.Insert {
		if err := c.insert(ctx); err != nil {
			return err
		}
	}
	if e.Delete {
		r, err := c.exec(ctx, Delete, c.table(), Int(c.id()))
		if err != nil {
			return err
		}
		c.Deleted += r.Affected
	}
	if e.Trx {
		if _, err := c.exec(ctx, Commit, 0); err != nil {
			return err
		}
	}
	return nil
}

// writes are the index updates, non-index updates and delete+inserts (oltp_common.lua:452-490).
func (c *Client) writes(ctx context.Context) error {
	e := &c.b.ev
	if e.IndexUpdates > 0 {
		t := c.table()
		for range e.IndexUpdates {
			if _, err := c.exec(ctx, IndexUpdate, t, Int(c.id())); err != nil {
				return err
			}
		}
	}
	if e.NonIndexUpdates > 0 {
		t := c.table()
		for range e.NonIndexUpdates {
			c.c = c.g.String(c.c, CTemplate)
			if _, err := c.exec(ctx, NonIndexUpdate, t, Str(c.c), Int(c.id())); err != nil {
				return err
			}
		}
	}
	if e.DeleteInsert > 0 {
		t := c.table()
		for range e.DeleteInsert {
			id, k := c.id(), c.id()
			c.c, c.pad = c.g.String(c.c, CTemplate), c.g.String(c.pad, PadTemplate)
			if _, err := c.exec(ctx, Delete, t, Int(id)); err != nil {
				return err
			}
			if _, err := c.exec(ctx, Insert, t, Int(id), Int(k), Str(c.c), Str(c.pad)); err != nil {
				return err
			}
		}
	}
	return nil
}

// insert is oltp_insert's event (oltp_insert.lua:43-65), sent as text, unprepared: without id
// on PostgreSQL (and SQLite) with --auto-inc, id 0 (the next AUTO_INCREMENT) on MySQL, and
// rand.unique()-2^31 with --auto-inc off.
func (c *Client) insert(ctx context.Context) error {
	cfg := &c.b.cfg
	t := c.table()
	k := c.g.Default(1, uint32(cfg.TableSize))
	c.c, c.pad = c.g.String(c.c, CTemplate), c.g.String(c.pad, PadTemplate)
	q := append(c.text[:0], "INSERT INTO sbtest"...)
	q = strconv.AppendInt(q, int64(t), 10)
	if cfg.AutoInc && c.b.store.Dialect() != "mysql" {
		q = append(q, " (k, c, pad) VALUES ("...)
	} else {
		var id int64
		if !cfg.AutoInc {
			c.b.mu.Lock()
			id = int64(c.b.unique.Next()) - 1<<31
			c.b.mu.Unlock()
		}
		q = append(q, " (id, k, c, pad) VALUES ("...)
		q = strconv.AppendInt(q, id, 10)
		q = append(q, ", "...)
	}
	q = strconv.AppendUint(q, uint64(k), 10)
	q = append(q, ", '"...)
	q = append(q, c.c...)
	q = append(q, "', '"...)
	q = append(q, c.pad...)
	q = append(q, "')"...)
	c.text = q
	r, err := c.conn.Text(ctx, q)
	if err != nil {
		return err
	}
	c.count(Insert, r)
	c.Inserted += r.Affected
	return nil
}

package lbsql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	"github.com/dbperf/dbperf/internal/runner"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// Store is LinkBench's tables on one SQL target.
type Store struct {
	d dialect
	// openConn opens a connection: on the driver's own socket (driver/wire) with lean, else
	// through the driver; lean is the servers' default unless --client-path driver, and the hot benchmarks measure both.
	openConn   func(ctx context.Context, lean bool) (conn, error)
	lean       bool
	mode       string // QuerySimple or QueryPrepared: how statements with arguments are sent
	engine     string // MySQL's ENGINE=
	partitions int    // MySQL's PARTITION BY KEY(id1) PARTITIONS n, or 0
	settle     func(ctx context.Context, tables []string) (string, error)
	check      func(ctx context.Context, table string) error // MySQL: the table got its engine
}

var (
	_ lb.Store        = (*Store)(nil)
	_ lb.LinkKeyOrder = (*Store)(nil)
	_ lb.Settler      = (*Store)(nil)
)

// settleWith adapts a driver's settle to LinkBench's: the reference defines no settle for
// LinkBench, so the driver's actions run without the Insert Benchmark's long waits (the
// reference pauses, scaled as the small default Insert Benchmark run scales them).
func settleWith(settle func(ctx context.Context, tables []string, o sqldriver.SettleOptions) (string, error)) func(ctx context.Context, tables []string) (string, error) {
	return func(ctx context.Context, tables []string) (string, error) {
		return settle(ctx, tables, sqldriver.SettleOptions{Scale: 0.01})
	}
}

// The query modes (--query-mode, pgbench's names): statements with arguments sent as text with
// the values written in, or prepared on the server once per connection and executed with
// parameters.
const (
	QuerySimple   = "simple"
	QueryPrepared = "prepared"
)

// Bind returns LinkBench's store on an opened SQL target; false when t is not one. partitions
// applies to MySQL only; mode is QuerySimple, QueryPrepared, or "" for the DBMS's reference
// form: text on MySQL (the original's LinkStoreMysql), prepared on PostgreSQL (pgx's and the
// fork's LinkStorePgsql) and SQLite. Only MySQL has both; an error says when mode is not
// offered on t.
func Bind(t driver.Target, partitions int, mode string) (lb.Store, bool, error) {
	switch t := t.(type) {
	case *sqldriver.Postgres:
		if mode == QuerySimple {
			return nil, true, simpleOnMySQL(t)
		}
		path, _ := t.ClientPath()
		return &Store{d: postgres, settle: settleWith(t.Settle), lean: path.Lean(), mode: QueryPrepared,
			openConn: func(ctx context.Context, lean bool) (conn, error) {
				c, err := t.Connect(ctx)
				if err != nil {
					return nil, err
				}
				if !lean {
					return pgConn{c}, nil
				}
				w, err := newPGWireConn(c, path.Poll())
				if err != nil {
					c.Close(context.Background())
					return nil, err
				}
				return w, nil
			}}, true, nil
	case *sqldriver.MySQL:
		path, _ := t.ClientPath()
		if mode == "" {
			mode = QuerySimple
		}
		prepared := mode == QueryPrepared
		return &Store{d: mysql, engine: t.Engine(), partitions: partitions, settle: settleWith(t.Settle), check: t.CheckTableEngine,
			lean: path.Lean(), mode: mode,
			openConn: func(ctx context.Context, lean bool) (conn, error) {
				c, err := t.Conn(ctx)
				if err != nil {
					return nil, err
				}
				if !lean {
					return newSQLConn(c, prepared), nil
				}
				sock, err := t.Socket(ctx, c)
				if err != nil {
					c.Close()
					return nil, err
				}
				return &myWireConn{c: c, w: wire.NewMySQL(sock, path.Poll()), prepared: prepared}, nil
			}}, true, nil
	case *sqldriver.SQLite:
		if mode == QuerySimple {
			return nil, true, simpleOnMySQL(t)
		}
		return &Store{d: sqlite, settle: t.Settle, mode: QueryPrepared, openConn: func(ctx context.Context, _ bool) (conn, error) {
			c, err := t.Conn(ctx)
			if err != nil {
				return nil, err
			}
			return newSQLConn(c, true), nil
		}}, true, nil
	}
	return nil, false, nil
}

func simpleOnMySQL(t driver.Target) error {
	return fmt.Errorf("--query-mode simple applies to MySQL targets only: LinkBench's statements are prepared on %s", t.Info(context.Background()).Target)
}

// QueryMode is how the store sends statements with arguments: QuerySimple or QueryPrepared.
func (s *Store) QueryMode() string { return s.mode }

// LinkTypeFirst implements linkbench.LinkKeyOrder: linktable's primary key is the original's
// (link_type, id1, id2).
func (s *Store) LinkTypeFirst() bool { return true }

// open opens a connection on the store's path.
func (s *Store) open(ctx context.Context) (conn, error) { return s.openConn(ctx, s.lean) }

// Settle implements linkbench.Settler with the driver's settle.
func (s *Store) Settle(ctx context.Context, tables []string) (string, error) {
	return s.settle(ctx, tables)
}

// CreateTables implements linkbench.Store.
func (s *Store) CreateTables(ctx context.Context) error {
	c, err := s.open(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	part := ""
	if s.partitions > 0 {
		part = fmt.Sprintf(" PARTITION BY KEY(id1) PARTITIONS %d", s.partitions)
	}
	for _, q := range s.d.ddl {
		q = strings.NewReplacer("{engine}", s.engine, "{partition}", part).Replace(q)
		if _, err := c.exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if s.check != nil {
		for _, t := range []string{"linktable", "counttable", "nodetable"} {
			if err := s.check(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Connect implements linkbench.Store.
func (s *Store) Connect(ctx context.Context) (lb.Conn, error) {
	reopen := func(ctx context.Context) (*Conn, error) { return s.connect(ctx, s.lean) }
	r, err := runner.DialRedial(ctx, reopen, connLost)
	if err != nil {
		return nil, err
	}
	return &redialConn{Redial: r}, nil // opened again after a loss: redial.go
}

func (s *Store) connect(ctx context.Context, lean bool) (*Conn, error) {
	c, err := s.openConn(ctx, lean)
	if err != nil {
		return nil, err
	}
	multiget := c.query
	if t, ok := c.(interface {
		queryText(context.Context, string, []any, func(rows) error) error
	}); ok && s.mode == QueryPrepared && s.d.Name == "mysql" {
		multiget = t.queryText
	}
	return &Conn{c: c, d: s.d, getLinks: map[int]string{}, loads: map[[2]int]string{}, multiget: multiget,
		sql: statements{selectVis: s.d.selectVisibility(), update: s.d.updateLink(), hide: s.d.hideLink(),
			inc: s.d.countIncrement(), dec: s.d.countDecrement(), list: s.d.linkList(), count: s.d.countLinks(),
			visible: s.d.countVisible(), addNode: s.d.addNode(), updateNode: s.d.updateNode(),
			deleteNode: s.d.deleteNode(), getNode: s.d.getNode()}}, nil
}

// scan runs one of the checks' scans on a connection of its own.
func (s *Store) scan(ctx context.Context, q string, fn func(rows) error) error {
	c, err := s.open(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	return c.query(ctx, q, nil, fn)
}

// Size implements linkbench.Sizer with the DBMS's own counts, not a scan sent to the client.
func (s *Store) Size(ctx context.Context) (links, nodes, maxNode int64, err error) {
	err = s.scan(ctx, "SELECT (SELECT COUNT(*) FROM linktable), (SELECT COUNT(*) FROM nodetable), "+
		"(SELECT COALESCE(MAX(id), 0) FROM nodetable)", func(r rows) error {
		if !r.Next() {
			return errors.New("no row from the graph's counts")
		}
		return r.Scan(&links, &nodes, &maxNode)
	})
	return links, nodes, maxNode, err
}

// ScanLinks implements linkbench.Store.
func (s *Store) ScanLinks(ctx context.Context, fn func(lb.Link) error) error {
	return s.scan(ctx, scanLinksSQL, func(r rows) error {
		var t scanTarget
		for r.Next() {
			var l lb.Link // new each row: fn may keep it
			if err := t.scanLink(r, &l); err != nil {
				return err
			}
			if err := fn(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScanCounts implements linkbench.Store.
func (s *Store) ScanCounts(ctx context.Context, fn func(lb.Count) error) error {
	return s.scan(ctx, scanCountsSQL, func(r rows) error {
		for r.Next() {
			var c lb.Count
			if err := r.Scan(&c.ID1, &c.LinkType, &c.Count, &c.Time, &c.Version); err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScanVisible implements linkbench.Store.
func (s *Store) ScanVisible(ctx context.Context, fn func(id1, linkType, n int64) error) error {
	return s.scan(ctx, scanVisibleSQL, func(r rows) error {
		for r.Next() {
			var id1, lt, n int64
			if err := r.Scan(&id1, &lt, &n); err != nil {
				return err
			}
			if err := fn(id1, lt, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScanNodes implements linkbench.Store.
func (s *Store) ScanNodes(ctx context.Context, fn func(lb.Node) error) error {
	return s.scan(ctx, scanNodesSQL, func(r rows) error {
		var t scanTarget
		for r.Next() {
			n, err := t.scanNode(r)
			if err != nil {
				return err
			}
			if err := fn(n); err != nil {
				return err
			}
		}
		return nil
	})
}

// scanTarget is where a link's or a node's columns are scanned, kept for a connection's life:
// Scan takes its destinations as ...any, so locals passed to it escape, seven heap allocations a
// link row (59 allocations a GET_LINKS_LIST in BenchmarkHotLinkBench); here only the row's data
// is copied out.
type scanTarget struct {
	l          lb.Link
	n          lb.Node
	vis, typ   int64
	data       []byte
	link, node []any // the destinations, pointing into the fields above
}

// scanLink reads a link row into l. Its data goes into l.Data's array when that is large
// enough: readLinks passes the elements of the caller's reused slice, so a page of links
// allocates nothing once the slice has held as long a page.
func (s *scanTarget) scanLink(r rows, l *lb.Link) error {
	if s.link == nil {
		s.link = []any{&s.l.ID1, &s.l.ID2, &s.l.LinkType, &s.vis, &s.data, &s.l.Time, &s.l.Version}
	}
	s.l, s.vis, s.data = lb.Link{}, 0, nil // a column Scan leaves alone is zero, as before
	err := r.Scan(s.link...)
	data := l.Data[:0]
	*l = s.l
	l.Visibility, l.Data = int8(s.vis), append(data, s.data...) // a copy: s.data may be the driver's buffer
	if l.Data == nil {
		l.Data = []byte{}
	}
	return err
}

func (s *scanTarget) scanNode(r rows) (lb.Node, error) {
	if s.node == nil {
		s.node = []any{&s.n.ID, &s.typ, &s.n.Version, &s.n.Time, &s.data}
	}
	s.n, s.typ, s.data = lb.Node{}, 0, nil
	err := r.Scan(s.node...)
	n := s.n
	n.Type, n.Data = int32(s.typ), slices.Clone(s.data)
	if n.Data == nil {
		n.Data = []byte{}
	}
	return n, err
}

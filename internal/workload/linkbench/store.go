package linkbench

import "context"

// Link is one row of linktable.
type Link struct {
	ID1, LinkType, ID2 int64
	Visibility         int8 // VisibilityDefault or VisibilityHidden
	Data               []byte
	Time               int64 // milliseconds since the epoch
	Version            int64
}

// Count is one row of counttable: the number of visible links of (ID1, LinkType).
type Count struct {
	ID1, LinkType, Count int64
	Time, Version        int64
}

// Node is one row of nodetable.
type Node struct {
	ID      int64
	Type    int32
	Version int64
	Time    int64 // seconds since the epoch
	Data    []byte
}

// Visibility values (LinkStore.java:30-31).
const (
	VisibilityHidden  int8 = 0
	VisibilityDefault int8 = 1
)

// RangeLimit is the LIMIT of a link list (LinkStore.DEFAULT_LIMIT).
const RangeLimit = 10000

// Store is what a target implements to run LinkBench. Every target must give the same results
// for the same calls: the same rows, in the same orders.
type Store interface {
	// CreateTables drops linktable, counttable and nodetable if they exist and creates them.
	CreateTables(ctx context.Context) error
	// Connect opens one connection for one loader or requester.
	Connect(ctx context.Context) (Conn, error)
	// ScanLinks calls fn for every link in (id1, link_type, id2) order.
	ScanLinks(ctx context.Context, fn func(Link) error) error
	// ScanCounts calls fn for every count row in (id1, link_type) order.
	ScanCounts(ctx context.Context, fn func(Count) error) error
	// ScanVisible calls fn with the number of visible links of every (id1, link_type) that has
	// any, in (id1, link_type) order.
	ScanVisible(ctx context.Context, fn func(id1, linkType, n int64) error) error
	// ScanNodes calls fn for every node in id order.
	ScanNodes(ctx context.Context, fn func(Node) error) error
}

// Sizer is an optional ability of a store: the number of links and nodes and the highest node
// id from the DBMS's own aggregates. Without it graphSize scans both tables, which on a server
// sends every row to the client: a request-only run's start read and sorted its 4.3M links.
type Sizer interface {
	Size(ctx context.Context) (links, nodes, maxNode int64, err error)
}

// graphSize is the number of links and nodes and the highest node id, from the store's Sizer or
// from full scans.
func graphSize(ctx context.Context, s Store) (links, nodes, maxNode int64, err error) {
	if sz, ok := s.(Sizer); ok {
		return sz.Size(ctx)
	}
	if err = s.ScanLinks(ctx, func(Link) error { links++; return nil }); err != nil {
		return 0, 0, 0, err
	}
	err = s.ScanNodes(ctx, func(n Node) error { nodes++; maxNode = max(maxNode, n.ID); return nil })
	return links, nodes, maxNode, err
}

// nodeCount is graphSize's nodes, scanning only nodetable where the store has no Sizer (the
// load's check).
func nodeCount(ctx context.Context, s Store) (n int64, err error) {
	if sz, ok := s.(Sizer); ok {
		_, n, _, err = sz.Size(ctx)
		return n, err
	}
	err = s.ScanNodes(ctx, func(Node) error { n++; return nil })
	return n, err
}

// LinkKeyOrder is an optional ability of a store: whether linktable's primary key leads with
// link_type, as the SQL schema's (link_type, id1, id2) does, rather than with id1. It decides how
// many insert streams the load makes in it (InsertPatterns); a store without it leads with id1.
type LinkKeyOrder interface {
	LinkTypeFirst() bool
}

// Conn is one client's connection, used by one goroutine at a time. Each write method is one
// transaction, as in the original; on any error it has rolled back, so the caller may retry.
type Conn interface {
	// LoadLinks inserts links (keeping the visibility of any that exist) and commits.
	LoadLinks(ctx context.Context, links []Link) error
	// LoadCounts writes count rows, replacing any that exist, and commits.
	LoadCounts(ctx context.Context, counts []Count) error
	// LoadNodes inserts nodes and commits.
	LoadNodes(ctx context.Context, nodes []Node) error
	// AddLink is ADD_LINK and UPDATE_LINK (LinkStoreMysql.java:300-421): insert the link if it is
	// missing (count + 1), make a hidden one visible with the new data (count + 1), or update a
	// visible one's data, time and version; one transaction with the count update. It tells
	// whether the link was inserted.
	AddLink(ctx context.Context, l *Link, nowMs int64) (inserted bool, err error)
	// DeleteLink is DELETE_LINK (LinkStoreMysql.java:480-587): hide a visible link and decrement
	// its count (never below 0), in one transaction; found tells whether the link exists.
	DeleteLink(ctx context.Context, id1, linkType, id2, nowMs int64) (found bool, err error)
	// GetLinks is MULTIGET_LINK: the links of (id1, linkType) among id2s, visible or not, in
	// id2 order, appended to out. Both link reads may reuse the Data arrays of the elements
	// between len(out) and cap(out): pass a slice whose spare elements nobody still holds.
	GetLinks(ctx context.Context, id1, linkType int64, id2s []int64, out []Link) ([]Link, error)
	// GetLinkList is GET_LINKS_LIST: visible links of (id1, linkType) with minTime <= time <=
	// maxTime, newest first (ties by id2, highest first), skipping offset, at most limit.
	GetLinkList(ctx context.Context, id1, linkType, minTime, maxTime int64, offset, limit int, out []Link) ([]Link, error)
	// CountLinks is COUNT_LINK: the count row's count, 0 when there is none.
	CountLinks(ctx context.Context, id1, linkType int64) (int64, error)
	// CountVisible counts the visible links of (id1, linkType) the expensive way (checks only).
	CountVisible(ctx context.Context, id1, linkType int64) (int64, error)
	// AddNode inserts a node with its id.
	AddNode(ctx context.Context, n *Node) error
	// UpdateNode sets version, time and data of the node with n's id and type.
	UpdateNode(ctx context.Context, n *Node) (bool, error)
	// DeleteNode deletes the node with id and type.
	DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error)
	// GetNode returns the node with id if it has type nodeType.
	GetNode(ctx context.Context, nodeType int32, id int64) (Node, bool, error)
	Close() error
}

// Settler is an optional ability of a store: bring the DBMS to a steady state.
type Settler interface {
	Settle(ctx context.Context, tables []string) (string, error)
}

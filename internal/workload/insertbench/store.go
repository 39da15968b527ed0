package insertbench

import (
	"context"
	"time"
)

// Row is one row of the Insert Benchmark's table.
type Row struct {
	ID           int64 // transactionid
	DateAndTime  int64 // unix seconds; the same for every row of a statement
	CashRegister int32 // [0, 1000)
	Customer     int32 // [0, 100000)
	Product      int32 // [0, 10000)
	Price        int32 // [0, 500)
	Data         []byte
}

// Index names one of the three secondary indexes; each range query reads one of them.
type Index int

// The secondary indexes, in the reference's order.
const (
	MarketSegment   Index = iota // (productid, customerid, price)
	RegisterSegment              // (cashregisterid, customerid, price)
	PDC                          // (price, dateandtime, customerid)
	NumIndexes
)

var indexNames = [NumIndexes]string{"marketsegment", "registersegment", "pdc"}

func (i Index) String() string { return indexNames[i] }

// Strict reports whether the index's range query uses ">" rather than ">=" (the reference's
// registersegment query does).
func (i Index) Strict() bool { return i == RegisterSegment }

// Columns of each index, for targets that build DDL or key encodings from them.
var IndexColumns = [NumIndexes][3]string{
	{"productid", "customerid", "price"},
	{"cashregisterid", "customerid", "price"},
	{"price", "dateandtime", "customerid"},
}

// IndexKey returns the three indexed values of a row for index i (dateandtime as unix seconds).
func (r *Row) IndexKey(i Index) [3]int64 {
	switch i {
	case MarketSegment:
		return [3]int64{int64(r.Product), int64(r.Customer), int64(r.Price)}
	case RegisterSegment:
		return [3]int64{int64(r.CashRegister), int64(r.Customer), int64(r.Price)}
	default:
		return [3]int64{int64(r.Price), r.DateAndTime, int64(r.Customer)}
	}
}

// IndexRow is one row of a range query's result: the index's three columns, in index order.
type IndexRow [3]int64

// PointRow is one row of a point query's result.
type PointRow struct {
	ID      int64
	Product int32
	Data    []byte
}

// RowsPerQuery is the LIMIT of range queries and the number of ids of a point query.
const RowsPerQuery = 10

// Store is what a target implements to run the Insert Benchmark. Every method must give the same
// results on every target: same rows, same index orders, same query results.
type Store interface {
	// CreateTables drops the tables if they exist and creates them with only the primary key.
	CreateTables(ctx context.Context, tables []string) error
	// CreateIndexes builds the three secondary indexes of one table.
	CreateIndexes(ctx context.Context, table string) error
	// Connect opens one connection for one client role.
	Connect(ctx context.Context) (Conn, error)
	// Stats reads what verification needs, the expensive way (count, min, max), outside any step.
	Stats(ctx context.Context, table string) (TableStats, error)
}

// Conn is one client's connection. It is used by one goroutine at a time.
type Conn interface {
	// Insert inserts rows (ascending ids) in one statement and commits.
	Insert(ctx context.Context, table string, rows []Row) error
	// DeleteOldest deletes the to-from oldest rows from transactionid from on, in primary key
	// order, in one statement, commits, and returns how many rows it deleted. The reference's
	// statement has no upper bound; a store may add "transactionid < to" (a shared table).
	DeleteOldest(ctx context.Context, table string, from, to int64) (int64, error)
	// RangeQuery runs the covering range query of index idx from x (">" for registersegment,
	// ">=" otherwise), LIMIT RowsPerQuery, appending rows to out.
	RangeQuery(ctx context.Context, table string, idx Index, x int64, out []IndexRow) ([]IndexRow, error)
	// PointQuery fetches the rows with the given ids, appending them to out. A store may reuse
	// the Data storage of the rows in out's spare capacity (the caller's last result).
	PointQuery(ctx context.Context, table string, ids []int64, out []PointRow) ([]PointRow, error)
	Close() error
}

// TableStats is what verification compares with what the client did.
type TableStats struct {
	Rows         int64
	MinID, MaxID int64 // 0 when empty
	// IndexRows is the number of entries in each secondary index, or nil when the table has none.
	IndexRows []int64
	// Problems lists inconsistencies the target found itself (e.g. an index entry without a row).
	Problems []string
}

// Settler is an optional ability: bring the DBMS to a steady state after the load steps
// (Postgres vacuum + checkpoint, LSM flush + compaction, ...) and wait until until (the
// reference's wait, counted from the settle's start; settings changed for the settle stay
// changed until then), scaling the reference's fixed pauses by scale. It returns what it did.
type Settler interface {
	Settle(ctx context.Context, tables []string, until time.Time, scale float64) (string, error)
}

// StepStarter is an optional ability: what the reference's driver does before every step
// (MySQL: RESET MASTER when the binlog is on, np.sh:65). It returns what it did, or "".
type StepStarter interface {
	BeforeStep(ctx context.Context) string
}

// StatementMode is an optional ability of SQL stores: how statements are sent. By default the
// reference's way (Prepared false): on MySQL range queries, point queries and deletes are SQL
// text with the values written out, as iibench.py sends them (ibp:1043-1049, 1178-1180); on
// PostgreSQL queries are prepared (np.sh:285-288 --use_prepared_query) and deletes text
// (ibp:1181-1183, 1342-1344). Prepared true prepares every query and delete. SharedTable keeps an
// upper bound on deletes, so that the deleters of one table never reach each other's rows.
type StatementMode interface {
	SetStatementMode(prepared, sharedTable bool)
}

// TableGuard is an optional ability of stores that can tell their own tables from another's:
// ForeignTables lists which of the tables exist without dbperf's mark (l.i0 replaces those only
// with --drop), and DropTables removes the tables dbperf created (the cleanup step), leaving
// another's alone and listing them.
type TableGuard interface {
	ForeignTables(ctx context.Context, tables []string) ([]string, error)
	DropTables(ctx context.Context, tables []string) (dropped, kept []string, err error)
}

// CacheChecker is an optional ability of server stores: the config dbperf started the server
// with (if it did), the DBMS's cache and the database's size, so that a cached-by-OS run whose
// database fits in the DBMS's cache is flagged.
type CacheChecker interface {
	CacheCheck(ctx context.Context) (config string, cache, database int64, err error)
}

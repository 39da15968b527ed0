package ibsql

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgStore is the Insert Benchmark on PostgreSQL: DDL and checks on the target's admin
// connection, a connection of its own for each client role and each index build.
type pgStore struct {
	t *sqldriver.Postgres
	// prepared and bounded: see insertbench.StatementMode.
	prepared, bounded bool
}

// SetStatementMode implements insertbench.StatementMode: queries are prepared either way (the
// reference's PostgreSQL path, np.sh:285-288); deletes are text unless prepared.
func (p *pgStore) SetStatementMode(prepared, sharedTable bool) {
	p.prepared, p.bounded = prepared, sharedTable
}

var (
	_ ib.Store         = (*pgStore)(nil)
	_ ib.Settler       = (*pgStore)(nil)
	_ ib.StatementMode = (*pgStore)(nil)
)

// Settle implements insertbench.Settler: the driver's parallel vacuum, checkpoint and wait.
func (p *pgStore) Settle(ctx context.Context, tables []string, until time.Time, scale float64) (string, error) {
	return p.t.Settle(ctx, tables, sqldriver.SettleOptions{Until: until, Scale: scale})
}

// CreateTables implements insertbench.Store.
func (p *pgStore) CreateTables(ctx context.Context, tables []string) error {
	return postgres.createTables(ctx, func(ctx context.Context, q string) error {
		_, err := p.t.Admin().Exec(ctx, q)
		return err
	}, tables)
}

// CreateIndexes implements insertbench.Store: one CREATE INDEX per index, as the reference does.
func (p *pgStore) CreateIndexes(ctx context.Context, table string) error {
	c, err := p.t.Connect(ctx) // tables are indexed concurrently, one connection each
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	for idx := range ib.NumIndexes {
		if _, err := c.Exec(ctx, postgres.createIndex(table, idx)); err != nil {
			return err
		}
	}
	return nil
}

// Stats implements insertbench.Store. Index entries are counted by a full scan of each index in
// its own order; the plan is checked to really use that index.
func (p *pgStore) Stats(ctx context.Context, table string) (ib.TableStats, error) {
	var st ib.TableStats
	if err := p.t.Admin().QueryRow(ctx, postgres.tableStats(table)).Scan(&st.Rows, &st.MinID, &st.MaxID); err != nil {
		return st, err
	}
	var n int
	if err := p.t.Admin().QueryRow(ctx, pgIndexesSQL,
		table, table+"_pkey").Scan(&n); err != nil {
		return st, err
	}
	if n == 0 {
		return st, nil
	}
	st.IndexRows = make([]int64, ib.NumIndexes)
	tx, err := p.t.Admin().Begin(ctx)
	if err != nil {
		return st, err
	}
	defer tx.Rollback(ctx)
	for _, set := range pgCountSettings {
		if _, err := tx.Exec(ctx, set); err != nil {
			return st, err
		}
	}
	for idx := range ib.NumIndexes {
		// Only this index delivers rows in this order, and sorting is off.
		q := pgIndexCount(table, idx)
		var plan strings.Builder
		rows, err := tx.Query(ctx, "EXPLAIN "+q)
		if err != nil {
			return st, err
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return st, err
			}
			plan.WriteString(line + "\n")
		}
		rows.Close()
		if !strings.Contains(plan.String(), indexName(table, idx)) {
			st.Problems = append(st.Problems, fmt.Sprintf("cannot count index %s: the planner does not use it:\n%s", indexName(table, idx), plan.String()))
			continue
		}
		if err := tx.QueryRow(ctx, q).Scan(&st.IndexRows[idx]); err != nil {
			return st, err
		}
	}
	return st, nil
}

// Connect implements insertbench.Store: a connection that is opened again after a loss.
func (p *pgStore) Connect(ctx context.Context) (ib.Conn, error) { return redialing(ctx, p.connect) }

func (p *pgStore) connect(ctx context.Context) (ib.Conn, error) {
	c, err := p.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc := &pgConn{c: c, sql: map[string]*tableSQL{}, stmts: map[string]string{}, params: make([][]byte, 1, ib.RowsPerQuery),
		preparedDelete: p.prepared, bounded: p.bounded}
	path, _ := p.t.ClientPath()
	if pc.noWire = !path.Lean(); pc.noWire { // --client-path driver, or TLS: pgx alone
		return pc, nil
	}
	if pc.wire, err = wire.NewPostgres(c.PgConn(), path.Poll()); err != nil {
		c.Close(context.Background())
		return nil, err
	}
	return pc, nil
}

type pgConn struct {
	c      *pgx.Conn
	sql    map[string]*tableSQL
	stmts  map[string]string // prepared statement names by SQL text
	args   []any
	buf    []byte // the last INSERT statement's text, reused
	ts     stamp
	param  []byte   // text of the query parameters, reused
	ends   []int    // where each parameter's text ends in param
	params [][]byte // slices of param, one per parameter
	// preparedDelete: deletes prepared (--prepared) rather than the reference's text; bounded:
	// deletes keep an upper bound (shared table).
	preparedDelete, bounded bool
	// wire runs the queries on the socket directly (wire.Postgres); with noWire (benchmarks) they
	// go through pgconn instead.
	wire   *wire.Postgres
	noWire bool
	rr     *pgconn.ResultReader // the running statement's reply (noWire)
	rerr   error                // the running statement's error (wire), once rend
	rend   bool                 // the running statement's reply is read (wire)
}

// pgx returns the pgx connection for a statement through pgx, with the socket handed back.
func (c *pgConn) pgx() (*pgx.Conn, error) {
	if c.noWire {
		return c.c, nil
	}
	return c.c, c.wire.Release()
}

func (c *pgConn) table(t string) *tableSQL {
	s, ok := c.sql[t]
	if !ok {
		s = newTableSQL(postgres, t)
		c.sql[t] = s
	}
	return s
}

// Insert sends one multi-row INSERT with literal values over the simple query protocol
// (wire.Postgres: one write, one wait for the reply).
func (c *pgConn) Insert(ctx context.Context, t string, rows []ib.Row) error {
	if len(rows) == 0 {
		return nil
	}
	c.buf = appendInsertLiteral(c.buf[:0], t, rows, c.ts.literal(rows[0].DateAndTime), false)
	if !c.noWire {
		return c.wire.ExecSimple(ctx, c.buf)
	}
	pc, err := c.pgx()
	if err != nil {
		return err
	}
	_, err = pc.PgConn().Exec(ctx, string(c.buf)).ReadAll()
	return err
}

func (c *pgConn) DeleteOldest(ctx context.Context, t string, from, to int64) (int64, error) {
	if !c.preparedDelete { // no arguments: the simple protocol, as psycopg2 does
		c.buf = postgres.deleteOldestText(c.buf[:0], t, from, to-from, c.bounded)
		if !c.noWire {
			err := c.wire.ExecSimple(ctx, c.buf)
			return c.wire.Affected(), err
		}
	}
	pc, err := c.pgx()
	if err != nil {
		return 0, err
	}
	if !c.preparedDelete {
		tag, err := pc.Exec(ctx, string(c.buf))
		return tag.RowsAffected(), err
	}
	tag, err := pc.Exec(ctx, c.table(t).deleteOldest, from, to, to-from)
	return tag.RowsAffected(), err
}

// Queries run as named prepared statements through pgconn, pgx's protocol layer, with binary
// results decoded in place: the per-row scan machinery of pgx.Rows cost more client CPU than
// the rest of a query's client side together (docs/performance.md).

// prepared returns the name of q prepared on this connection, preparing it on first use.
func (c *pgConn) prepared(ctx context.Context, q string) (string, error) {
	if name, ok := c.stmts[q]; ok {
		return name, nil
	}
	name := fmt.Sprintf("dbperf_%d", len(c.stmts)+1)
	pc, err := c.pgx()
	if err != nil {
		return "", err
	}
	if _, err := pc.PgConn().Prepare(ctx, name, q, nil); err != nil {
		return "", err
	}
	c.stmts[q] = name
	return name, nil
}

var binaryResults = []int16{1}

// pgEpoch is the zero of PostgreSQL's binary timestamps (microseconds since 2000-01-01 UTC).
const pgEpoch = 946684800

func (c *pgConn) RangeQuery(ctx context.Context, t string, idx ib.Index, x int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	name, err := c.prepared(ctx, c.table(t).rangeQuery[idx])
	if err != nil {
		return out, err
	}
	c.param = strconv.AppendInt(c.param[:0], x, 10)
	c.params[0] = c.param
	if err := c.start(ctx, name, c.params[:1]); err != nil {
		return out, err
	}
	for v, ok := c.next(); ok; v, ok = c.next() {
		if len(v) != 3 || len(v[0]) != 4 || len(v[2]) != 4 {
			c.finish()
			return out, fmt.Errorf("range query on %s.%s: unexpected row shape", t, idx)
		}
		var r ib.IndexRow
		r[0] = int64(int32(binary.BigEndian.Uint32(v[0])))
		r[2] = int64(int32(binary.BigEndian.Uint32(v[2])))
		switch {
		case idx == ib.PDC && len(v[1]) == 8: // timestamp
			r[1] = int64(binary.BigEndian.Uint64(v[1]))/1e6 + pgEpoch
		case idx != ib.PDC && len(v[1]) == 4:
			r[1] = int64(int32(binary.BigEndian.Uint32(v[1])))
		default:
			c.finish()
			return out, fmt.Errorf("range query on %s.%s: unexpected column of %d bytes", t, idx, len(v[1]))
		}
		out = append(out, r)
	}
	return out, c.finish()
}

func (c *pgConn) PointQuery(ctx context.Context, t string, ids []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	name, err := c.prepared(ctx, c.table(t).pointSQL(postgres, t, len(ids)))
	if err != nil {
		return out, err
	}
	// Write every id's text first, then slice: the buffer may move while it grows.
	c.param, c.ends = c.param[:0], c.ends[:0]
	for _, id := range ids {
		c.param = strconv.AppendInt(c.param, id, 10)
		c.ends = append(c.ends, len(c.param))
	}
	params, start := c.params[:0], 0
	for _, end := range c.ends {
		params = append(params, c.param[start:end:end])
		start = end
	}
	c.params = params
	if err := c.start(ctx, name, params); err != nil {
		return out, err
	}
	for v, ok := c.next(); ok; v, ok = c.next() {
		if len(v) != 3 || len(v[0]) != 8 || len(v[1]) != 4 {
			c.finish()
			return out, fmt.Errorf("point query on %s: unexpected row shape", t)
		}
		out = append(out, ib.PointRow{
			ID:      int64(binary.BigEndian.Uint64(v[0])),
			Product: int32(binary.BigEndian.Uint32(v[1])),
			Data:    append([]byte(nil), v[2]...),
		})
	}
	return out, c.finish()
}

// start runs the prepared statement name with text parameters and binary results: on the
// socket directly (wire.Postgres), or through pgconn when the benchmarks compare the two. Its rows come
// from next; finish reads the rest of the reply and returns the statement's error.
func (c *pgConn) start(ctx context.Context, name string, params [][]byte) error {
	if c.noWire {
		pc, err := c.pgx()
		if err != nil {
			return err
		}
		c.rr = pc.PgConn().ExecPrepared(ctx, name, params, nil, binaryResults)
		return nil
	}
	c.rerr, c.rend = nil, false
	return c.wire.ExecPrepared(ctx, name, params)
}

func (c *pgConn) next() ([][]byte, bool) {
	if c.noWire {
		if c.rr.NextRow() {
			return c.rr.Values(), true
		}
		return nil, false
	}
	if c.rend {
		return nil, false
	}
	v, ok, err := c.wire.NextRow()
	if !ok {
		c.rerr, c.rend = err, true
	}
	return v, ok
}

func (c *pgConn) finish() error {
	if c.noWire {
		_, err := c.rr.Close()
		return err
	}
	for !c.rend {
		c.next()
	}
	return c.rerr
}

func (c *pgConn) Close() error {
	if !c.noWire {
		c.wire.Close()
		c.wire.Release()
	}
	return c.c.Close(context.Background())
}

package sqldb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbperf/dbperf/internal/target"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func init() {
	target.Register(target.Kind{
		Name: "postgres", Usage: "postgres://USER[:PASSWORD]@HOST:PORT/DB",
		Summary: "PostgreSQL server (pgx); the database is created if it does not exist",
		Open:    openPostgres,
	})
}

// Postgres is a PostgreSQL target. It keeps one connection for DDL and checks; each client
// role opens its own.
type Postgres struct {
	spec  target.Spec
	cfg   *pgx.ConnConfig
	admin *pgx.Conn
	mon   pgMonitor // the monitor's own connection (monitor.go)
}

var (
	_ ib.Store      = (*Postgres)(nil)
	_ ib.Settler    = (*Postgres)(nil)
	_ target.Target = (*Postgres)(nil)
)

func openPostgres(ctx context.Context, s target.Spec) (target.Target, error) {
	cfg, err := pgx.ParseConfig(s.DSN)
	if err != nil {
		return nil, fmt.Errorf("target %s is not a valid PostgreSQL URL: %v", s, err)
	}
	cfg.RuntimeParams["application_name"] = "dbperf"
	p := &Postgres{spec: s, cfg: cfg}
	p.admin, err = p.connect(ctx)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name: create it
		if cerr := p.createDatabase(ctx); cerr != nil {
			return nil, cerr
		}
		p.admin, err = p.connect(ctx)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// connect opens a connection and turns the driver's errors into one sentence that says what to do.
func (p *Postgres) connect(ctx context.Context) (*pgx.Conn, error) {
	return p.connectTo(ctx, p.cfg)
}

func (p *Postgres) connectTo(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		return c, nil
	}
	where := fmt.Sprintf("postgres at %s:%d", cfg.Host, cfg.Port)
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "28P01":
		return nil, fmt.Errorf("cannot connect to %s: password authentication failed for user %q; check the password in the target URL (or PGPASSWORD)", where, cfg.User)
	case errors.As(err, &pgErr) && pgErr.Code == "3D000":
		return nil, err // handled by the caller
	case errors.As(err, &pgErr):
		return nil, fmt.Errorf("cannot connect to %s as %q: %s (SQLSTATE %s)", where, cfg.User, pgErr.Message, pgErr.Code)
	case errors.Is(err, syscall.ECONNREFUSED):
		return nil, fmt.Errorf("cannot connect to %s: connection refused; is the server running and listening there? (dbperf server start postgres starts one)", where)
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("cannot connect to %s: no answer within 15s; check the host and port", where)
	default:
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, fmt.Errorf("cannot connect to %s: unknown host %q", where, cfg.Host)
		}
		return nil, fmt.Errorf("cannot connect to %s: %v", where, target.Scrub(p.spec, err))
	}
}

func (p *Postgres) createDatabase(ctx context.Context) error {
	cfg := p.cfg.Copy()
	cfg.Database = "postgres"
	c, err := p.connectTo(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{p.cfg.Database}.Sanitize()); err != nil {
		return fmt.Errorf("database %q does not exist and creating it failed: %v", p.cfg.Database, err)
	}
	return nil
}

// settingsOfInterest are the server settings that explain results; they go into run.json.
var settingsOfInterest = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem", "wal_buffers",
	"synchronous_commit", "fsync", "full_page_writes", "wal_compression", "wal_level",
	"max_wal_size", "min_wal_size", "checkpoint_timeout", "checkpoint_completion_target",
	"autovacuum", "autovacuum_vacuum_scale_factor", "autovacuum_naptime", "random_page_cost",
	"effective_io_concurrency", "huge_pages", "jit", "max_connections",
}

// Info implements target.Target, reading the version and settings from the server itself.
func (p *Postgres) Info(ctx context.Context) target.Info {
	info := target.Info{Kind: "postgres", Target: p.spec.String(), Engine: "PostgreSQL", Settings: map[string]any{}}
	if err := p.admin.QueryRow(ctx, "SHOW server_version").Scan(&info.Version); err != nil {
		info.Version = "unknown: " + err.Error()
	}
	rows, err := p.admin.Query(ctx, "SELECT name, setting, coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)", settingsOfInterest)
	if err == nil {
		for rows.Next() {
			var name, setting, unit string
			if rows.Scan(&name, &setting, &unit) == nil {
				if unit != "" {
					setting += " (" + unit + ")"
				}
				info.Settings[name] = setting
			}
		}
		rows.Close()
	}
	return info
}

// Close implements target.Target.
func (p *Postgres) Close() error {
	p.closeMonitor()
	return p.admin.Close(context.Background())
}

// CreateTables implements insertbench.Store.
func (p *Postgres) CreateTables(ctx context.Context, tables []string) error {
	return postgres.createTables(ctx, func(ctx context.Context, q string) error {
		_, err := p.admin.Exec(ctx, q)
		return err
	}, tables)
}

// CreateIndexes implements insertbench.Store: one CREATE INDEX per index, as the reference does.
func (p *Postgres) CreateIndexes(ctx context.Context, table string) error {
	c, err := p.connect(ctx) // tables are indexed concurrently, one connection each
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

// Settle implements insertbench.Settler: vacuum (with analyze and index cleanup) each table,
// then a checkpoint, so that the q steps start without vacuum debt or dirty pages.
func (p *Postgres) Settle(ctx context.Context, tables []string) (string, error) {
	var done []string
	for _, t := range tables {
		if _, err := p.admin.Exec(ctx, "VACUUM (ANALYZE, INDEX_CLEANUP ON) "+t); err != nil {
			return "", err
		}
	}
	done = append(done, fmt.Sprintf("vacuum (analyze, index_cleanup on) of %d tables", len(tables)))
	if _, err := p.admin.Exec(ctx, "CHECKPOINT"); err != nil {
		done = append(done, "no checkpoint ("+err.Error()+")")
	} else {
		done = append(done, "checkpoint")
	}
	return strings.Join(done, "; "), nil
}

// Stats implements insertbench.Store. Index entries are counted by a full scan of each index in
// its own order; the plan is checked to really use that index.
func (p *Postgres) Stats(ctx context.Context, table string) (ib.TableStats, error) {
	var st ib.TableStats
	if err := p.admin.QueryRow(ctx, postgres.tableStats(table)).Scan(&st.Rows, &st.MinID, &st.MaxID); err != nil {
		return st, err
	}
	var n int
	if err := p.admin.QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexname <> $2",
		table, table+"_pkey").Scan(&n); err != nil {
		return st, err
	}
	if n == 0 {
		return st, nil
	}
	st.IndexRows = make([]int64, ib.NumIndexes)
	tx, err := p.admin.Begin(ctx)
	if err != nil {
		return st, err
	}
	defer tx.Rollback(ctx)
	for _, set := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
		if _, err := tx.Exec(ctx, "SET LOCAL "+set+" = off"); err != nil {
			return st, err
		}
	}
	for idx := range ib.NumIndexes {
		// Only this index delivers rows in this order, and sorting is off.
		q := fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s ORDER BY %s) ordered", table, strings.Join(ib.IndexColumns[idx][:], ", "))
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

// Connect implements insertbench.Store.
func (p *Postgres) Connect(ctx context.Context) (ib.Conn, error) {
	c, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{c: c, sql: map[string]*tableSQL{}, stmts: map[string]string{}, params: make([][]byte, 1, ib.RowsPerQuery)}, nil
}

// tableSQL caches one table's statements; pgx prepares each once per connection.
type tableSQL struct {
	insert       map[int]string
	deleteOldest string
	rangeQuery   [ib.NumIndexes]string
	pointQuery   map[int]string // by number of ids
}

func newTableSQL(d dialect, t string) *tableSQL {
	s := &tableSQL{insert: map[int]string{}, deleteOldest: d.deleteOldest(t), pointQuery: map[int]string{}}
	for idx := range ib.NumIndexes {
		s.rangeQuery[idx] = d.rangeQuery(t, idx)
	}
	return s
}

func (s *tableSQL) insertSQL(d dialect, t string, n int) string {
	q, ok := s.insert[n]
	if !ok {
		q = d.insert(t, n)
		s.insert[n] = q
	}
	return q
}

func (s *tableSQL) pointSQL(d dialect, t string, n int) string {
	q, ok := s.pointQuery[n]
	if !ok {
		q = d.pointQuery(t, n)
		s.pointQuery[n] = q
	}
	return q
}

type pgConn struct {
	c      *pgx.Conn
	sql    map[string]*tableSQL
	stmts  map[string]string // prepared statement names by SQL text
	args   []any
	buf    []byte   // the last INSERT statement's text, reused
	param  []byte   // text of the query parameters, reused
	ends   []int    // where each parameter's text ends in param
	params [][]byte // slices of param, one per parameter
}

func (c *pgConn) table(t string) *tableSQL {
	s, ok := c.sql[t]
	if !ok {
		s = newTableSQL(postgres, t)
		c.sql[t] = s
	}
	return s
}

// Insert sends one multi-row INSERT with literal values over the simple query protocol.
func (c *pgConn) Insert(ctx context.Context, t string, rows []ib.Row) error {
	if len(rows) == 0 {
		return nil
	}
	ts := time.Unix(rows[0].DateAndTime, 0).UTC().Format(time.DateTime)
	c.buf = appendInsertLiteral(c.buf[:0], t, rows, ts, false)
	_, err := c.c.PgConn().Exec(ctx, string(c.buf)).ReadAll()
	return err
}

func (c *pgConn) DeleteOldest(ctx context.Context, t string, from, to int64) (int64, error) {
	tag, err := c.c.Exec(ctx, c.table(t).deleteOldest, from, to, to-from)
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
	if _, err := c.c.PgConn().Prepare(ctx, name, q, nil); err != nil {
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
	rr := c.c.PgConn().ExecPrepared(ctx, name, c.params[:1], nil, binaryResults)
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 3 || len(v[0]) != 4 || len(v[2]) != 4 {
			rr.Close()
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
			rr.Close()
			return out, fmt.Errorf("range query on %s.%s: unexpected column of %d bytes", t, idx, len(v[1]))
		}
		out = append(out, r)
	}
	_, err = rr.Close()
	return out, err
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
	rr := c.c.PgConn().ExecPrepared(ctx, name, params, nil, binaryResults)
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 3 || len(v[0]) != 8 || len(v[1]) != 4 {
			rr.Close()
			return out, fmt.Errorf("point query on %s: unexpected row shape", t)
		}
		out = append(out, ib.PointRow{
			ID:      int64(binary.BigEndian.Uint64(v[0])),
			Product: int32(binary.BigEndian.Uint32(v[1])),
			Data:    append([]byte(nil), v[2]...),
		})
	}
	_, err = rr.Close()
	return out, err
}

func (c *pgConn) Close() error { return c.c.Close(context.Background()) }

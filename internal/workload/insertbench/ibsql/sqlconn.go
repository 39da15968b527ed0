package ibsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/driver/wire"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

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

// sqlConn is a database/sql connection running the Insert Benchmark's statements.
type sqlConn struct {
	c     *sql.Conn
	d     dialect
	stmts map[string]*sql.Stmt
	sql   map[string]*tableSQL
	args  []any
	buf   []byte // the last literal statement's text, reused
	ts    stamp
	// prepared: queries and deletes as prepared statements (--prepared) instead of the
	// reference's text; bounded: deletes keep an upper bound (shared table).
	prepared, bounded bool
	raw               sql.RawBytes // a DATETIME's text (dialect.dateTimeText)
	// wire sends the text statements on the connection's socket (MySQL, wire.MySQL); nil: all
	// through database/sql.
	wire *wire.MySQL
}

func (c *sqlConn) table(t string) *tableSQL {
	s, ok := c.sql[t]
	if !ok {
		s = newTableSQL(c.d, t)
		c.sql[t] = s
	}
	return s
}

func (c *sqlConn) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	st, err := c.c.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.stmts[q] = st
	return st, nil
}

func (c *sqlConn) Insert(ctx context.Context, t string, rows []ib.Row) error {
	if len(rows) == 0 {
		return nil
	}
	if c.d.literalInsert { // no arguments: the driver sends the text as it is, unprepared
		c.buf = appendInsertLiteral(c.buf[:0], t, rows, c.ts.literal(rows[0].DateAndTime), true)
		if c.wire != nil {
			_, err := c.wire.Exec(ctx, c.buf)
			return err
		}
		_, err := c.c.ExecContext(ctx, string(c.buf))
		return err
	}
	st, err := c.stmt(ctx, c.table(t).insertSQL(c.d, t, len(rows)))
	if err != nil {
		return err
	}
	c.args = c.args[:0]
	for i := range rows {
		r := &rows[i]
		c.args = append(c.args, r.ID, r.DateAndTime, r.CashRegister, r.Customer, r.Product, r.Price, r.Data)
	}
	_, err = st.ExecContext(ctx, c.args...)
	return err
}

func (c *sqlConn) DeleteOldest(ctx context.Context, t string, from, to int64) (int64, error) {
	if !c.prepared {
		c.buf = c.d.deleteOldestText(c.buf[:0], t, from, to-from, c.bounded)
		if c.wire != nil {
			return c.wire.Exec(ctx, c.buf)
		}
		res, err := c.c.ExecContext(ctx, string(c.buf))
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	st, err := c.stmt(ctx, c.table(t).deleteOldest)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, from, to, to-from)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c *sqlConn) RangeQuery(ctx context.Context, t string, idx ib.Index, x int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	var rows *sql.Rows
	var err error
	if c.prepared {
		var st *sql.Stmt
		if st, err = c.stmt(ctx, c.table(t).rangeQuery[idx]); err != nil {
			return out, err
		}
		rows, err = st.QueryContext(ctx, x)
	} else {
		c.buf = c.d.rangeQueryText(c.buf[:0], t, idx, x)
		if c.wire != nil {
			return c.wireRange(ctx, t, idx, out)
		}
		rows, err = c.c.QueryContext(ctx, string(c.buf))
	}
	if err != nil {
		return out, err
	}
	defer rows.Close()
	text := idx == ib.PDC && c.d.dateTimeText
	for rows.Next() {
		var r ib.IndexRow
		if text {
			if err := rows.Scan(&r[0], &c.raw, &r[2]); err != nil {
				return out, err
			}
			if r[1], err = sqldriver.ParseDateTime(c.raw); err != nil {
				return out, fmt.Errorf("range query on %s.%s: %v", t, idx, err)
			}
		} else if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (c *sqlConn) PointQuery(ctx context.Context, t string, ids []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	var rows *sql.Rows
	var err error
	if c.prepared {
		var st *sql.Stmt
		if st, err = c.stmt(ctx, c.table(t).pointSQL(c.d, t, len(ids))); err != nil {
			return out, err
		}
		c.args = c.args[:0]
		for _, id := range ids {
			c.args = append(c.args, id)
		}
		rows, err = st.QueryContext(ctx, c.args...)
	} else {
		c.buf = pointQueryText(c.buf[:0], t, ids)
		if c.wire != nil {
			return c.wirePoint(ctx, t, out)
		}
		rows, err = c.c.QueryContext(ctx, string(c.buf))
	}
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var r ib.PointRow
		if err := rows.Scan(&r.ID, &r.Product, &r.Data); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (c *sqlConn) Close() error {
	if c.wire != nil {
		c.wire.Close()
	}
	for _, st := range c.stmts {
		st.Close()
	}
	return c.c.Close()
}

// wireRange runs the range query in c.buf on the socket (wire.MySQL), its text values parsed in
// place.
func (c *sqlConn) wireRange(ctx context.Context, t string, idx ib.Index, out []ib.IndexRow) ([]ib.IndexRow, error) {
	if err := c.wireQuery(ctx); err != nil {
		return out, err
	}
	text := idx == ib.PDC && c.d.dateTimeText
	for v, ok, err := c.wire.NextRow(); ; v, ok, err = c.wire.NextRow() {
		if !ok {
			return out, err
		}
		var r ib.IndexRow
		good := len(v) == 3
		for i := 0; good && i < 3; i++ {
			if i == 1 && text {
				r[1], err = sqldriver.ParseDateTime(v[1])
				good = err == nil
			} else {
				r[i], good = wire.Atoi(v[i])
			}
		}
		if !good {
			c.wire.Finish()
			return out, fmt.Errorf("range query on %s.%s: unexpected row %q", t, idx, v)
		}
		out = append(out, r)
	}
}

// wirePoint runs the point query in c.buf on the socket. A row's data reuses the storage of
// the row out's spare capacity holds at its place (the caller passes out[:0] of its last result).
func (c *sqlConn) wirePoint(ctx context.Context, t string, out []ib.PointRow) ([]ib.PointRow, error) {
	if err := c.wireQuery(ctx); err != nil {
		return out, err
	}
	for v, ok, err := c.wire.NextRow(); ; v, ok, err = c.wire.NextRow() {
		if !ok {
			return out, err
		}
		id, good := wire.Atoi(v[0])
		product, good2 := int64(0), false
		if good && len(v) == 3 {
			product, good2 = wire.Atoi(v[1])
		}
		if !good2 || int64(int32(product)) != product {
			c.wire.Finish()
			return out, fmt.Errorf("point query on %s: unexpected row %q", t, v)
		}
		var data []byte
		if len(out) < cap(out) {
			data = out[: len(out)+1 : len(out)+1][len(out)].Data[:0]
		}
		switch {
		case v[2] == nil: // NULL
			data = nil
		case data == nil:
			data = append([]byte{}, v[2]...) // not nil when empty, as database/sql's Scan
		default:
			data = append(data, v[2]...)
		}
		out = append(out, ib.PointRow{ID: id, Product: int32(product), Data: data})
	}
}

// wireQuery sends c.buf, a query with rows.
func (c *sqlConn) wireQuery(ctx context.Context) error {
	rows, _, err := c.wire.Query(ctx, c.buf)
	if err == nil && !rows {
		err = errors.New("mywire: the query returned no result set")
	}
	return err
}

package lbsql

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/dbperf/dbperf/internal/driver/wire"
	"github.com/jackc/pgx/v5"
)

// pgWireConn runs LinkBench's statements on a pgx connection's own socket (wire.Postgres):
// each statement with arguments prepared once (by pgconn) and run with text parameters and
// binary results, as pgx runs it; BEGIN, COMMIT and the other statements without arguments
// over the simple protocol, as pgx sends them.
//
// Why: through pgx each statement costs its watchdog timer (which wakes the runtime's network
// poller), its context watcher, argument encoding through pgtype and Scan conversions (figures:
// docs/performance.md, "The lean client paths"). --client-path driver goes through pgx.
type pgWireConn struct {
	c      *pgx.Conn // owns the connection; prepares the statements
	w      *wire.Postgres
	stmts  map[string]*pgStmt // by SQL text
	pbuf   []byte             // the parameters' text, or a statement's text for ExecSimple
	ends   []int              // where each parameter ends in pbuf
	params [][]byte           // slices of pbuf
	rows   binRows
}

// pgStmt is a prepared statement: its name and the type of each result column.
type pgStmt struct {
	name string
	oids []uint32
}

func newPGWireConn(c *pgx.Conn, poll bool) (*pgWireConn, error) {
	w, err := wire.NewPostgres(c.PgConn(), poll)
	if err != nil {
		return nil, err
	}
	return &pgWireConn{c: c, w: w, stmts: map[string]*pgStmt{}}, nil
}

// stmt returns q prepared, preparing it through pgconn the first time.
func (c *pgWireConn) stmt(ctx context.Context, q string) (*pgStmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	if err := c.w.Release(); err != nil {
		return nil, err
	}
	st := &pgStmt{name: "lb" + strconv.Itoa(len(c.stmts)+1)}
	sd, err := c.c.PgConn().Prepare(ctx, st.name, q, nil)
	if err != nil {
		return nil, err
	}
	for _, f := range sd.Fields {
		st.oids = append(st.oids, f.DataTypeOID)
	}
	c.stmts[q] = st
	return st, nil
}

// run starts q with args prepared; a statement without arguments or rows (exec) goes over the
// simple protocol, and then no pgStmt is returned.
func (c *pgWireConn) run(ctx context.Context, q string, args []any, exec bool) (*pgStmt, error) {
	if exec && len(args) == 0 {
		c.pbuf = append(c.pbuf[:0], q...)
		return nil, c.w.ExecSimple(ctx, c.pbuf)
	}
	st, err := c.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := c.encode(args); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return st, c.w.ExecPrepared(ctx, st.name, c.params)
}

func (c *pgWireConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := c.run(ctx, q, args, true)
	if err == nil && st != nil {
		for ok := true; ok; { // an exec's rows, if any, are skipped
			_, ok, err = c.w.NextRow()
		}
	}
	if err != nil {
		return 0, err
	}
	return c.w.Affected(), nil
}

func (c *pgWireConn) query(ctx context.Context, q string, args []any, fn func(rows) error) error {
	st, err := c.run(ctx, q, args, false)
	if err != nil {
		return err
	}
	c.rows = binRows{wireRows{src: c.w}, st.oids}
	err = fn(&c.rows)
	c.rows.drain()
	if err != nil {
		return err
	}
	return c.rows.err
}

func (c *pgWireConn) close() error {
	c.w.Close()
	c.w.Release()
	return c.c.Close(context.Background())
}

// encode writes args as text parameters: integers in decimal, bytes in bytea's hex form (every
// byte argument of LinkBench's statements is a bytea column's; the same-results test would
// show a text column storing the hex). A nil slice goes as empty, not NULL: LinkBench's
// payloads are never NULL, its data columns NOT NULL.
func (c *pgWireConn) encode(args []any) error {
	c.pbuf, c.ends = c.pbuf[:0], c.ends[:0]
	for i, a := range args {
		switch a := a.(type) {
		case int64:
			c.pbuf = strconv.AppendInt(c.pbuf, a, 10)
		case int:
			c.pbuf = strconv.AppendInt(c.pbuf, int64(a), 10)
		case int32:
			c.pbuf = strconv.AppendInt(c.pbuf, int64(a), 10)
		case []byte:
			c.pbuf = append(c.pbuf, `\x`...)
			c.pbuf = hex.AppendEncode(c.pbuf, a)
		default:
			return fmt.Errorf("argument %d: unsupported type %T", i+1, a)
		}
		c.ends = append(c.ends, len(c.pbuf))
	}
	c.params = c.params[:0]
	start := 0
	for _, end := range c.ends {
		c.params = append(c.params, c.pbuf[start:end:end])
		start = end
	}
	return nil
}

// PostgreSQL type OIDs of the columns LinkBench reads.
const (
	oidInt8  = 20
	oidInt2  = 21
	oidInt4  = 23
	oidBytea = 17
)

// binRows reads a prepared statement's binary rows from the socket. Scan fills *int64 from
// bigint, integer and smallint columns and *[]byte from bytea (in place, valid until the next
// Next: scanTarget copies it), the types LinkBench reads.
type binRows struct {
	wireRows
	oids []uint32
}

func (r *binRows) Scan(dest ...any) error {
	if len(dest) != len(r.vals) || len(r.vals) != len(r.oids) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		v, oid := r.vals[i], r.oids[i]
		switch d := d.(type) {
		case *int64:
			switch {
			case oid == oidInt8 && len(v) == 8:
				*d = int64(binary.BigEndian.Uint64(v))
			case oid == oidInt4 && len(v) == 4:
				*d = int64(int32(binary.BigEndian.Uint32(v)))
			case oid == oidInt2 && len(v) == 2:
				*d = int64(int16(binary.BigEndian.Uint16(v)))
			default:
				return fmt.Errorf("scan: column %d (type %d, %d bytes) into an integer", i+1, oid, len(v))
			}
		case *[]byte:
			if oid != oidBytea {
				return fmt.Errorf("scan: column %d (type %d) into bytes", i+1, oid)
			}
			*d = v // nil for NULL
		default:
			return fmt.Errorf("scan: column %d: unsupported destination %T", i+1, d)
		}
	}
	return nil
}

package lbsql

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/driver/wire"
)

// myWireConn sends LinkBench's statements to MySQL as text on the connection's own socket
// (wire.MySQL) and parses the text rows in place, beside database/sql rather than through it.
// The arguments are written into the text as the reference's LinkStoreMysql does: integers in
// decimal, and payloads as hex literals, the form its stringLiteral falls back to
// (hexStringLiteral) for any byte other than a letter or digit, which nearly every payload has.
// A nil payload goes as empty, not NULL: the data columns are NOT NULL.
//
// Why: through database/sql each statement under the requester's cancelable context costs
// goroutine hand-offs (Rows.awaitDone, the driver's watchCancel) and per-value conversions
// (figures: docs/performance.md, "The lean client paths"). --client-path driver goes through
// database/sql.
//
// With prepared (--query-mode prepared) each statement with arguments is prepared on the server
// once per connection (COM_STMT_PREPARE) and executed with binary parameters and rows
// (COM_STMT_EXECUTE), as the mdcallag fork's Connector/J sends them (useServerPrepStmts=true,
// cachePrepStmts=true); statements without arguments (BEGIN, COMMIT, the checks' scans) and
// MULTIGET_LINK, which the fork builds as text (LinkStoreSql.java multigetLinksImpl), stay text.
type myWireConn struct {
	c        *sql.Conn // owns the connection: it connected and authenticated, and closes it
	w        *wire.MySQL
	buf      []byte // the last statement's text, reused
	rows     textRows
	prepared bool
	stmts    map[string]*wire.MyStmt // by text, with prepared
	bin      myBinRows
}

func (c *myWireConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	if c.prepared && len(args) > 0 {
		st, err := c.stmt(ctx, q)
		if err != nil {
			return 0, err
		}
		return c.w.ExecuteNoRows(ctx, st, notNull(args))
	}
	var err error
	if c.buf, err = interpolate(c.buf[:0], q, args); err != nil {
		return 0, err
	}
	return c.w.Exec(ctx, c.buf)
}

// queueBegin sends q (BEGIN) with the next statement, in the same write (wire.MySQL.Queue).
func (c *myWireConn) queueBegin(q string) error { return c.w.Queue([]byte(q)) }

// stmt returns q prepared, preparing it the first time.
func (c *myWireConn) stmt(ctx context.Context, q string) (*wire.MyStmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	st, err := c.w.Prepare(ctx, []byte(q))
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", q, err)
	}
	if c.stmts == nil {
		c.stmts = map[string]*wire.MyStmt{}
	}
	c.stmts[q] = st
	return st, nil
}

func (c *myWireConn) query(ctx context.Context, q string, args []any, fn func(rows) error) error {
	if !c.prepared || len(args) == 0 {
		return c.queryText(ctx, q, args, fn)
	}
	st, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	hasRows, _, err := c.w.Execute(ctx, st, notNull(args))
	if err != nil {
		return err
	}
	if !hasRows {
		return fmt.Errorf("%s: the query returned no result set", q)
	}
	c.bin = myBinRows{wireRows{src: c.w}, st}
	err = fn(&c.bin)
	c.bin.drain()
	if err != nil {
		return err
	}
	return c.bin.err
}

// notNull makes each nil []byte in args empty: a nil payload goes as empty, not NULL, as in
// the text (the data columns are NOT NULL).
func notNull(args []any) []any {
	for i, a := range args {
		if b, ok := a.([]byte); ok && b == nil {
			args[i] = []byte{}
		}
	}
	return args
}

// queryText sends q with its arguments written in, whatever the mode.
func (c *myWireConn) queryText(ctx context.Context, q string, args []any, fn func(rows) error) error {
	var err error
	if c.buf, err = interpolate(c.buf[:0], q, args); err != nil {
		return err
	}
	hasRows, _, err := c.w.Query(ctx, c.buf)
	if err != nil {
		return err
	}
	if !hasRows {
		return fmt.Errorf("%s: the query returned no result set", q)
	}
	c.rows = textRows{wireRows{src: c.w}}
	err = fn(&c.rows)
	c.rows.drain()
	if err != nil {
		return err
	}
	return c.rows.err
}

func (c *myWireConn) close() error {
	c.w.Close()
	return c.c.Close() // the server frees the connection's statements
}

// myBinRows reads a prepared statement's binary rows. Scan fills *int64 from the integer
// columns and *[]byte from the others (in place, valid until the next Next).
type myBinRows struct {
	wireRows
	st *wire.MyStmt
}

func (r *myBinRows) Scan(dest ...any) error {
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		v := r.vals[i]
		switch d := d.(type) {
		case *int64:
			n, ok := r.st.Int(i, v)
			if !ok {
				return fmt.Errorf("scan: column %d (% x) is not an integer", i+1, v)
			}
			*d = n
		case *[]byte:
			*d = v // nil for NULL
		default:
			return fmt.Errorf("scan: column %d: unsupported destination %T", i+1, d)
		}
	}
	return nil
}

// textRows reads a result set's text rows from the socket. Scan fills *int64 and *[]byte (the
// value in place, valid until the next Next: scanTarget copies it), the types
// LinkBench reads.
type textRows struct{ wireRows }

func (r *textRows) Scan(dest ...any) error {
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		v := r.vals[i]
		switch d := d.(type) {
		case *int64:
			n, ok := wire.Atoi(v)
			if !ok {
				return fmt.Errorf("scan: column %d is %q, not an integer", i+1, v)
			}
			*d = n
		case *[]byte:
			*d = v // nil for NULL
		default:
			return fmt.Errorf("scan: column %d: unsupported destination %T", i+1, d)
		}
	}
	return nil
}

// interpolate appends q to b with each ? replaced by the next argument as a literal. LinkBench's
// statements have no ? but their placeholders.
func interpolate(b []byte, q string, args []any) ([]byte, error) {
	stmt, n := q, 0
	for {
		i := strings.IndexByte(q, '?')
		if i < 0 {
			break
		}
		if n == len(args) {
			return b, fmt.Errorf("%s: more placeholders than its %d arguments", stmt, len(args))
		}
		b = append(b, q[:i]...)
		q = q[i+1:]
		switch a := args[n].(type) {
		case int64:
			b = strconv.AppendInt(b, a, 10)
		case int:
			b = strconv.AppendInt(b, int64(a), 10)
		case int32:
			b = strconv.AppendInt(b, int64(a), 10)
		case []byte:
			b = append(b, "x'"...)
			b = hex.AppendEncode(b, a)
			b = append(b, '\'')
		default:
			return b, fmt.Errorf("%s: argument %d: unsupported type %T", stmt, n+1, a)
		}
		n++
	}
	if n != len(args) {
		return b, fmt.Errorf("%s: %d arguments for %d placeholders", stmt, len(args), n)
	}
	return append(b, q...), nil
}

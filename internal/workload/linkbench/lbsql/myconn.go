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
// Why (measured, docs/performance.md "dbperf beside C clients"): through database/sql each
// statement under the requester's cancelable context costs goroutine hand-offs
// (Rows.awaitDone, the driver's watchCancel) and per-value conversions: LinkBench's request
// step, one requester, spent 15 µs of user CPU per operation against sysbench's 5-7 on the
// same statements. --client-path driver goes through database/sql.
type myWireConn struct {
	c    *sql.Conn // owns the connection: it connected and authenticated, and closes it
	w    *wire.MySQL
	buf  []byte // the last statement's text, reused
	rows textRows
}

func (c *myWireConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	var err error
	if c.buf, err = interpolate(c.buf[:0], q, args); err != nil {
		return 0, err
	}
	return c.w.Exec(ctx, c.buf)
}

func (c *myWireConn) query(ctx context.Context, q string, args []any, fn func(rows) error) error {
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
	return c.c.Close()
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

package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Server-side prepared statements on MySQL's lean path (--query-mode prepared): COM_STMT_PREPARE
// once per statement and connection, then COM_STMT_EXECUTE with binary parameters, whose result
// rows come in the binary protocol. This is what Connector/J sends with useServerPrepStmts=true
// (the mdcallag fork of LinkBench, LinkStoreMysql.java getJdbcOptions): the server parses and
// plans the text once, not at every execution.
//
// The rows are read by NextRow as for COM_QUERY; each value is then the binary protocol's bytes
// (an integer's little-endian bytes, a string's bytes, nil for NULL), which MyStmt.Int reads.

// MyStmt is a statement prepared on the connection that prepared it.
type MyStmt struct {
	ID     uint32
	Params int
	cols   []myColumn // the result columns, from the prepare reply or the last execution's
	buf    []byte     // the last execution's packet payload, reused
}

// myColumn is what reading a binary value needs of a column's definition.
type myColumn struct {
	typ      byte
	unsigned bool
}

// Column types (https://mariadb.com/kb/en/result-set-packets/#field-types) and commands.
const (
	myTypeDecimal  = 0x00
	myTypeTiny     = 0x01
	myTypeShort    = 0x02
	myTypeLong     = 0x03
	myTypeFloat    = 0x04
	myTypeDouble   = 0x05
	myTypeNull     = 0x06
	myTypeTime     = 0x07 // TIMESTAMP
	myTypeLongLong = 0x08
	myTypeInt24    = 0x09
	myTypeDate     = 0x0a
	myTypeTimeOnly = 0x0b
	myTypeDateTime = 0x0c
	myTypeYear     = 0x0d
	myTypeString   = 0xfe
	myUnsignedFlag = 0x20 // a column definition's flags
	myUnsignedArg  = 0x80 // a parameter type's second byte

	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19
)

// Prepare prepares q on the server.
func (w *MySQL) Prepare(ctx context.Context, q []byte) (*MyStmt, error) {
	if err := w.begin(ctx); err != nil {
		return nil, err
	}
	if err := w.command(comStmtPrepare, q); err != nil {
		return nil, err
	}
	p, err := w.packet()
	if err != nil {
		return nil, err
	}
	if len(p) > 0 && p[0] == 0xff {
		err := w.errPacket(p)
		w.end()
		return nil, err
	}
	if len(p) < 12 || p[0] != 0 {
		return nil, w.fail(fmt.Errorf("mywire: bad prepare reply % x", p[:min(len(p), 16)]))
	}
	st := &MyStmt{ID: binary.LittleEndian.Uint32(p[1:]), Params: int(binary.LittleEndian.Uint16(p[7:]))}
	cols := int(binary.LittleEndian.Uint16(p[5:]))
	if err := w.definitions(st.Params, nil); err != nil {
		return nil, err
	}
	st.cols = make([]myColumn, cols)
	if err := w.definitions(cols, st.cols); err != nil {
		return nil, err
	}
	w.end()
	return st, nil
}

// definitions reads n column definitions (into cols, when not nil) and the EOF after them.
func (w *MySQL) definitions(n int, cols []myColumn) error {
	if n == 0 {
		return nil
	}
	for i := range n {
		p, err := w.packet()
		if err != nil {
			return err
		}
		if cols != nil {
			if cols[i], err = parseColumn(p); err != nil {
				return w.fail(err)
			}
		}
	}
	if !w.deprecateEOF {
		if p, err := w.packet(); err != nil {
			return err
		} else if len(p) == 0 || p[0] != 0xfe {
			return w.fail(errors.New("mywire: no EOF after the definitions"))
		}
	}
	return nil
}

// parseColumn reads a column definition's type and flags from its fixed-length tail: 0x0c,
// character set (2), length (4), type (1), flags (2), decimals (1), filler (2).
func parseColumn(p []byte) (myColumn, error) {
	if len(p) < 13 || p[len(p)-13] != 0x0c {
		return myColumn{}, errors.New("mywire: bad column definition")
	}
	t := p[len(p)-13:]
	return myColumn{typ: t[7], unsigned: binary.LittleEndian.Uint16(t[8:])&myUnsignedFlag != 0}, nil
}

// column records an executed statement's result column i from its definition p (mysql.go's
// result calls it for a binary result).
func (st *MyStmt) column(i, n int, p []byte) error {
	if len(st.cols) != n {
		st.cols = make([]myColumn, n)
	}
	c, err := parseColumn(p)
	st.cols[i] = c
	return err
}

// Execute runs st with args (int64, int, int32, uint64, float64, []byte, string or nil; or
// *int64 and *[]byte, which a caller reuses so that no statement boxes a value) and
// reads its reply's first result: rows then come from NextRow, in the binary protocol; without
// rows, its affected rows are returned.
func (w *MySQL) Execute(ctx context.Context, st *MyStmt, args []any) (rows bool, affected int64, err error) {
	if len(args) != st.Params {
		return false, 0, fmt.Errorf("mywire: %d arguments for %d parameters", len(args), st.Params)
	}
	if st.buf, err = appendExecute(st.buf[:0], st.ID, args); err != nil {
		return false, 0, err
	}
	if err := w.begin(ctx); err != nil {
		return false, 0, err
	}
	w.stmt = st
	if err := w.command(comStmtExecute, st.buf); err != nil {
		return false, 0, err
	}
	rows, affected, err = w.result()
	if rows && len(st.cols) != w.cols {
		return false, 0, w.fail(fmt.Errorf("mywire: %d result columns, %d defined", w.cols, len(st.cols)))
	}
	if !rows && err == nil && w.more {
		err = w.drain()
	}
	if !rows {
		w.end()
	}
	return rows, affected, err
}

// ExecuteNoRows runs st, a statement without rows, and returns its affected rows.
func (w *MySQL) ExecuteNoRows(ctx context.Context, st *MyStmt, args []any) (int64, error) {
	rows, n, err := w.Execute(ctx, st, args)
	if rows {
		w.Finish()
		return 0, w.fail(errors.New("mywire: a statement without rows returned rows"))
	}
	return n, err
}

// CloseStmt frees st on the server (COM_STMT_CLOSE, which has no reply).
func (w *MySQL) CloseStmt(st *MyStmt) error {
	if err := w.begin(context.Background()); err != nil {
		return err
	}
	b := binary.LittleEndian.AppendUint32(append(w.wbuf[:0], 5, 0, 0, 0, comStmtClose), st.ID)
	w.wbuf = b
	if err := w.writeAll(b); err != nil {
		return w.sockErr(err)
	}
	w.end()
	return nil
}

// appendExecute appends COM_STMT_EXECUTE's payload after the command byte: statement id, no
// cursor, one iteration, the NULL bitmap, the parameters' types and their values.
func appendExecute(b []byte, id uint32, args []any) ([]byte, error) {
	b = binary.LittleEndian.AppendUint32(b, id)
	b = append(b, 0)                           // flags: no cursor
	b = binary.LittleEndian.AppendUint32(b, 1) // iteration count
	if len(args) == 0 {
		return b, nil
	}
	nulls := len(b)
	b = append(b, make([]byte, (len(args)+7)/8)...)
	b = append(b, 1) // new parameters bound: the types follow
	types := len(b)
	b = append(b, make([]byte, 2*len(args))...)
	for i, a := range args {
		t, flag := byte(myTypeLongLong), byte(0)
		switch a := a.(type) {
		case int64:
			b = binary.LittleEndian.AppendUint64(b, uint64(a))
		case *int64: // a caller's reused cell: no allocation to box the value
			b = binary.LittleEndian.AppendUint64(b, uint64(*a))
		case int:
			b = binary.LittleEndian.AppendUint64(b, uint64(a))
		case int32:
			b = binary.LittleEndian.AppendUint64(b, uint64(a))
		case uint64:
			b, flag = binary.LittleEndian.AppendUint64(b, a), myUnsignedArg
		case float64:
			b, t = binary.LittleEndian.AppendUint64(b, math.Float64bits(a)), myTypeDouble
		case []byte:
			if a == nil {
				b[nulls+i/8] |= 1 << (i % 8)
				t = myTypeNull
				break
			}
			b, t = append(appendLenencInt(b, uint64(len(a))), a...), myTypeString
		case string:
			b, t = append(appendLenencInt(b, uint64(len(a))), a...), myTypeString
		case *[]byte: // a caller's reused cell, never NULL
			b, t = append(appendLenencInt(b, uint64(len(*a))), *a...), myTypeString
		case nil:
			b[nulls+i/8] |= 1 << (i % 8)
			t = myTypeNull
		default:
			return b, fmt.Errorf("mywire: argument %d: unsupported type %T", i+1, a)
		}
		b[types+2*i], b[types+2*i+1] = t, flag
	}
	return b, nil
}

func appendLenencInt(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return binary.LittleEndian.AppendUint16(append(b, 0xfc), uint16(n))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// command sends one command with its payload, in packets of at most 16 MiB - 1 bytes, with one
// write, and reads the start of the reply.
func (w *MySQL) command(cmd byte, body []byte) error {
	b := w.pipe.prefix(w.wbuf[:0])
	payload, first := len(body)+1, true
	for {
		size := min(payload, maxPayload)
		b = append(b, byte(size), byte(size>>8), byte(size>>16), w.seq)
		w.seq++
		n := size
		if first {
			b = append(b, cmd)
			n, first = size-1, false
		}
		b = append(b, body[:n]...)
		body, payload = body[n:], payload-size
		if size < maxPayload { // a full packet is followed by another, possibly empty
			break
		}
	}
	w.wbuf = b
	if err := w.Exchange(b); err != nil { // the reply's start is read too
		return w.sockErr(err)
	}
	return w.pipeReplies()
}

// myPipe is text statements queued to be sent in the same write as the next statement, each
// its own command (packet numbered 0), before it: the server runs them in turn, and their
// replies come first.
type myPipe struct {
	b []byte // the queued commands' packets
	n int
}

func (p *myPipe) prefix(b []byte) []byte {
	b = append(b, p.b...)
	p.b = p.b[:0]
	return b
}

// Queue sends q, a short text statement without rows such as BEGIN, in the same write as the
// next statement (Query, Exec, Prepare or Execute), saving its round trip: LinkBench's write
// transactions start so, as the references' connections with autocommit off start theirs with
// no statement at all (LinkStoreMysql.java: conn_rw, setAutoCommit(false)). Its reply is read
// before the next statement's; an error there fails the connection, since the statement after
// it then ran on its own.
func (w *MySQL) Queue(q []byte) error {
	if len(q)+1 >= maxPayload {
		return errors.New("mywire: a queued statement must fit one packet")
	}
	size := len(q) + 1
	w.pipe.b = append(w.pipe.b, byte(size), byte(size>>8), byte(size>>16), 0, comQuery)
	w.pipe.b = append(w.pipe.b, q...)
	w.pipe.n++
	return nil
}

// pipeReplies reads the replies of the statements queued before the one just sent: each must
// be an OK packet.
func (w *MySQL) pipeReplies() error {
	n, seq := w.pipe.n, w.seq
	w.pipe.n = 0
	for range n {
		w.seq = 1
		p, err := w.packet()
		if err != nil {
			return err
		}
		switch {
		case len(p) > 0 && p[0] == 0xff:
			return w.fail(fmt.Errorf("mywire: a queued statement failed: %w", w.errPacket(p)))
		case len(p) == 0 || p[0] != 0:
			return w.fail(errors.New("mywire: a queued statement returned rows"))
		}
		if _, err := w.okPacket(p); err != nil {
			return err
		}
		if w.more {
			return w.fail(errors.New("mywire: a queued statement returned several results"))
		}
	}
	w.seq = seq
	return nil
}

// binaryRow reads a binary result row p (header 0x00, the NULL bitmap offset by 2 bits, the
// values of the columns that are not NULL).
func (w *MySQL) binaryRow(p []byte) ([][]byte, bool, error) {
	cols := w.stmt.cols
	nb := (len(cols) + 9) / 8
	if len(p) < 1+nb || p[0] != 0 {
		return nil, false, w.fail(errors.New("mywire: bad binary row"))
	}
	nulls, p := p[1:1+nb], p[1+nb:]
	vals := w.vals[:0]
	for i, c := range cols {
		if nulls[(i+2)/8]&(1<<((i+2)%8)) != 0 {
			vals = append(vals, nil)
			continue
		}
		size, k := binarySize(c.typ, p)
		if size < 0 || k+size > len(p) {
			return nil, false, w.fail(errors.New("mywire: short binary row"))
		}
		end := k + size
		vals, p = append(vals, p[k:end:end]), p[end:]
	}
	w.vals = vals
	return vals, true, nil
}

// binarySize is the size of a binary value of type t at the start of p and where it starts
// (after its length); size -1 if p is too short to say.
func binarySize(t byte, p []byte) (size, start int) {
	switch t {
	case myTypeNull:
		return 0, 0
	case myTypeTiny:
		return 1, 0
	case myTypeShort, myTypeYear:
		return 2, 0
	case myTypeLong, myTypeInt24, myTypeFloat:
		return 4, 0
	case myTypeLongLong, myTypeDouble:
		return 8, 0
	case myTypeDate, myTypeDateTime, myTypeTime, myTypeTimeOnly:
		if len(p) == 0 {
			return -1, 0
		}
		return int(p[0]), 1
	}
	n, k, ok := lenenc(p)
	if !ok || n > math.MaxInt32 {
		return -1, 0
	}
	return int(n), k
}

// Int reads value v of result column i as an integer: a binary integer of the column's width
// and sign, or the text of a DECIMAL or string column.
func (st *MyStmt) Int(i int, v []byte) (int64, bool) {
	if i >= len(st.cols) {
		return 0, false
	}
	c := st.cols[i]
	switch c.typ {
	case myTypeTiny:
		if len(v) == 1 {
			if c.unsigned {
				return int64(v[0]), true
			}
			return int64(int8(v[0])), true
		}
	case myTypeShort, myTypeYear:
		if len(v) == 2 {
			n := binary.LittleEndian.Uint16(v)
			if c.unsigned {
				return int64(n), true
			}
			return int64(int16(n)), true
		}
	case myTypeLong, myTypeInt24:
		if len(v) == 4 {
			n := binary.LittleEndian.Uint32(v)
			if c.unsigned {
				return int64(n), true
			}
			return int64(int32(n)), true
		}
	case myTypeLongLong:
		if len(v) == 8 {
			n := binary.LittleEndian.Uint64(v)
			return int64(n), !c.unsigned || n < 1<<63
		}
	case myTypeFloat, myTypeDouble, myTypeNull, myTypeDate, myTypeDateTime, myTypeTime, myTypeTimeOnly:
	default:
		return Atoi(v)
	}
	return 0, false
}

package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/go-sql-driver/mysql"
)

// MySQL sends text statements as COM_QUERY packets on a go-sql-driver/mysql connection's own
// socket and reads the text result set into one reused buffer, beside database/sql rather than
// through it: the Insert Benchmark's q-step queries, deletes and literal INSERTs (ibsql), and
// LinkBench's statements with their arguments written into the text (lbsql), as the
// reference's JDBC code sends them.
//
// Why: database/sql hands every statement with a cancelable context to two goroutines (a
// futex wake-up each) and converts every row; MySQL writes each statement once, reads the reply
// into one buffer and watches a context once, not per statement (figures: docs/performance.md,
// "The lean client paths"). Its reads and writes are rawsock's raw system calls (--client-path
// raw) or net.Conn's (netconn). The race detector does not see the raw calls' reads and writes (system calls,
// not instrumented memory accesses), so the fake-server tests (mysql_fake_test.go) run
// through net.Conn too (poll), where it does.
//
// go-sql-driver stays the connection's owner: it connects, authenticates, and runs every other
// statement. MySQL uses the socket only between the driver's operations (the caller runs both
// on one goroutine and reads every reply to its end), so the driver finds the connection as it
// left it. --client-path driver sends the statements through database/sql
// instead.
//
// It keeps the driver's guarantees: a server error is the driver's *mysql.MySQLError; a
// canceled statement closes the socket, as the driver's cancel does, and also sends KILL
// QUERY on another connection (MySQLSocket.Kill), which the driver does not, so that the
// server stops it; anything out of step (a packet out of sequence, bytes after a reply, a
// length that does not fit) closes the connection, so the driver's next operation fails
// rather than read a stranger's reply. One thing the driver keeps it cannot update: the status
// flags of the last reply the driver read, whose NO_BACKSLASH_ESCAPES its interpolateParams
// escapes by. After a statement here that may change sql_mode (a user's script), a caller
// sends the driver's statements with arguments prepared, not interpolated (scriptsql does).
type MySQL struct {
	Sock
	kill         func() // KILL QUERY on another connection (MySQLSocket.Kill), or nil
	deprecateEOF bool   // CLIENT_DEPRECATE_EOF: no EOF after the columns; an OK ends the rows
	cacheMeta    bool   // MariaDB's cache-metadata flag: a byte after the column count

	wbuf []byte
	seq  byte   // the next packet's sequence id
	big  []byte // a payload of several packets (16 MiB or more), joined

	// ctx is the context whose cancellation closes the socket while a statement runs (busy);
	// stop unregisters that.
	ctx  context.Context
	stop func() bool
	gen  int64        // ctx's generation, counting from 1
	busy atomic.Int64 // 0: idle; gen: a statement runs under ctx; -1: ctx's cancellation closed the socket
	err  error        // the connection's fatal error: once set, every call returns it

	// the reply being read
	cols   int      // columns of the current result set
	inRows bool     // its rows are being read
	more   bool     // SERVER_MORE_RESULTS_EXISTS: another result follows
	status uint16   // the server status flags of the last OK or EOF packet
	vals   [][]byte // the current row's values (nil: NULL), slices of rbuf
	stmt   *MyStmt  // the prepared statement executing: its rows are binary (mystmt.go); nil for COM_QUERY
	pipe   myPipe   // statements queued to go with the next one (mystmt.go)
}

// MySQL protocol constants (https://mariadb.com/kb/en/clientserver-protocol/).
const (
	comQuery          = 0x03
	maxPayload        = 1<<24 - 1
	serverMoreResults = 0x0008
	serverInTrans     = 0x0001  // SERVER_STATUS_IN_TRANS: a transaction is open
	maxColumns        = 1 << 16 // far above any server's limit (MySQL and MariaDB: 4096)
)

// NewMySQL makes the lean path on s; poll reads and writes through net.Conn rather than raw
// system calls (--client-path netconn).
func NewMySQL(s *sqldriver.MySQLSocket, poll bool) *MySQL {
	return &MySQL{
		Sock:         NewSock(s.Conn, poll),
		kill:         s.Kill,
		deprecateEOF: s.Capabilities&sqldriver.MySQLClientDeprecateEOF != 0,
		cacheMeta:    s.ExtCapabilities&sqldriver.MariaDBClientCacheMetadata != 0,
	}
}

// begin starts a statement: the socket is closed if ctx is canceled before the reply is read.
func (w *MySQL) begin(ctx context.Context) error {
	if w.err != nil {
		return w.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.inRows || w.more {
		return w.fail(errors.New("mywire: a statement began before the last reply was read"))
	}
	if w.r < w.n { // the server sent something after the last reply: it is not this one's
		return w.fail(w.unasked())
	}
	if ctx != w.ctx {
		if w.stop != nil {
			w.stop()
		}
		w.gen++
		w.ctx, w.stop = ctx, nil
		if ctx.Done() != nil {
			gen := w.gen
			w.stop = context.AfterFunc(ctx, func() {
				if w.busy.CompareAndSwap(gen, -1) {
					w.nc.Close() // ends a blocked read; the driver then finds the connection closed
					if w.kill != nil {
						w.kill() // the server would run the statement to its end
					}
				}
			})
		}
	}
	// busy before the context's second check: a cancellation from now on either shows there
	// or closes the socket, never both and never neither.
	w.busy.Store(w.gen)
	if err := ctx.Err(); err != nil {
		if w.busy.CompareAndSwap(w.gen, 0) {
			return err
		}
		return w.fail(w.ioErr(err))
	}
	w.seq = 0
	w.stmt = nil
	return nil
}

// end marks the reply read, once per statement however many results it had: a cancellation
// from now on leaves the socket alone. If one closed the socket meanwhile, the next statement
// returns that.
func (w *MySQL) end() {
	if !w.busy.CompareAndSwap(w.gen, 0) && w.err == nil {
		w.fail(w.ioErr(errors.New("closed after the reply")))
	}
}

func (w *MySQL) fail(err error) error {
	if w.err == nil {
		w.err = err
		w.nc.Close() // the driver's next operation fails too
	}
	w.busy.Store(0)
	w.inRows, w.more = false, false
	w.pipe = myPipe{}
	return w.err
}

// Close stops watching the last context (the connection is the driver's to close).
func (w *MySQL) Close() {
	if w.stop != nil {
		w.stop()
	}
}

// Query sends q as COM_QUERY and reads the reply's first result: rows then come from NextRow;
// without rows, its affected rows are returned.
func (w *MySQL) Query(ctx context.Context, q []byte) (rows bool, affected int64, err error) {
	if err := w.begin(ctx); err != nil {
		return false, 0, err
	}
	if err := w.command(comQuery, q); err != nil {
		return false, 0, err
	}
	rows, affected, err = w.result()
	if !rows && err == nil && w.more {
		err = w.drain()
	}
	if !rows {
		w.end()
	}
	return rows, affected, err
}

// Exec runs q, a statement without rows, and returns its affected rows.
func (w *MySQL) Exec(ctx context.Context, q []byte) (int64, error) {
	rows, n, err := w.Query(ctx, q)
	if rows {
		w.Finish()
		return 0, w.fail(errors.New("mywire: a statement without rows returned rows"))
	}
	return n, err
}

func (w *MySQL) ioErr(err error) error {
	if w.ctx != nil && w.ctx.Err() != nil {
		return fmt.Errorf("mywire: %w (the connection was closed: %v)", w.ctx.Err(), err)
	}
	return err
}

// packet reads the next packet's payload, joining the packets of one of 16 MiB or more; it is
// valid until the next read.
func (w *MySQL) packet() ([]byte, error) {
	p, err := w.onePacket()
	if err != nil || len(p) < maxPayload {
		return p, err
	}
	w.big = append(w.big[:0], p...)
	for len(p) == maxPayload {
		if p, err = w.onePacket(); err != nil {
			return nil, err
		}
		w.big = append(w.big, p...)
	}
	return w.big, nil
}

func (w *MySQL) onePacket() ([]byte, error) {
	if err := w.fill(4); err != nil {
		return nil, err
	}
	h := w.rbuf[w.r:]
	size := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != w.seq {
		return nil, w.outOfSync(h[3], size)
	}
	w.seq++
	if err := w.fill(4 + size); err != nil {
		return nil, err
	}
	p := w.rbuf[w.r+4 : w.r+4+size : w.r+4+size]
	w.r += 4 + size
	return p, nil
}

// outOfSync fails the connection on a packet numbered seq, not the one expected. An error
// packet is the server's error (servers number some from 0, as MySQL 8's 4031 on an idle
// connection), as go-sql-driver gives it, and still fatal: the reply cannot be trusted.
func (w *MySQL) outOfSync(seq byte, size int) error {
	if size > 0 && size < 1<<16 && w.fill(4+size) == nil && w.rbuf[w.r+4] == 0xff {
		p := w.rbuf[w.r+4 : w.r+4+size]
		w.r += 4 + size
		return w.fail(w.errPacket(p))
	}
	return w.fail(fmt.Errorf("mywire: packet %d, expected %d: out of sync", seq, w.seq))
}

// unasked is the error for bytes read after a reply: the server's error if they are one (sent
// before it closed the connection), else that they came.
func (w *MySQL) unasked() error {
	b := w.Buffered()
	if len(b) > 4 && b[4] == 0xff {
		if size := int(b[0]) | int(b[1])<<8 | int(b[2])<<16; size >= 3 && len(b) >= 4+size {
			return fmt.Errorf("mywire: the server sent an error after the last reply: %w", w.errPacket(b[4:4+size]))
		}
	}
	return fmt.Errorf("mywire: the server sent %d bytes after the last reply", len(b))
}

// fill reads until at least n unread bytes are buffered.
func (w *MySQL) fill(n int) error {
	if err := w.Fill(n); err != nil {
		return w.sockErr(err)
	}
	return nil
}

// sockErr makes a failed read or write on the socket the connection's fatal error.
func (w *MySQL) sockErr(err error) error {
	if err == io.EOF {
		err = errors.New("mywire: the server closed the connection")
	}
	return w.fail(w.ioErr(err))
}

// result reads the header of the next result: OK (no rows; its affected rows), ERR (the
// statement's error, the reply's end), or a result set's columns, whose rows follow.
func (w *MySQL) result() (rows bool, affected int64, err error) {
	p, err := w.packet()
	if err != nil {
		return false, 0, err
	}
	if len(p) == 0 {
		return false, 0, w.fail(errors.New("mywire: empty packet"))
	}
	switch p[0] {
	case 0x00:
		n, err := w.okPacket(p)
		return false, n, err
	case 0xff:
		return false, 0, w.errPacket(p)
	case 0xfb:
		return false, 0, w.fail(errors.New("mywire: the server asked for a local file"))
	}
	cols, k, ok := lenenc(p)
	if !ok || cols == 0 || cols > maxColumns {
		return false, 0, w.fail(fmt.Errorf("mywire: bad result header % x", p[:min(len(p), 16)]))
	}
	metadata := !w.cacheMeta || len(p) <= k || p[k] == 1
	if metadata {
		for i := range int(cols) {
			p, err := w.packet()
			if err != nil {
				return false, 0, err
			}
			if w.stmt != nil { // binary rows: their columns' types are needed
				if err := w.stmt.column(i, int(cols), p); err != nil {
					return false, 0, w.fail(err)
				}
			}
		}
	}
	if !w.deprecateEOF {
		if p, err := w.packet(); err != nil {
			return false, 0, err
		} else if len(p) == 0 || p[0] != 0xfe {
			return false, 0, w.fail(errors.New("mywire: no EOF after the column definitions"))
		}
	}
	w.cols, w.inRows = int(cols), true
	return true, 0, nil
}

// NextRow returns the current result set's next row, or false at the reply's end; err is then
// the statement's error, if any. Results after the first (SERVER_MORE_RESULTS_EXISTS), which
// the benchmarks' statements do not have, are read and dropped. The values are valid until
// the next call.
func (w *MySQL) NextRow() (vals [][]byte, ok bool, err error) {
	if !w.inRows {
		return nil, false, w.err
	}
	if vals, ok, err = w.row(); !ok {
		if err == nil && w.more {
			err = w.drain()
		}
		w.end()
	}
	return vals, ok, err
}

// row reads the current result set's next row, or its end: the reply's end unless w.more.
func (w *MySQL) row() (vals [][]byte, ok bool, err error) {
	p, err := w.packet()
	if err != nil {
		return nil, false, err
	}
	switch {
	case len(p) > 0 && p[0] == 0xfe && len(p) < maxPayload: // the rows' end (EOF or OK)
		w.inRows = false
		if w.deprecateEOF {
			_, err = w.okPacket(p)
		} else if len(p) >= 5 {
			w.status = binary.LittleEndian.Uint16(p[3:])
			w.more = w.status&serverMoreResults != 0
		}
		return nil, false, err
	case len(p) > 0 && p[0] == 0xff:
		w.inRows = false
		return nil, false, w.errPacket(p)
	}
	if w.stmt != nil {
		return w.binaryRow(p)
	}
	vals = w.vals[:0]
	for range w.cols {
		if len(p) > 0 && p[0] == 0xfb {
			vals, p = append(vals, nil), p[1:]
			continue
		}
		size, k, ok := lenenc(p)
		if !ok || uint64(len(p)-k) < size {
			return nil, false, w.fail(errors.New("mywire: short row"))
		}
		end := k + int(size)
		vals, p = append(vals, p[k:end:end]), p[end:]
	}
	w.vals = vals
	return vals, true, nil
}

// Finish reads the rest of the current result set, after a caller stopped reading its rows.
func (w *MySQL) Finish() {
	for _, ok, _ := w.NextRow(); ok; _, ok, _ = w.NextRow() {
	}
}

// drain reads the results that follow the first; the first error among them is returned. The
// caller marks the reply's end.
func (w *MySQL) drain() error {
	var first error
	for w.more && w.err == nil {
		w.more = false
		rows, _, err := w.result()
		for ok := rows; ok; {
			_, ok, err = w.row()
		}
		if first == nil {
			first = err
		}
	}
	if w.err != nil {
		return w.err
	}
	return first
}

// InTransaction tells whether the last OK or EOF packet's status flags had a transaction open
// (SERVER_STATUS_IN_TRANS), as libpq's PQtransactionStatus reads PostgreSQL's ReadyForQuery:
// at no cost. An ERR packet carries no flags, so after one it is the last statement's before.
func (w *MySQL) InTransaction() bool { return w.status&serverInTrans != 0 }

// okPacket reads an OK packet (or the OK that ends rows): affected rows, last insert id,
// status flags, warnings.
func (w *MySQL) okPacket(p []byte) (int64, error) {
	affected, k, ok := lenenc(p[1:])
	if !ok {
		return 0, w.fail(errors.New("mywire: short OK packet"))
	}
	_, k2, ok := lenenc(p[1+k:])
	if st := 1 + k + k2; ok && len(p) >= st+2 {
		w.status = binary.LittleEndian.Uint16(p[st:])
		w.more = w.status&serverMoreResults != 0
	}
	return int64(affected), nil
}

// errPacket turns an ERR packet into the driver's error type, so that callers (and errors.As)
// see the same error as through database/sql: number, SQL state, message.
func (w *MySQL) errPacket(p []byte) error {
	if len(p) < 3 {
		return w.fail(errors.New("mywire: short ERR packet"))
	}
	e := &mysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:])}
	p = p[3:]
	if len(p) >= 6 && p[0] == '#' {
		copy(e.SQLState[:], p[1:6])
		p = p[6:]
	}
	e.Message = string(p)
	w.more = false // an error ends the reply
	return e
}

// lenenc reads a length-encoded integer: its value and size.
func lenenc(p []byte) (uint64, int, bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	switch p[0] {
	case 0xfc:
		if len(p) < 3 {
			return 0, 0, false
		}
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3, true
	case 0xfd:
		if len(p) < 4 {
			return 0, 0, false
		}
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4, true
	case 0xfe:
		if len(p) < 9 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(p[1:]), 9, true
	case 0xfb, 0xff:
		return 0, 0, false
	}
	return uint64(p[0]), 1, true
}

// Atoi reads a text column as an integer, without allocating.
func Atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg && n <= 1<<63 {
		return -int64(n), true
	}
	return int64(n), n < 1<<63
}

package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Postgres runs prepared statements (Bind, Execute, Sync; text parameters, binary results) and
// simple-protocol statements over a pgx connection's own socket, beside pgconn rather than
// through it: the Insert Benchmark's q-step queries and literal INSERTs (ibsql) and LinkBench's
// statements (lbsql).
//
// Why (measured, docs/performance.md): pgconn arms a 15 ms watchdog timer before every write
// (enterPotentialWriteReadDeadlock); time.Timer.Reset wakes the runtime's network poller on
// another thread, about 10% of dbperf's CPU in a qr100 profile. pgconn also keeps a per-op
// context watcher and result reader. Postgres writes each statement with one write and reads
// the reply into one reused buffer: 19% less client CPU per range query and 8% per point query
// than through pgconn end to end (qr100, qp100), and 33% per 100-row INSERT in
// BenchmarkPostgresInsertL0; medians of 3 interleaved runs.
//
// It reads and writes with raw system calls and waits through Go's network poller (Sock).
// Tried and dropped: blocking reads on the socket, as libpq does; no better in the median and
// far noisier (the runtime's sysmon retakes the blocked thread's P).
//
// pgconn stays the connection's owner: it connects, authenticates, prepares, and runs every
// other statement. Postgres uses the socket only between pgconn's operations, when pgconn is
// idle with nothing buffered (PgConn.SyncConn), as pgconn documents for direct use of Conn;
// Release hands it back.
type Postgres struct {
	Sock
	pg    *pgconn.PgConn
	ctl   syscall.RawConn // the socket, for its shutdown by a cancellation (Control holds the fd open)
	owned bool            // the socket is ours: pgconn is idle with nothing buffered

	wbuf []byte

	// ctx is the context whose cancellation shuts the socket down while a statement runs
	// (busy); stop unregisters that. A cancellation while the socket is idle leaves it alone,
	// so the connection outlives its context (the next acquire watches the new one).
	ctx  context.Context
	stop func() bool
	gen  int64        // ctx's generation, counting from 1
	busy atomic.Int64 // 0: idle; gen: a statement runs under ctx; -1: ctx's cancellation shut the socket down
	err  error        // the connection's fatal error: once set, every call returns it

	vals     [][]byte // the current row's column values, slices of the read buffer
	affected int64    // rows the last statement's CommandComplete reported
}

// Affected is the row count of the last statement's CommandComplete, once NextRow returned
// false (ExecSimple reads it itself).
func (w *Postgres) Affected() int64 { return w.affected }

// ErrShut is what a read returns after the socket was shut down by a canceled context.
var ErrShut = errors.New("connection shut down: the operation's context was canceled")

// NewPostgres makes pg's lean path; poll reads and writes through net.Conn rather than raw system
// calls (--client-path netconn).
func NewPostgres(pg *pgconn.PgConn, poll bool) (*Postgres, error) {
	sc, ok := pg.Conn().(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("pgwire: %T has no file descriptor", pg.Conn())
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &Postgres{Sock: NewSock(pg.Conn(), poll), pg: pg, ctl: raw}, nil
}

// acquire makes the socket ours: pgconn idle and drained, and the socket shut down if ctx
// is canceled (which ends a read waiting for the reply).
func (w *Postgres) acquire(ctx context.Context) error {
	if w.err != nil {
		return w.err
	}
	if ctx != w.ctx {
		if w.stop != nil {
			w.stop()
		}
		w.gen++
		w.ctx, w.stop = ctx, nil
		if ctx.Done() != nil {
			ctl, gen := w.ctl, w.gen
			w.stop = context.AfterFunc(ctx, func() {
				if w.busy.CompareAndSwap(gen, -1) {
					// Ends a read waiting for the reply. Inside Control the descriptor cannot be
					// closed and its number reused by another socket; once closed, Control does
					// nothing.
					ctl.Control(func(fd uintptr) { syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
				}
			})
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !w.owned {
		if err := w.pg.SyncConn(ctx); err != nil {
			return w.fail(err)
		}
		w.owned = true
	}
	// busy before the context's second check: a cancellation from now on either shows there
	// or shuts the socket down, never both and never neither.
	w.busy.Store(w.gen)
	if err := ctx.Err(); err != nil {
		if w.busy.CompareAndSwap(w.gen, 0) {
			return err
		}
		return w.fail(fmt.Errorf("%w: %w", ErrShut, err))
	}
	return nil
}

// end marks the reply read: a cancellation from now on leaves the socket alone. If one shut
// it down meanwhile, the next statement returns that (the finished one stands).
func (w *Postgres) end() {
	if !w.busy.CompareAndSwap(w.gen, 0) && w.err == nil {
		w.fail(fmt.Errorf("%w: %w (after the last reply)", ErrShut, w.ctx.Err()))
	}
}

// Release hands the socket back to pgconn, for a statement through pgx.
func (w *Postgres) Release() error {
	if !w.owned || w.err != nil {
		return w.err
	}
	if len(w.Buffered()) != 0 {
		return w.fail(errors.New("pgwire: the server sent more than the replies asked for"))
	}
	w.owned = false
	return nil
}

func (w *Postgres) fail(err error) error {
	w.busy.Store(0)
	if w.err == nil {
		w.err = err
		w.pg.Conn().Close() // pgconn's next operation fails too
	}
	return w.err
}

// Close stops watching the last context (the connection is pgconn's to close).
func (w *Postgres) Close() {
	if w.stop != nil {
		w.stop()
	}
}

// ExecPrepared sends Bind (text parameters, binary results), Execute and Sync for the prepared
// statement name; the reply is read with NextRow.
func (w *Postgres) ExecPrepared(ctx context.Context, name string, params [][]byte) error {
	if len(params) > math.MaxUint16 {
		return fmt.Errorf("pgwire: %d parameters; the protocol allows at most %d", len(params), math.MaxUint16)
	}
	if err := w.acquire(ctx); err != nil {
		return err
	}
	w.affected = 0
	b := append(w.wbuf[:0], 'B', 0, 0, 0, 0, 0) // empty portal name
	b = append(b, name...)
	b = append(b, 0, 0, 0) // statement name's end; no parameter format codes: all text
	b = binary.BigEndian.AppendUint16(b, uint16(len(params)))
	for _, p := range params {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	b = append(b, 0, 1, 0, 1) // one result format code: binary
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // Execute the empty portal, all rows
	b = append(b, 'S', 0, 0, 0, 4)
	w.wbuf = b
	return w.write(b)
}

// ExecSimple sends q as one simple-protocol Query message and reads the reply; q must return
// no rows (a literal INSERT or DELETE, BEGIN, COMMIT, DDL). Affected then gives its row count.
func (w *Postgres) ExecSimple(ctx context.Context, q []byte) error {
	if err := w.acquire(ctx); err != nil {
		return err
	}
	w.affected = 0
	b := append(w.wbuf[:0], 'Q', 0, 0, 0, 0)
	b = append(b, q...)
	b = append(b, 0)
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	w.wbuf = b
	if err := w.write(b); err != nil {
		return err
	}
	if _, ok, err := w.NextRow(); ok {
		return w.fail(errors.New("pgwire: a statement without rows returned rows"))
	} else {
		return err
	}
}

// write sends b, a request, and reads the start of its reply.
func (w *Postgres) write(b []byte) error {
	if err := w.Exchange(b); err != nil { // the reply's start is read too
		return w.sockErr(err)
	}
	return nil
}

func (w *Postgres) ioErr(err error) error {
	if w.ctx != nil && w.ctx.Err() != nil {
		return fmt.Errorf("%w: %w (%v)", ErrShut, w.ctx.Err(), err)
	}
	return err
}

// message reads the next message: its type and body (valid until the next read).
func (w *Postgres) message() (byte, []byte, error) {
	if err := w.fill(5); err != nil {
		return 0, nil, err
	}
	b := w.Buffered()
	typ := b[0]
	size := int(binary.BigEndian.Uint32(b[1:]))
	if size < 4 || size > 1<<30 {
		return 0, nil, w.fail(fmt.Errorf("pgwire: message %q of %d bytes: out of sync", typ, size))
	}
	if err := w.fill(1 + size); err != nil {
		return 0, nil, err
	}
	body := w.Buffered()[5 : 1+size]
	w.Advance(1 + size)
	return typ, body, nil
}

// fill reads until at least n unread bytes are buffered.
func (w *Postgres) fill(n int) error {
	if err := w.Fill(n); err != nil {
		return w.sockErr(err)
	}
	return nil
}

// sockErr makes a failed read or write on the socket the connection's fatal error.
func (w *Postgres) sockErr(err error) error {
	if err == io.EOF {
		err = errors.New("pgwire: the server closed the connection")
	}
	return w.fail(w.ioErr(err))
}

// NextRow reads the reply up to the next row and returns its column values, or false at the
// end of the reply, with the statement's error, if any.
func (w *Postgres) NextRow() ([][]byte, bool, error) {
	for {
		typ, body, err := w.message()
		if err != nil {
			return nil, false, err
		}
		switch typ {
		case 'D':
			vals, err := w.decodeRow(body)
			return vals, err == nil, err
		case 'E':
			var e pgproto3.ErrorResponse
			if err := e.Decode(body); err != nil {
				return nil, false, w.fail(err)
			}
			if err := w.done(); err != nil {
				return nil, false, err
			}
			return nil, false, pgconn.ErrorResponseToPgError(&e)
		case 'C':
			w.affected = commandRows(body)
			return nil, false, w.done()
		case 'I':
			return nil, false, w.done() // empty query
		case '2', 'N', 'S', 'A': // bind complete, notice, parameter status, notification
		default:
			return nil, false, w.fail(fmt.Errorf("pgwire: unexpected message %q", typ))
		}
	}
}

// done reads the rest of the reply up to ReadyForQuery.
func (w *Postgres) done() error {
	for {
		typ, _, err := w.message()
		if err != nil {
			return err
		}
		if typ == 'Z' {
			w.end()
			return nil
		}
	}
}

func (w *Postgres) decodeRow(body []byte) ([][]byte, error) {
	if len(body) < 2 {
		return nil, w.fail(errors.New("pgwire: short data row"))
	}
	cols := int(binary.BigEndian.Uint16(body))
	vals, p := w.vals[:0], 2
	for range cols {
		if len(body) < p+4 {
			return nil, w.fail(errors.New("pgwire: short data row"))
		}
		size := int(int32(binary.BigEndian.Uint32(body[p:])))
		p += 4
		if size < 0 {
			vals = append(vals, nil)
			continue
		}
		if len(body) < p+size {
			return nil, w.fail(errors.New("pgwire: short data row"))
		}
		vals = append(vals, body[p:p+size:p+size])
		p += size
	}
	w.vals = vals
	return vals, nil
}

// commandRows is the row count at the end of a CommandComplete tag ("DELETE 50", "INSERT 0 100"),
// 0 if it has none.
func commandRows(tag []byte) int64 {
	tag = bytes.TrimRight(tag, "\x00")
	i := bytes.LastIndexByte(tag, ' ')
	if i < 0 { // BEGIN, COMMIT: not parsed, as a failed parse allocates its error
		return 0
	}
	n, err := strconv.ParseInt(string(tag[i+1:]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

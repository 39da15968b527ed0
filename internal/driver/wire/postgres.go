package wire

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/dbperf/dbperf/internal/driver/rawsock"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Postgres runs prepared statements (Bind, Execute, Sync; text parameters, binary results) and
// simple-protocol statements over a pgx connection's own socket, beside pgconn rather than
// through it: the Insert Benchmark's q-step queries and literal INSERTs (ibsql) and LinkBench's
// statements (lbsql). Why: pgconn's per-operation timers and watchers cost a C client's whole
// CPU per statement again (docs/performance.md, "The lean paths").
//
// It keeps pgconn's guarantees: messages are encoded and decoded by pgproto3; a reply's first
// ErrorResponse is kept until ReadyForQuery, so an error after CommandComplete (a deferred
// constraint at the implicit commit, a later statement of a simple query) fails the statement;
// a COMMIT answered ROLLBACK and a failed-transaction status are errors; FATAL ends the
// connection with the server's error; a canceled statement is canceled on the server
// (pgconn's CancelRequest) and its reply awaited for CancelGrace before the socket is shut
// down; the messages pgconn keeps state from (ReadyForQuery's status, ParameterStatus,
// notifications) are handed back to pgconn at Release (rawsock.Unreader).
//
// pgconn stays the connection's owner: it connects, authenticates, prepares, and runs every
// other statement. Postgres uses the socket only between pgconn's operations, when pgconn is
// idle with nothing buffered (PgConn.SyncConn), as pgconn documents for direct use of Conn;
// Release hands it back.
type Postgres struct {
	Sock
	pg    *pgconn.PgConn
	un    *rawsock.Unreader // pgx's connection, which takes messages back for pgconn
	ctl   syscall.RawConn   // the socket, for its shutdown (Control holds the fd open)
	owned bool              // the socket is ours: pgconn is idle with nothing buffered
	grace time.Duration     // how long a canceled statement's reply is awaited

	wbuf []byte

	// ctx is the context whose cancellation cancels the running statement (busy); stop
	// unregisters that. A cancellation while the socket is idle leaves it alone, so the
	// connection outlives its context (the next acquire watches the new one).
	ctx  context.Context
	stop func() bool
	gen  int64        // ctx's generation, counting from 1
	busy atomic.Int64 // 0 idle; gen running; gen|canceling canceled on the server; -1 shut down
	// delivered is ctx's: closed once the CancelRequest its cancellation sent has been
	// delivered. Each context has its own, so a late callback of an earlier context can
	// neither make end wait forever nor let a cancellation reach the next statement.
	delivered chan struct{}
	err       error // the connection's fatal error: once set, every call returns it

	reply
}

// canceling marks busy's generation once a CancelRequest went to the server.
const canceling = 1 << 62

// reply is the state of the reply being read.
type reply struct {
	row      pgproto3.DataRow
	affected int64           // rows the last CommandComplete reported
	skipped  int64           // rows Discard read
	first    *pgconn.PgError // the reply's first ErrorResponse, kept until ReadyForQuery
	rollback bool            // a CommandComplete said ROLLBACK
	simple   bool            // the request is a simple Query (wbuf holds it)
	txStatus byte            // the last ReadyForQuery's transaction status
	given    []byte          // messages pgconn keeps state from, read here, for Release
	givenN   int             // how many messages given holds
}

// maxGiven bounds the notices kept for pgconn between two Releases; ParameterStatus and
// notifications are always kept, and handed to pgconn before a statement once they hold more.
const maxGiven = 64 << 10

// Affected is the row count of the last statement's CommandComplete, once NextRow returned
// false (ExecSimple reads it itself).
func (w *Postgres) Affected() int64 { return w.affected }

// TxStatus is the transaction status of the last reply ('I' idle, 'T' in a transaction, 'E'
// in a failed one), as pgconn's TxStatus.
func (w *Postgres) TxStatus() byte {
	if w.txStatus == 0 {
		return w.pg.TxStatus()
	}
	return w.txStatus
}

// ErrShut is what a statement returns after its socket was shut down because its context was
// canceled and the server did not answer within the grace.
var ErrShut = errors.New("connection shut down: the operation's context was canceled")

// ErrCommitRollback is a COMMIT the server answered with ROLLBACK: the transaction had failed
// (pgx's ErrTxCommitRollback).
var ErrCommitRollback = errors.New("pgwire: commit unexpectedly resulted in rollback")

// NewPostgres makes pg's lean path; poll reads and writes through net.Conn rather than raw system
// calls (--client-path netconn). pg must have been dialed by a target that gives its connection
// messages back (rawsock.Unreader, as sqldriver's Postgres does for the lean paths).
func NewPostgres(pg *pgconn.PgConn, poll bool) (*Postgres, error) {
	un, ok := pg.Conn().(*rawsock.Unreader)
	if !ok {
		return nil, fmt.Errorf("pgwire: %T cannot take messages back: the lean path needs a connection its target dialed for it (TLS falls back to pgx)", pg.Conn())
	}
	raw, err := un.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("pgwire: %w", err)
	}
	return &Postgres{Sock: NewSock(un, poll), pg: pg, un: un, ctl: raw, grace: sqldriver.CancelGrace}, nil
}

// acquire makes the socket ours: pgconn idle and drained, a cancellation of ctx watched.
func (w *Postgres) acquire(ctx context.Context) error {
	if w.err != nil {
		return w.err
	}
	if ctx != w.ctx {
		w.watch(ctx)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.owned && len(w.given) > maxGiven {
		// A script that SETs a reported parameter in every transaction: pgconn reads what it
		// keeps state from now, rather than all of it at the next Release.
		if err := w.Release(); err != nil {
			return err
		}
	}
	if !w.owned {
		if err := w.pg.SyncConn(ctx); err != nil {
			return w.fail(err)
		}
		// Bytes given back at Release that pgconn has not read since are the next reply's
		// start: the raw calls read the socket beneath them.
		w.absorb(w.un)
		w.owned = true
	}
	w.first, w.rollback, w.simple, w.affected = nil, false, false, 0
	// busy before the context's second check: a cancellation from now on either shows there
	// or reaches the statement, never both and never neither.
	w.busy.Store(w.gen)
	if err := ctx.Err(); err != nil {
		w.end()
		return err
	}
	return nil
}

// watch makes ctx the context whose cancellation cancels the running statement.
func (w *Postgres) watch(ctx context.Context) {
	if w.stop != nil {
		w.stop()
	}
	w.gen++
	w.ctx, w.stop = ctx, nil
	if ctx.Done() == nil {
		return
	}
	gen, pg, ctl, grace, done := w.gen, w.pg, w.ctl, w.grace, make(chan struct{})
	w.delivered = done
	w.stop = context.AfterFunc(ctx, func() {
		if !w.busy.CompareAndSwap(gen, gen|canceling) {
			return // idle, or another statement's
		}
		go cancelOnServer(pg, ctl, &w.busy, gen, grace, done)
	})
}

// cancelOnServer sends pg's server a CancelRequest for the statement of generation gen, as
// pgconn's CancelRequestContextWatcherHandler does, and shuts the socket down if the
// statement's reply has not been read within grace.
func cancelOnServer(pg *pgconn.PgConn, ctl syscall.RawConn, busy *atomic.Int64, gen int64, grace time.Duration, done chan struct{}) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	pg.CancelRequest(ctx)
	cancel()
	// The request reaches the backend a moment after the server took it; pgconn waits 100 ms
	// so that it cannot cancel the connection's next statement instead.
	time.Sleep(100 * time.Millisecond)
	close(done)
	if rest := grace - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	if busy.CompareAndSwap(gen|canceling, -1) {
		// Ends a read waiting for the reply. Inside Control the descriptor cannot be closed
		// and its number reused by another socket; once closed, Control does nothing.
		ctl.Control(func(fd uintptr) { syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
	}
}

// end marks the reply read: a cancellation from now on leaves the socket alone. A statement
// canceled on the server waits until its CancelRequest was delivered, so that it cannot
// cancel the next one. If the socket was shut down meanwhile, the next statement returns that
// (the finished one stands).
func (w *Postgres) end() {
	if w.busy.CompareAndSwap(w.gen, 0) {
		return
	}
	if w.busy.Load() == w.gen|canceling { // only this context's callback sets it
		<-w.delivered
		if w.busy.CompareAndSwap(w.gen|canceling, 0) {
			return
		}
	}
	if w.err == nil {
		w.fail(fmt.Errorf("%w: %w (after the last reply)", ErrShut, w.ctx.Err()))
	}
}

// Release hands the socket back to pgconn, for a statement through pgx, with the messages
// pgconn keeps state from that were read here (ParameterStatus, notifications, notices, the
// transaction status) and whatever arrived after the last reply.
func (w *Postgres) Release() error {
	if !w.owned || w.err != nil {
		return w.err
	}
	back, n := w.given, w.givenN
	if w.txStatus != 0 && w.txStatus != w.pg.TxStatus() {
		back, n = append(back, 'Z', 0, 0, 0, 5, w.txStatus), n+1
	}
	w.un.Unread(append(back, w.Buffered()...))
	w.Advance(len(w.Buffered()))
	w.given, w.givenN, w.txStatus = w.given[:0], 0, 0
	w.owned = false
	for range n { // pgconn reads each from what was given back, not from the socket
		if _, err := w.pg.ReceiveMessage(context.Background()); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

func (w *Postgres) fail(err error) error {
	w.busy.Store(0)
	if w.err == nil {
		w.err = err
		w.nc.Close() // pgx's connection: pgconn's next operation fails too
	}
	return w.err
}

// Close stops watching the last context (the connection is pgconn's to close).
func (w *Postgres) Close() {
	if w.stop != nil {
		w.stop()
	}
}

// binaryResults asks for every result column in binary.
var binaryResults = []int16{1}

// ExecPrepared sends Bind (text parameters, nil for NULL; binary results), Execute and Sync for
// the prepared statement name; the reply is read with NextRow.
func (w *Postgres) ExecPrepared(ctx context.Context, name string, params [][]byte) error {
	if len(params) > math.MaxUint16 {
		return fmt.Errorf("pgwire: %d parameters; the protocol allows at most %d", len(params), math.MaxUint16)
	}
	if err := w.acquire(ctx); err != nil {
		return err
	}
	bind := pgproto3.Bind{PreparedStatement: name, Parameters: params, ResultFormatCodes: binaryResults}
	b, err := bind.Encode(w.wbuf[:0])
	if err != nil {
		w.end()
		return fmt.Errorf("pgwire: %w", err)
	}
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // Execute the unnamed portal, all rows
	b = append(b, 'S', 0, 0, 0, 4)                // Sync
	w.wbuf = b
	return w.write(b)
}

// ExecSimple sends q as one simple-protocol Query message and reads the reply; q must return
// no rows (a literal INSERT or DELETE, BEGIN, COMMIT, DDL). Affected then gives its row count.
func (w *Postgres) ExecSimple(ctx context.Context, q []byte) error {
	if err := w.acquire(ctx); err != nil {
		return err
	}
	// The query is only read by Encode, so it is not copied into a string.
	msg := pgproto3.Query{String: unsafe.String(unsafe.SliceData(q), len(q))}
	b, err := msg.Encode(w.wbuf[:0])
	if err != nil {
		w.end()
		return fmt.Errorf("pgwire: %w", err)
	}
	w.wbuf = b
	w.simple = true
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

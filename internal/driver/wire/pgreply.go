package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// NextRow reads the reply up to the next row and returns its column values (nil for NULL;
// valid until the next read), or false at the end of the reply, with the statement's error:
// the reply's first ErrorResponse (wrapped with the context's error when the statement was
// canceled), a COMMIT that rolled back, or the connection's failure.
func (w *Postgres) NextRow() ([][]byte, bool, error) { return w.next(true) }

// Discard reads the rest of the reply as NextRow does but without decoding its rows, for a
// caller that only counts them (sysbench's ranges: 100 rows each), and returns how many came,
// with the statement's error. Each row's fields are checked as pgproto3 checks them, without
// being copied: a malformed row fails the statement, as it does through pgconn.
func (w *Postgres) Discard() (int64, error) {
	w.skipped = 0
	_, _, err := w.next(false)
	return w.skipped, err
}

// wellFormedRow says whether a DataRow's body holds the fields it declares, each NULL (-1) or
// a length that fits: pgproto3's DataRow.Decode's checks, without its copy of the values.
func wellFormedRow(body []byte) bool {
	if len(body) < 2 {
		return false
	}
	fields, rest := int(binary.BigEndian.Uint16(body)), body[2:]
	for range fields {
		if len(rest) < 4 {
			return false
		}
		n := int(int32(binary.BigEndian.Uint32(rest)))
		rest = rest[4:]
		if n == -1 {
			continue
		}
		if n < 0 || n > len(rest) {
			return false
		}
		rest = rest[n:]
	}
	return true
}

// next reads the reply up to its next row (decode) or to its end, counting the rows (!decode).
func (w *Postgres) next(decode bool) ([][]byte, bool, error) {
	for {
		typ, body, err := w.message()
		if err != nil {
			return nil, false, err
		}
		switch typ {
		case 'D':
			if !decode {
				if !wellFormedRow(body) {
					return nil, false, w.fail(errors.New("pgwire: malformed DataRow"))
				}
				if w.first == nil {
					w.skipped++
				}
				continue
			}
			if err := w.row.Decode(body); err != nil {
				return nil, false, w.fail(fmt.Errorf("pgwire: %w", err))
			}
			if w.first != nil { // rows after an error belong to no result the caller sees
				continue
			}
			return w.row.Values, true, nil
		case 'C':
			var cc pgproto3.CommandComplete
			if err := cc.Decode(body); err != nil {
				return nil, false, w.fail(fmt.Errorf("pgwire: %w", err))
			}
			w.affected = commandRows(cc.CommandTag)
			w.rollback = w.rollback || string(cc.CommandTag) == "ROLLBACK"
		case 'E':
			if err := w.keepError(body); err != nil {
				return nil, false, err
			}
		case 'Z':
			var z pgproto3.ReadyForQuery
			if err := z.Decode(body); err != nil {
				return nil, false, w.fail(fmt.Errorf("pgwire: %w", err))
			}
			w.txStatus = z.TxStatus
			w.end()
			return nil, false, w.result()
		case '1', '2', '3', 'I', 'n', 't', 'T': // parse, bind, close complete; empty query; no data; descriptions
		case 'S', 'N', 'A': // parameter status, notice, notification: pgconn's, at Release
			w.give(typ, body)
		case 'G', 'H', 'W': // COPY IN, OUT, BOTH: only pgx can run a COPY
			return nil, false, w.fail(fmt.Errorf("pgwire: the statement started a COPY (%q), which only pgx runs", typ))
		case 's':
			return nil, false, w.fail(errors.New("pgwire: portal suspended, but Execute asked for every row"))
		default:
			return nil, false, w.fail(fmt.Errorf("pgwire: unexpected message %q", typ))
		}
	}
}

// keepError keeps the reply's first ErrorResponse; FATAL or PANIC ends the connection with it,
// as in pgconn (the server closes the connection after it).
func (w *Postgres) keepError(body []byte) error {
	var e pgproto3.ErrorResponse
	if err := e.Decode(body); err != nil {
		return w.fail(fmt.Errorf("pgwire: %w", err))
	}
	pe := pgconn.ErrorResponseToPgError(&e)
	if w.first == nil {
		w.first = pe
	}
	if pe.Severity == "FATAL" || pe.Severity == "PANIC" {
		return w.fail(pe)
	}
	return nil
}

// result is the outcome of a reply that reached ReadyForQuery.
func (w *Postgres) result() error {
	switch {
	case w.first != nil:
		if w.ctx != nil && w.ctx.Err() != nil {
			return fmt.Errorf("%w: %w", w.ctx.Err(), w.first)
		}
		return w.first
	case w.rollback && !(w.simple && asksRollback(w.wbuf[5:len(w.wbuf)-1])):
		return ErrCommitRollback
	case w.txStatus == 'E':
		return errors.New("pgwire: the transaction failed (ReadyForQuery status E) without an error")
	}
	return nil
}

// give keeps a message pgconn keeps state from, for Release: always a ParameterStatus or a
// notification, a notice while there is room.
func (w *Postgres) give(typ byte, body []byte) {
	if typ == 'N' && len(w.given) > maxGiven {
		return
	}
	w.given = append(w.given, typ, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(w.given[len(w.given)-4:], uint32(len(body)+4))
	w.given = append(w.given, body...)
	w.givenN++
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

// sockErr makes a failed read or write on the socket the connection's fatal error: the
// server's own error if it sent one before closing, the context's if a cancellation shut the
// socket down.
func (w *Postgres) sockErr(err error) error {
	if err == io.EOF {
		err = errors.New("pgwire: the server closed the connection")
	}
	if w.ctx != nil && w.ctx.Err() != nil && w.busy.Load() == -1 {
		err = fmt.Errorf("%w: %w (%v)", ErrShut, w.ctx.Err(), err)
	}
	if w.first != nil {
		err = fmt.Errorf("%w (then: %v)", w.first, err)
	}
	return w.fail(err)
}

// asksRollback tells whether a simple query's text asks for a rollback (ROLLBACK or ABORT
// anywhere in it), so that its ROLLBACK tag is no error.
func asksRollback(q []byte) bool {
	for _, word := range [][]byte{[]byte("ROLLBACK"), []byte("ABORT")} {
		for i := 0; i+len(word) <= len(q); i++ {
			if bytes.EqualFold(q[i:i+len(word)], word) {
				return true
			}
		}
	}
	return false
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

package wire

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/jackc/pgx/v5/pgproto3"
)

// The requests of pgbench's three query modes (-M), as libpq sends them for pgbench (the
// script workload, scriptsql): results as text, parameters as text without declared types,
// and a Describe of the portal before Execute, as PQsendQueryParams and PQsendQueryPrepared
// do. Their replies are read with NextRow, or with NextPart where the caller needs the
// results' columns and boundaries (\gset, \aset).

// describeExecSync is Describe (the unnamed portal), Execute (the unnamed portal, all rows)
// and Sync.
var describeExecSync = []byte{'D', 0, 0, 0, 6, 'P', 0, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0, 'S', 0, 0, 0, 4}

// Query sends q as one simple-protocol Query message (pgbench -M simple); unlike ExecSimple it
// reads nothing, so that q may return rows and several results.
func (w *Postgres) Query(ctx context.Context, q []byte) error {
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
	return w.write(b)
}

// ExecParams sends query as the unnamed statement with params (nil for NULL): Parse, Bind,
// Describe, Execute, Sync, parsed at every execution (pgbench -M extended, libpq's
// PQsendQueryParams).
func (w *Postgres) ExecParams(ctx context.Context, query string, params [][]byte) error {
	if len(params) > math.MaxUint16 {
		return fmt.Errorf("pgwire: %d parameters; the protocol allows at most %d", len(params), math.MaxUint16)
	}
	if err := w.acquire(ctx); err != nil {
		return err
	}
	parse := pgproto3.Parse{Query: query}
	b, err := parse.Encode(w.wbuf[:0])
	if err == nil {
		bind := pgproto3.Bind{Parameters: params}
		b, err = bind.Encode(b)
	}
	if err != nil {
		w.end()
		return fmt.Errorf("pgwire: %w", err)
	}
	w.wbuf = append(b, describeExecSync...)
	return w.write(w.wbuf)
}

// ExecPreparedText runs the prepared statement name with params (nil for NULL): Bind,
// Describe, Execute, Sync, with text results (pgbench -M prepared, libpq's
// PQsendQueryPrepared). ExecPrepared asks for binary results instead.
func (w *Postgres) ExecPreparedText(ctx context.Context, name string, params [][]byte) error {
	if len(params) > math.MaxUint16 {
		return fmt.Errorf("pgwire: %d parameters; the protocol allows at most %d", len(params), math.MaxUint16)
	}
	if err := w.acquire(ctx); err != nil {
		return err
	}
	bind := pgproto3.Bind{PreparedStatement: name, Parameters: params}
	b, err := bind.Encode(w.wbuf[:0])
	if err != nil {
		w.end()
		return fmt.Errorf("pgwire: %w", err)
	}
	w.wbuf = append(b, describeExecSync...)
	return w.write(w.wbuf)
}

// Prepare prepares query as the statement name, with no declared parameter types: Parse and
// Sync, as libpq's PQprepare. The reply is read here; its error is the server's.
func (w *Postgres) Prepare(ctx context.Context, name, query string) error {
	if err := w.acquire(ctx); err != nil {
		return err
	}
	parse := pgproto3.Parse{Name: name, Query: query}
	b, err := parse.Encode(w.wbuf[:0])
	if err != nil {
		w.end()
		return fmt.Errorf("pgwire: %w", err)
	}
	w.wbuf = append(b, 'S', 0, 0, 0, 4)
	if err := w.write(w.wbuf); err != nil {
		return err
	}
	if _, ok, err := w.NextRow(); ok {
		return w.fail(errors.New("pgwire: a Parse returned rows"))
	} else {
		return err
	}
}

// Part is what NextPart read.
type Part uint8

// The parts of a reply.
const (
	PartEnd    Part = iota // ReadyForQuery: the reply ended, with the statement's error
	PartFields             // a RowDescription: the values are the columns' names
	PartRow                // a DataRow: the values as the server sent them, nil for NULL
	PartDone               // a CommandComplete or EmptyQueryResponse: a result ended
)

// NextPart reads the reply up to its next part: a result's columns, a row, a result's end, or
// the reply's end with the statement's error, as NextRow reports it. The values are valid
// until the next read. Rows after an error are skipped, as NextRow skips them.
func (w *Postgres) NextPart() (Part, [][]byte, error) {
	for {
		typ, body, err := w.message()
		if err != nil {
			return PartEnd, nil, err
		}
		switch typ {
		case 'T':
			var rd pgproto3.RowDescription
			if err := rd.Decode(body); err != nil {
				return PartEnd, nil, w.fail(fmt.Errorf("pgwire: %w", err))
			}
			if w.first != nil {
				continue
			}
			names := make([][]byte, len(rd.Fields))
			for i, f := range rd.Fields {
				names[i] = f.Name
			}
			return PartFields, names, nil
		case 'D':
			if err := w.row.Decode(body); err != nil {
				return PartEnd, nil, w.fail(fmt.Errorf("pgwire: %w", err))
			}
			if w.first != nil {
				continue
			}
			return PartRow, w.row.Values, nil
		case 'C', 'I':
			if typ == 'C' {
				var cc pgproto3.CommandComplete
				if err := cc.Decode(body); err != nil {
					return PartEnd, nil, w.fail(fmt.Errorf("pgwire: %w", err))
				}
				w.affected = commandRows(cc.CommandTag)
				w.rollback = w.rollback || string(cc.CommandTag) == "ROLLBACK"
			}
			if w.first != nil {
				continue
			}
			return PartDone, nil, nil
		case 'E':
			if err := w.keepError(body); err != nil {
				return PartEnd, nil, err
			}
		case 'Z':
			var z pgproto3.ReadyForQuery
			if err := z.Decode(body); err != nil {
				return PartEnd, nil, w.fail(fmt.Errorf("pgwire: %w", err))
			}
			w.txStatus = z.TxStatus
			w.end()
			return PartEnd, nil, w.result()
		case '1', '2', '3', 'n', 't': // parse, bind, close complete; no data; parameter description
		case 'S', 'N', 'A': // parameter status, notice, notification: pgconn's, at Release
			w.give(typ, body)
		default: // COPY, PortalSuspended, anything unexpected: NextRow's errors
			return PartEnd, nil, w.unexpected(typ)
		}
	}
}

// unexpected fails the connection on a message NextPart does not read, as NextRow does.
func (w *Postgres) unexpected(typ byte) error {
	switch typ {
	case 'G', 'H', 'W':
		return w.fail(fmt.Errorf("pgwire: the statement started a COPY (%q), which only pgx runs", typ))
	case 's':
		return w.fail(errors.New("pgwire: portal suspended, but Execute asked for every row"))
	}
	return w.fail(fmt.Errorf("pgwire: unexpected message %q", typ))
}

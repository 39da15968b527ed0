package wire

import (
	"context"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
)

// Fake-server tests of prepared statements (mystmt.go): binary rows split anywhere, with and
// without the EOF packets, MariaDB's cached metadata, and replies that must fail the
// connection.

// coldef is a column definition of type typ (unsigned with flag 0x20).
func coldef(typ byte, flags uint16) []byte {
	p := []byte("\x03def\x00\x00\x00\x01c\x00\x0c\x3f\x00\x14\x00\x00\x00")
	p = binary.LittleEndian.AppendUint16(append(p, typ), flags)
	return append(p, 0, 0, 0)
}

// prepareOK is the reply to COM_STMT_PREPARE: statement 9, params parameters, cols columns.
func (r *myReply) prepareOK(dep bool, params int, cols ...[]byte) *myReply {
	p := binary.LittleEndian.AppendUint32([]byte{0}, 9)
	p = binary.LittleEndian.AppendUint16(p, uint16(len(cols)))
	p = binary.LittleEndian.AppendUint16(p, uint16(params))
	r.pkt(append(p, 0, 0, 0)...)
	for range params {
		r.pkt(coldef(myTypeString, 0)...)
	}
	if params > 0 && !dep {
		r.eof(0)
	}
	for _, c := range cols {
		r.pkt(c...)
	}
	if len(cols) > 0 && !dep {
		r.eof(0)
	}
	return r
}

// binRows is an execution's result set: the column count (and, with meta >= 0, MariaDB's
// metadata-follows byte), the definitions unless meta is 0, then the binary rows.
func (r *myReply) binRows(dep bool, meta int, cols [][]byte, rows ...[]byte) *myReply {
	if meta >= 0 {
		r.pkt(byte(len(cols)), byte(meta))
	} else {
		r.pkt(byte(len(cols)))
	}
	if meta != 0 {
		for _, c := range cols {
			r.pkt(c...)
		}
	}
	if !dep {
		r.eof(0)
	}
	for _, row := range rows {
		r.pkt(row...)
	}
	if dep {
		return r.ok(0xfe, 0, 0)
	}
	return r.eof(0)
}

// TestMyFakeStmt: a prepared statement's binary rows (a signed and an unsigned integer, a
// string, NULLs) are read split at any byte, with the EOF packets or without, and with
// MariaDB's cached metadata (the second execution sends no column definitions).
func TestMyFakeStmt(t *testing.T) {
	cols := [][]byte{coldef(myTypeLongLong, 0), coldef(myTypeLong, myUnsignedFlag), coldef(0xfd, 0)}
	row1 := binary.LittleEndian.AppendUint64([]byte{0, 0}, uint64(1<<64-5)) // -5
	row1 = binary.LittleEndian.AppendUint32(row1, 4000000000)
	row1 = append(row1, 3, 'a', 0, 'b')
	row2 := []byte{0, 0x18} // the 2nd and 3rd columns NULL (bits 3 and 4)
	row2 = binary.LittleEndian.AppendUint64(row2, 7)
	both(t, func(t *testing.T, poll bool) {
		for _, dep := range []bool{false, true} {
			for _, meta := range []int{-1, 1} {
				for _, chunk := range []int{0, 1, 7} {
					var caps uint32
					if dep {
						caps = sqldriver.MySQLClientDeprecateEOF
					}
					f := newMyFake(t, poll, caps)
					f.w.cacheMeta = meta >= 0
					again := meta
					if meta > 0 {
						again = 0 // cached: no definitions the second time
					}
					f.answer(chunk, newReply().prepareOK(dep, 1, cols...).b,
						newReply().binRows(dep, meta, cols, row1, row2).b,
						newReply().binRows(dep, again, cols, row2).b)
					ctx := context.Background()
					st, err := f.w.Prepare(ctx, []byte("SELECT a, b, c FROM t WHERE a > ?"))
					if err != nil || st.ID != 9 || st.Params != 1 {
						t.Fatalf("prepare: %+v, %v", st, err)
					}
					if got := readStmtFake(t, f.w, st); got != "-5,4000000000,a\x00b|7,NULL,NULL" {
						t.Fatalf("dep %v meta %d chunk %d: %q", dep, meta, chunk, got)
					}
					if got := readStmtFake(t, f.w, st); got != "7,NULL,NULL" {
						t.Fatalf("dep %v meta %d chunk %d, again: %q", dep, meta, chunk, got)
					}
					usable(t, f, dep)
				}
			}
		}
	})
}

func readStmtFake(t *testing.T, w *MySQL, st *MyStmt) string {
	t.Helper()
	rows, _, err := w.Execute(context.Background(), st, []any{int64(1)})
	if err != nil || !rows {
		t.Fatalf("execute: %v, %v", rows, err)
	}
	var got []string
	for {
		vals, ok, err := w.NextRow()
		if !ok {
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(got, "|")
		}
		s := strs(vals)
		for i, v := range vals {
			if n, ok := st.Int(i, v); ok && i < 2 {
				s[i] = strconv.FormatInt(n, 10)
			}
		}
		got = append(got, strings.Join(s, ","))
	}
}

// TestMyFakeStmtBroken: a binary row shorter than its columns, a value longer than its row, a
// prepare reply too short, and an execution whose rows have more columns than defined fail the
// connection; a prepare error does not.
func TestMyFakeStmtBroken(t *testing.T) {
	cols := [][]byte{coldef(myTypeLongLong, 0)}
	both(t, func(t *testing.T, poll bool) {
		ctx := context.Background()
		for name, reply := range map[string][]byte{
			"short row":       newReply().binRows(true, -1, cols, []byte{0, 0, 1, 2}).b,
			"long value":      newReply().binRows(true, -1, [][]byte{coldef(0xfd, 0)}, []byte{0, 0, 9, 'a'}).b,
			"not a row":       newReply().binRows(true, -1, cols, []byte{1, 0, 1, 2, 3, 4, 5, 6, 7, 8}).b,
			"cached, unknown": newReply().binRows(true, 0, append(cols, cols[0])).b,
		} {
			f := newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
			f.w.cacheMeta = true
			f.answer(0, newReply().prepareOK(true, 0, cols...).b, reply)
			st, err := f.w.Prepare(ctx, []byte("SELECT a FROM t"))
			if err != nil {
				t.Fatal(err)
			}
			rows, _, err := f.w.Execute(ctx, st, nil)
			for ok := rows && err == nil; ok; {
				_, ok, err = f.w.NextRow()
			}
			if err == nil {
				t.Fatalf("%s: no error", name)
			}
			broken(t, f)
		}
		f := newMyFake(t, poll, 0)
		f.answer(0, newReply().err(1064, "42000", "syntax").b)
		if _, err := f.w.Prepare(ctx, []byte("SELEC 1")); !isMyErr(err, 1064) {
			t.Fatalf("prepare error: %v", err)
		}
		usable(t, f, false)
		f = newMyFake(t, poll, 0)
		f.answer(0, newReply().pkt(0, 1, 2).b)
		if _, err := f.w.Prepare(ctx, []byte("SELECT 1")); err == nil {
			t.Fatal("short prepare reply: no error")
		}
		broken(t, f)
	})
}

// TestAppendExecute: the parameters' NULL bitmap, types and values.
func TestAppendExecute(t *testing.T) {
	b, err := appendExecute(nil, 3, []any{int64(-1), nil, []byte("ab"), uint64(1 << 63), []byte(nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{3, 0, 0, 0, 0, 1, 0, 0, 0, // id, flags, iterations
		0x12,                               // NULL: the 2nd and 5th
		1,                                  // types follow
		8, 0, 6, 0, 0xfe, 0, 8, 0x80, 6, 0, // types
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // -1
		2, 'a', 'b',
		0, 0, 0, 0, 0, 0, 0, 0x80}
	if string(b) != string(want) {
		t.Fatalf("got % x\nwant % x", b, want)
	}
	if _, err := appendExecute(nil, 3, []any{struct{}{}}); err == nil {
		t.Fatal("no error for an unsupported type")
	}
}

// TestMyFakeQueue: a queued statement goes in the same write as the next, its OK is read
// before the next statement's reply, whose affected rows are returned; an error in the queued
// statement's reply fails the connection.
func TestMyFakeQueue(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		ctx := context.Background()
		f := newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
		f.answer(0, newReply().ok(0, 0, 0).b, newReply().ok(0, 3, 0).b)
		if err := f.w.Queue([]byte("BEGIN")); err != nil {
			t.Fatal(err)
		}
		if n, err := f.w.Exec(ctx, []byte("DELETE FROM t")); err != nil || n != 3 {
			t.Fatalf("queued BEGIN then DELETE: %d, %v", n, err)
		}
		usable(t, f, true)
		// with a prepared statement's execution
		f.answer(0, newReply().prepareOK(true, 0).b, newReply().ok(0, 0, 0).b, newReply().ok(0, 2, 0).b)
		st, err := f.w.Prepare(ctx, []byte("DELETE FROM t"))
		if err != nil {
			t.Fatal(err)
		}
		f.w.Queue([]byte("BEGIN"))
		if n, err := f.w.ExecuteNoRows(ctx, st, nil); err != nil || n != 2 {
			t.Fatalf("queued BEGIN then an execution: %d, %v", n, err)
		}
		usable(t, f, true)

		f = newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
		f.answer(0, newReply().err(1205, "HY000", "lock wait").b, newReply().ok(0, 3, 0).b)
		f.w.Queue([]byte("BEGIN"))
		if _, err := f.w.Exec(ctx, []byte("DELETE FROM t")); !isMyErr(err, 1205) {
			t.Fatalf("a queued statement's error: %v", err)
		}
		broken(t, f)
	})
}

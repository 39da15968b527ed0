package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/go-sql-driver/mysql"
)

// Fake-server tests of MySQL's lean path: a goroutine plays the server on a loopback TCP socket,
// answering each statement with a scripted reply, for the protocol's edge cases a real server
// rarely shows. Each runs on both paths: raw system calls (rawsock) and net.Conn (--client-path
// netconn). The race detector does not see rawsock's reads and writes (raw system calls, not Go
// memory accesses it instruments), so the netconn run is the one that checks the buffer's
// hand-offs under -race.

// myFake is one lean-path connection to a scripted server.
type myFake struct {
	w      *MySQL
	srv    net.Conn
	killed chan struct{} // closed when the lean path asks for KILL QUERY
}

// newMyFake connects a lean path to a scripted server; caps are the negotiated CLIENT_* flags.
func newMyFake(t *testing.T, poll bool, caps uint32) *myFake {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cli, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	f := &myFake{srv: srv, killed: make(chan struct{})}
	var once sync.Once
	sock := &sqldriver.MySQLSocket{Conn: cli, ID: 7, Capabilities: caps, Kill: func() {
		once.Do(func() { close(f.killed) })
	}}
	f.w = NewMySQL(sock, poll)
	t.Cleanup(func() { f.w.Close(); cli.Close(); srv.Close() })
	return f
}

// serve answers the next statement: it reads one COM_QUERY packet, then writes reply in pieces
// of chunk bytes (0: at once), so that the client's reads split it anywhere.
func (f *myFake) serve(reply []byte, chunk int) {
	var h [4]byte
	if _, err := io.ReadFull(f.srv, h[:]); err != nil {
		return
	}
	if _, err := io.CopyN(io.Discard, f.srv, int64(h[0])|int64(h[1])<<8|int64(h[2])<<16); err != nil {
		return
	}
	if chunk <= 0 {
		chunk = len(reply)
	}
	for len(reply) > 0 {
		n := min(chunk, len(reply))
		if _, err := f.srv.Write(reply[:n]); err != nil {
			return
		}
		reply = reply[n:]
		if chunk < 8 {
			time.Sleep(20 * time.Microsecond) // let the client read what is there
		}
	}
}

// answer serves each reply to one statement, in the background.
func (f *myFake) answer(chunk int, replies ...[]byte) {
	go func() {
		for _, r := range replies {
			f.serve(r, chunk)
		}
	}()
}

// myReply builds a server's reply: packets numbered from 1 (the statement is packet 0).
type myReply struct {
	b   []byte
	seq byte
}

func newReply() *myReply { return &myReply{seq: 1} }

func (r *myReply) pkt(payload ...byte) *myReply {
	n := len(payload)
	r.b = append(r.b, byte(n), byte(n>>8), byte(n>>16), r.seq)
	r.b = append(r.b, payload...)
	r.seq++
	return r
}

// ok is an OK packet (header 0x00) or, with hdr 0xfe, the OK that ends rows (DEPRECATE_EOF).
func (r *myReply) ok(hdr byte, affected uint64, status uint16) *myReply {
	p := appendLenenc([]byte{hdr}, affected)
	p = append(p, 0)                                // last insert id
	p = binary.LittleEndian.AppendUint16(p, status) // status flags
	return r.pkt(append(p, 0, 0)...)                // warnings
}

func (r *myReply) eof(status uint16) *myReply {
	return r.pkt(binary.LittleEndian.AppendUint16([]byte{0xfe, 0, 0}, status)...)
}

func (r *myReply) err(code uint16, state, msg string) *myReply {
	p := binary.LittleEndian.AppendUint16([]byte{0xff}, code)
	return r.pkt(append(append(p, '#'), state+msg...)...)
}

// rows is a result set of text rows (nil: NULL), its end flagged with status.
func (r *myReply) rows(deprecateEOF bool, status uint16, rows ...[]any) *myReply {
	r.pkt(byte(len(rows[0])))
	for range rows[0] {
		r.pkt([]byte("\x03def\x00\x00\x00\x01c\x00\x0c\x3f\x00\x14\x00\x00\x00\x08\x81\x00\x00\x00\x00")...)
	}
	if !deprecateEOF {
		r.eof(0)
	}
	for _, row := range rows[1:] {
		var p []byte
		for _, v := range row {
			if v == nil {
				p = append(p, 0xfb)
				continue
			}
			s := v.(string)
			p = append(appendLenenc(p, uint64(len(s))), s...)
		}
		r.pkt(p...)
	}
	if deprecateEOF {
		return r.ok(0xfe, 0, status)
	}
	return r.eof(status)
}

func appendLenenc(p []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(p, byte(n))
	case n < 1<<16:
		return binary.LittleEndian.AppendUint16(append(p, 0xfc), uint16(n))
	case n < 1<<24:
		return append(p, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(p, 0xfe), n)
}

// both runs fn on the raw path and through net.Conn.
func both(t *testing.T, fn func(t *testing.T, poll bool)) {
	for _, poll := range []bool{false, true} {
		name := "raw"
		if poll {
			name = "netconn"
		}
		t.Run(name, func(t *testing.T) { fn(t, poll) })
	}
}

// readAll reads the rows of the reply Query started, as strings ("NULL" for NULL).
func readAll(t *testing.T, w *MySQL) ([]string, error) {
	t.Helper()
	var got []string
	for {
		v, ok, err := w.NextRow()
		if !ok {
			return got, err
		}
		got = append(got, strings.Join(strs(v), ","))
	}
}

func strs(v [][]byte) []string {
	s := make([]string, len(v))
	for i, b := range v {
		s[i] = string(b)
		if b == nil {
			s[i] = "NULL"
		}
	}
	return s
}

// usable checks that w still runs a statement: SELECT 1's reply is read in full.
func usable(t *testing.T, f *myFake, deprecateEOF bool) {
	t.Helper()
	f.answer(0, newReply().rows(deprecateEOF, 0, []any{"c"}, []any{"1"}).b)
	rows, _, err := f.w.Query(context.Background(), []byte("SELECT 1"))
	if err != nil || !rows {
		t.Fatalf("the next statement: rows %v, %v", rows, err)
	}
	if got, err := readAll(t, f.w); err != nil || len(got) != 1 || got[0] != "1" {
		t.Fatalf("the next statement: %q, %v", got, err)
	}
}

// broken checks that w refuses statements, the connection being closed.
func broken(t *testing.T, f *myFake) {
	t.Helper()
	if _, err := f.w.Exec(context.Background(), []byte("DO 1")); err == nil {
		t.Fatal("a statement after a fatal error: no error")
	}
}

// TestMyFakeResultSets: rows, NULLs, an empty value, affected rows and split reads, with the
// EOF after the column definitions and rows (old servers) and without (DEPRECATE_EOF).
func TestMyFakeResultSets(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		for _, dep := range []bool{false, true} {
			for _, chunk := range []int{0, 1, 5} {
				var caps uint32
				if dep {
					caps = sqldriver.MySQLClientDeprecateEOF
				}
				f := newMyFake(t, poll, caps)
				ctx := context.Background()
				f.answer(chunk,
					newReply().rows(dep, 0, []any{"a", "b"}, []any{"1", nil}, []any{"", strings.Repeat("x", 300)}).b,
					newReply().ok(0, 300, 0).b)
				rows, _, err := f.w.Query(ctx, []byte("SELECT a, b FROM t"))
				if err != nil || !rows {
					t.Fatalf("query: %v, %v", rows, err)
				}
				got, err := readAll(t, f.w)
				if err != nil || len(got) != 2 || got[0] != "1,NULL" || got[1] != ","+strings.Repeat("x", 300) {
					t.Fatalf("deprecateEOF %v chunk %d: %q, %v", dep, chunk, got, err)
				}
				if n, err := f.w.Exec(ctx, []byte("DELETE FROM t")); err != nil || n != 300 {
					t.Fatalf("affected rows %d, %v", n, err)
				}
				usable(t, f, dep)
			}
		}
	})
}

// TestMyFakeMoreResults: a reply of several results (a CALL's result sets, then its OK) is
// read to its end and leaves the connection usable; it was closed when the second result set
// ended ("closed after the reply": the reply's end was marked once per result set).
func TestMyFakeMoreResults(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		for _, dep := range []bool{false, true} {
			var caps uint32
			if dep {
				caps = sqldriver.MySQLClientDeprecateEOF
			}
			f := newMyFake(t, poll, caps)
			ctx := context.Background()
			f.answer(0,
				newReply().rows(dep, serverMoreResults, []any{"a"}, []any{"1"}).
					rows(dep, serverMoreResults, []any{"b"}, []any{"2"}, []any{"3"}).ok(0, 0, 0).b,
				newReply().ok(0, 1, serverMoreResults).rows(dep, serverMoreResults, []any{"c"}, []any{"4"}).ok(0, 0, 0).b)
			rows, _, err := f.w.Query(ctx, []byte("CALL p()"))
			if err != nil || !rows {
				t.Fatalf("call: %v, %v", rows, err)
			}
			if got, err := readAll(t, f.w); err != nil || len(got) != 1 || got[0] != "1" {
				t.Fatalf("first result set: %q, %v", got, err)
			}
			if n, err := f.w.Exec(ctx, []byte("CALL q()")); err != nil || n != 1 {
				t.Fatalf("an OK, then a result set: %d, %v", n, err)
			}
			usable(t, f, dep)
		}
	})
}

// TestMyFakeErrorAfterReply: an error the server sends after a complete reply (MySQL 8's 4031
// when wait_timeout closes an idle connection; a kill; a shutdown) is not taken for the next
// statement's reply: the connection fails with that error, as go-sql-driver's does, whether the
// error came in the same read as the reply or after it.
func TestMyFakeErrorAfterReply(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		for _, sameRead := range []bool{false, true} {
			for _, seq := range []byte{0, 1} {
				f := newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
				ctx := context.Background()
				late := (&myReply{seq: seq}).err(4031, "HY000", "The client was disconnected by the server because of inactivity.").b
				first := newReply().ok(0, 1, 0).b
				if sameRead {
					first = append(first, late...)
				}
				done := make(chan struct{})
				go func() {
					f.serve(first, 0)
					if !sameRead {
						f.srv.Write(late)
					}
					f.srv.(*net.TCPConn).CloseWrite()
					close(done)
				}()
				if _, err := f.w.Exec(ctx, []byte("DO 1")); err != nil {
					t.Fatal(err)
				}
				<-done
				_, err := f.w.Exec(ctx, []byte("DO 2"))
				var myErr *mysql.MySQLError
				if !errors.As(err, &myErr) || myErr.Number != 4031 {
					t.Fatalf("same read %v, sequence %d: %v, want the server's error 4031", sameRead, seq, err)
				}
				// Numbered 1 and read after the reply, the error is indistinguishable from the
				// statement's own (go-sql-driver takes it so too); the closed connection then
				// fails the next statement.
				if seq == 0 && f.w.err == nil {
					t.Fatalf("same read %v: the error did not fail the connection", sameRead)
				}
				broken(t, f)
			}
		}
	})
}

// TestMyFakeBytesAfterReply: bytes left in the buffer after a reply (an error the server sent
// unasked, read with the reply) fail the next statement with that error instead of being read
// as its reply, which they are not.
func TestMyFakeBytesAfterReply(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		f := newMyFake(t, poll, 0)
		usable(t, f, false)
		late := newReply().err(1927, "70100", "Connection was killed").b // numbered 1, as a reply's
		f.w.n = copy(f.w.rbuf, late)
		f.w.r = 0
		f.answer(0, newReply().ok(0, 1, 0).b)
		_, err := f.w.Exec(context.Background(), []byte("DO 1"))
		var myErr *mysql.MySQLError
		if !errors.As(err, &myErr) || myErr.Number != 1927 || f.w.err == nil {
			t.Fatalf("%v (fatal: %v), want the unasked error 1927, fatal", err, f.w.err != nil)
		}
		broken(t, f)
	})
}

// TestMyFakeErrorThenClose: a server that sends an error and closes the connection (a kill,
// a shutdown, mid-rows or as the whole reply) gives that error, then fails the next statement
// instead of hanging.
func TestMyFakeErrorThenClose(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		for _, midRows := range []bool{false, true} {
			f := newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
			r := newReply()
			if midRows {
				r.pkt(1).pkt([]byte("\x03def")...).pkt(1, '1')
			}
			r.err(1927, "70100", "Connection was killed")
			go func() { f.serve(r.b, 0); f.srv.Close() }()
			rows, _, err := f.w.Query(context.Background(), []byte("SELECT 1"))
			if midRows {
				if err != nil || !rows {
					t.Fatalf("query: %v", err)
				}
				_, err = readAll(t, f.w)
			}
			var myErr *mysql.MySQLError
			if !errors.As(err, &myErr) || myErr.Number != 1927 || string(myErr.SQLState[:]) != "70100" {
				t.Fatalf("mid-rows %v: %v, want error 1927", midRows, err)
			}
			broken(t, f)
		}
	})
}

// TestMyFakeCorrupt: lengths that do not fit, a column count beyond any result's, an empty
// packet, a short OK and a server that stops mid-packet each fail the connection (closed, so
// the driver's next operation fails too) rather than read past a packet or wait forever.
func TestMyFakeCorrupt(t *testing.T) {
	cases := map[string][]byte{
		"value longer than its row":   newReply().pkt(1).pkt('d').pkt(0xfe, 0, 0, 0, 0).pkt(5, 'a', 'b').b,
		"column count beyond any":     newReply().pkt(0xfe, 0, 0, 0, 0, 1, 0, 0, 0).b,
		"column count of zero":        newReply().pkt(0).b,
		"empty packet":                newReply().pkt().b,
		"short OK":                    newReply().pkt(0x00).b,
		"short ERR":                   newReply().pkt(0xff, 1).b,
		"packet longer than the data": {0xff, 0, 0, 1, 0, 1, 2},
		"local file request":          newReply().pkt(0xfb, 'f').b,
	}
	both(t, func(t *testing.T, poll bool) {
		for name, r := range cases {
			f := newMyFake(t, poll, 0)
			go func() { f.serve(r, 0); f.srv.(*net.TCPConn).CloseWrite() }()
			rows, _, err := f.w.Query(context.Background(), []byte("SELECT 1"))
			if err == nil && rows {
				_, err = readAll(t, f.w)
			}
			if err == nil {
				t.Fatalf("%s: no error", name)
			}
			if f.w.err == nil {
				t.Fatalf("%s: %v, not fatal", name, err)
			}
			broken(t, f)
		}
	})
}

// TestMyFakeSequence: a packet out of sequence fails the connection; an error packet out of
// sequence gives its error, as go-sql-driver does (servers number some errors from 0), and
// fails the connection too.
func TestMyFakeSequence(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		f := newMyFake(t, poll, 0)
		f.answer(0, (&myReply{seq: 2}).ok(0, 1, 0).b)
		if _, err := f.w.Exec(context.Background(), []byte("DO 1")); err == nil || !strings.Contains(err.Error(), "out of sync") {
			t.Fatalf("OK numbered 2: %v", err)
		}
		broken(t, f)

		f = newMyFake(t, poll, 0)
		f.answer(0, (&myReply{seq: 0}).err(1053, "08S01", "Server shutdown in progress").b)
		_, err := f.w.Exec(context.Background(), []byte("DO 1"))
		var myErr *mysql.MySQLError
		if !errors.As(err, &myErr) || myErr.Number != 1053 {
			t.Fatalf("error numbered 0: %v, want error 1053", err)
		}
		broken(t, f)

		f = newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF) // mid-rows
		r := newReply().pkt(1).pkt('d').pkt(1, '1')
		r.seq = 9
		f.answer(0, r.ok(0xfe, 0, 0).b)
		if rows, _, err := f.w.Query(context.Background(), []byte("SELECT 1")); err != nil || !rows {
			t.Fatal(err)
		}
		if _, err := readAll(t, f.w); err == nil || f.w.err == nil {
			t.Fatalf("rows' end out of sequence: %v", err)
		}
	})
}

// TestMyFakeSessionState: an OK that carries session state changes (CLIENT_SESSION_TRACK: the
// protocol's only news the server adds to a reply unasked; it has no asynchronous messages)
// is read as an OK, its affected rows kept.
func TestMyFakeSessionState(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		f := newMyFake(t, poll, sqldriver.MySQLClientDeprecateEOF)
		const stateChanged = 0x4000
		info := "\x00\x0a\x00\x08autocommit\x03OFF" // no info text; a system variable changed
		p := binary.LittleEndian.AppendUint16([]byte{0x00, 3, 0}, stateChanged)
		p = append(p, 0, 0) // warnings
		p = append(appendLenenc(p, uint64(len(info))), info...)
		f.answer(0, newReply().pkt(p...).b)
		if n, err := f.w.Exec(context.Background(), []byte("SET autocommit = 0")); err != nil || n != 3 {
			t.Fatalf("OK with session state: %d, %v", n, err)
		}
		usable(t, f, true)
	})
}

// TestMyFakeCancelKills: a statement whose context is canceled while the server runs it
// returns the context's error, closes the socket, and asks for KILL QUERY (the server would
// otherwise run it to its end); canceled before it starts, it sends nothing and kills nothing.
func TestMyFakeCancelKills(t *testing.T) {
	both(t, func(t *testing.T, poll bool) {
		f := newMyFake(t, poll, 0)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := f.w.Exec(ctx, []byte("DO 1")); !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled before: %v", err)
		}
		select {
		case <-f.killed:
			t.Fatal("KILL QUERY for a statement that never started")
		default:
		}
		usable(t, f, false)

		ctx, cancel = context.WithCancel(context.Background())
		go func() { // cancel once the statement has reached the server, which never replies
			var h [4]byte
			io.ReadFull(f.srv, h[:])
			cancel()
		}()
		if _, err := f.w.Exec(ctx, []byte("SELECT SLEEP(60)")); !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled while running: %v", err)
		}
		select { // a bound far beyond the call's time, only so that a missing call fails
		case <-f.killed:
		case <-time.After(time.Minute):
			t.Fatal("no KILL QUERY for the canceled statement")
		}
		broken(t, f)
	})
}

package wire

import (
	"io"
	"net"
	"testing"
	"time"
)

// memConn is a net.Conn whose reads return data, then io.EOF; writes are dropped.
type memConn struct{ data []byte }

func (c *memConn) Read(b []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b, c.data)
	c.data = c.data[n:]
	return n, nil
}
func (c *memConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c *memConn) Close() error                     { return nil }
func (c *memConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzPGReply feeds the lean path's reply reader any bytes: it must end every reply with rows,
// an error or a clean end, never panic, never read past what it was given, and never hand out
// a value that is not part of the input.
func FuzzPGReply(f *testing.F) {
	for _, c := range pgCases() {
		f.Add(c.reply)
	}
	f.Add(msgs(parsed, bound, oneColumn(), row("a"), complete("SELECT 1"), z))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &Postgres{Sock: NewSock(&memConn{data: data}, true), gen: 1}
		w.busy.Store(1)
		var got int
		for range len(data) + 1 { // each message takes at least 5 bytes
			vals, ok, err := w.NextRow()
			if !ok {
				if err == nil && w.busy.Load() != 0 { // only ReadyForQuery ends a reply cleanly
					t.Fatal("the reply ended cleanly without ReadyForQuery")
				}
				return
			}
			for _, v := range vals {
				got += len(v)
			}
			if got > len(data) {
				t.Fatalf("values of %d bytes from %d bytes of input", got, len(data))
			}
		}
		t.Fatal("the reader did not end on its input")
	})
}

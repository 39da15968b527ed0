package sqldriver

import (
	"bytes"
	"encoding/binary"
	"net"
	"testing"
)

// chunkConn reads in from pieces of chunk bytes and takes every write.
type chunkConn struct {
	net.Conn
	in    *bytes.Reader
	chunk int
}

func (c *chunkConn) Read(b []byte) (int, error)  { return c.in.Read(b[:min(len(b), c.chunk)]) }
func (c *chunkConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *chunkConn) Close() error                { return nil }

// FuzzMySQLHandshake feeds arbitrary handshakes, in pieces of any size, to the connection
// wrapper that reads a connection's id and capabilities as they pass (what a proxy or a
// stranger on the port could send): it must not panic, and a connection it registers is
// found by its id. Run it with
//
//	go test -run '^$' -fuzz '^FuzzMySQLHandshake$' -fuzztime 10s ./internal/driver/sqldriver/
func FuzzMySQLHandshake(f *testing.F) {
	hello := append([]byte{0, 0, 0, 0, 10}, "10.11.19-MariaDB\x00"...)
	hello = binary.LittleEndian.AppendUint32(hello, 42)
	hello = append(hello, make([]byte, 40)...)
	resp := binary.LittleEndian.AppendUint32([]byte{32, 0, 0, 1}, MySQLClientDeprecateEOF)
	resp = append(resp, make([]byte, 28)...)
	f.Add(hello, resp, byte(1), byte(7))
	f.Add(hello[:9], resp[:20], byte(100), byte(3))
	f.Fuzz(func(t *testing.T, in, out []byte, rchunk, wchunk byte) {
		socks := &mysqlSockets{}
		c := &sniffConn{Conn: &chunkConn{in: bytes.NewReader(in), chunk: int(rchunk) + 1}, socks: socks}
		buf := make([]byte, 256)
		for {
			if n, _ := c.Read(buf); n == 0 {
				break
			}
		}
		for b := out; len(b) > 0; {
			n := min(len(b), int(wchunk)+1)
			c.Write(b[:n])
			b = b[n:]
		}
		if c.ready && socks.get(c.sock.ID) != c {
			t.Fatalf("connection %d registered but not found", c.sock.ID)
		}
		c.Close()
		if socks.get(c.sock.ID) == c {
			t.Fatal("a closed connection is still registered")
		}
	})
}

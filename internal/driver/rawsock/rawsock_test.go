package rawsock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pair is a loopback TCP connection: the wrapped client end and the plain server end.
func pair(t *testing.T) (net.Conn, net.Conn) {
	c, s := dialPair(t, "tcp")
	w := Wrap(c)
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s
}

// dialPair is a connection over network ("tcp" or "unix"): the dialed end and the accepted one.
func dialPair(t *testing.T, network string) (net.Conn, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.Dial(network, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	return c, s
}

func TestConnReadWrite(t *testing.T) {
	c, s := pair(t)
	if _, ok := c.(*Conn); !ok {
		t.Fatalf("Wrap of a TCP connection gave %T", c)
	}
	if Unwrap(c) == c {
		t.Fatal("Unwrap returned the wrapper")
	}
	// 8 MiB one way: far more than the socket buffers, so writes block and resume on the poller.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<19)
	go func() {
		if _, err := c.Write(big); err != nil {
			t.Errorf("write: %v", err)
		}
	}()
	got := make([]byte, len(big))
	if _, err := io.ReadFull(s, got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the server read %d bytes, equal %v, err %v", len(got), bytes.Equal(got, big), err)
	}
	// And back, read by the wrapped end in pieces.
	go s.Write(big)
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the client read equal %v, err %v", bytes.Equal(got, big), err)
	}
}

func TestConnDeadlineAndClose(t *testing.T) {
	c, s := pair(t)
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout net.Error", err)
	}
	c.SetReadDeadline(time.Time{})
	s.Write([]byte("hi"))
	b := make([]byte, 10)
	if n, err := c.Read(b); err != nil || string(b[:n]) != "hi" {
		t.Fatalf("read after the deadline was lifted: %q, %v", b[:n], err)
	}
	s.Close()
	if n, err := c.Read(b); err != io.EOF {
		t.Fatalf("read after the peer closed: %d, %v, want io.EOF", n, err)
	}
	c.Close()
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v, want net.ErrClosed", err)
	}
}

// A connection without a file descriptor is left as it is.
func TestWrapPipe(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Fatal("Wrap changed a net.Pipe end")
	}
}

// callsPair is pair's client wrapped, with Calls on its socket.
func callsPair(t *testing.T) (client, server net.Conn, calls *Calls) {
	t.Helper()
	c, s := pair(t)
	raw, err := c.(*Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return c, s, NewCalls(raw)
}

// TestWriteRead: a request answered at once and one answered late both come back (the wait after
// the write inside the read callback misses neither); a request larger than the socket buffers
// returns partial for the caller to finish; a peer that closes gives io.EOF.
func TestWriteRead(t *testing.T) {
	c, s, calls := callsPair(t)
	buf := make([]byte, 64)
	for _, delay := range []time.Duration{0, 0, 20 * time.Millisecond, 0} {
		go func() {
			req := make([]byte, 4)
			if _, err := io.ReadFull(s, req); err != nil {
				t.Errorf("server read: %v", err)
				return
			}
			time.Sleep(delay)
			s.Write(append([]byte("re:"), req...))
		}()
		got := []byte{}
		nw, nr, err := calls.WriteRead([]byte("ping"), buf)
		if nw != 4 || err != nil {
			t.Fatalf("delay %v: wrote %d, err %v", delay, nw, err)
		}
		got = append(got, buf[:nr]...)
		for len(got) < 7 { // the reply may come in pieces
			n, err := c.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, buf[:n]...)
		}
		if string(got) != "re:ping" {
			t.Fatalf("delay %v: reply %q", delay, got)
		}
	}

	// 64 MiB with nobody reading: more than both ends' buffers can hold (tcp_rmem's and
	// tcp_wmem's most are 32 and 4 MiB here), so one write cannot take it all.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<22)
	nw, nr, err := calls.WriteRead(big, buf)
	if err != nil || nw >= len(big) || nr != 0 {
		t.Fatalf("64 MiB: wrote %d, read %d, err %v; want a partial write and nothing read", nw, nr, err)
	}
	read := make(chan error, 1)
	go func() {
		got := make([]byte, len(big))
		_, err := io.ReadFull(s, got)
		if err == nil && !bytes.Equal(got, big) {
			err = errors.New("the bytes differ")
		}
		read <- err
	}()
	if _, err := c.Write(big[nw:]); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatalf("the server's read of 64 MiB: %v", err)
	}

	go func() {
		io.ReadFull(s, make([]byte, 3))
		s.Close()
	}()
	if _, _, err := calls.WriteRead([]byte("bye"), buf); err != io.EOF {
		t.Fatalf("peer closed: err %v, want io.EOF", err)
	}
}

// TestCallsDoNotAllocate checks that a statement's system calls allocate nothing: closures made
// per call allocated six objects a WriteRead and three a Read or Write. The average over many
// calls allows for a stray allocation by the runtime.
func TestCallsDoNotAllocate(t *testing.T) {
	c, s, calls := callsPair(t)
	req, reply, buf := []byte("ping"), []byte("pong"), make([]byte, 64)
	done := make(chan struct{})
	go func() { // the server: a reply for each request
		defer close(done)
		in := make([]byte, len(req))
		for {
			if _, err := io.ReadFull(s, in); err != nil {
				return
			}
			if _, err := s.Write(reply); err != nil {
				return
			}
		}
	}()
	if n := testing.AllocsPerRun(200, func() {
		if _, nr, err := calls.WriteRead(req, buf); err != nil || nr != len(reply) {
			t.Fatalf("WriteRead: %d bytes, %v", nr, err)
		}
	}); n >= 1 {
		t.Errorf("WriteRead allocates %.1f objects a call, want none", n)
	}
	if n := testing.AllocsPerRun(200, func() {
		if _, err := calls.Write(req); err != nil {
			t.Fatal(err)
		}
		got := 0
		for got < len(reply) {
			n, err := calls.Read(buf[got:len(reply)])
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	}); n >= 1 {
		t.Errorf("Write and Read allocate %.1f objects a call, want none", n)
	}
	c.Close()
	<-done
}

// TestCallsFailWithNothing: a call that fails before its system call (a deadline already past)
// reports no bytes, not the previous call's count, which a caller would take as data.
func TestCallsFailWithNothing(t *testing.T) {
	c, s, calls := callsPair(t)
	buf := make([]byte, 64)
	if _, err := s.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if n, err := calls.Read(buf); err != nil || n != 5 {
		t.Fatalf("first read: %d bytes, %v", n, err)
	}
	if n, err := calls.Write([]byte("hello")); err != nil || n != 5 {
		t.Fatalf("first write: %d bytes, %v", n, err)
	}
	c.SetDeadline(time.Now().Add(-time.Second))
	if n, err := calls.Read(buf); err == nil || n != 0 {
		t.Errorf("read past its deadline: %d bytes, %v; want 0 and a timeout", n, err)
	}
	if n, err := calls.Write([]byte("x")); err == nil || n != 0 {
		t.Errorf("write past its deadline: %d bytes, %v; want 0 and a timeout", n, err)
	}
}

// TestCallsTimeOutWithNothing: a read or write that waits and then reaches its deadline returns
// 0 bytes, not the -1 of the system call that found nothing (go-sql-driver added that -1 to its
// buffer's length and panicked on the next read: seen in the monitor under load).
func TestCallsTimeOutWithNothing(t *testing.T) {
	c, _, calls := callsPair(t)
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if n, err := calls.Read(make([]byte, 64)); err == nil || n != 0 {
		t.Errorf("read that timed out waiting: %d bytes, %v; want 0 and a timeout", n, err)
	}
	c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	chunk := make([]byte, 1<<20)
	for range 1000 { // the peer reads nothing: the socket's buffers fill, then a write waits
		n, err := calls.Write(chunk)
		if err != nil {
			if n != 0 {
				t.Errorf("write that timed out waiting: %d bytes, %v; want 0 and a timeout", n, err)
			}
			return
		}
	}
	t.Fatal("1000 MiB written to a peer that reads nothing, and no timeout")
}

// TestWriteReadFindsWhatCameFirst: bytes the peer sent before the request (a message sent
// unasked, then its side closed) are read by WriteRead at once; before, WriteRead waited for a
// readiness notification that RawConn.Read had already cleared, and waited forever.
func TestWriteReadFindsWhatCameFirst(t *testing.T) {
	_, server, calls := callsPair(t)
	if _, err := server.Write([]byte("unasked")); err != nil {
		t.Fatal(err)
	}
	server.(*net.TCPConn).CloseWrite()
	time.Sleep(10 * time.Millisecond) // the bytes are in the client's socket before the request
	done := make(chan string, 1)
	go func() {
		r := make([]byte, 64)
		_, nr, err := calls.WriteRead([]byte("request"), r)
		done <- fmt.Sprintf("%q %v", r[:nr], err)
	}()
	select {
	case got := <-done:
		if got != `"unasked" <nil>` {
			t.Errorf("WriteRead read %s, want the unasked bytes", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("WriteRead waited a minute for bytes that were already in the socket")
	}
}

package rawsock

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// pair is a loopback TCP connection: the wrapped client end and the plain server end.
func pair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	w := Wrap(c)
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s
}

func TestConnReadWrite(t *testing.T) {
	if Off {
		t.Skip("DBPERF_RAWSOCK=off: nothing is wrapped")
	}
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

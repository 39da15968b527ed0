package rawsock

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// kernelPair is a connection over network ("tcp" or "unix"): the client end detached
// (KernelConn) and the plain server end.
func kernelPair(t *testing.T, network string) (*KernelConn, net.Conn) {
	t.Helper()
	c, s := dialPair(t, network)
	d, err := Detach(c)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := d.(*KernelConn)
	if !ok {
		t.Fatalf("Detach of a %s connection gave %T", network, d)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the detached connection still writes: %v", err)
	}
	t.Cleanup(func() { k.Close(); s.Close() })
	return k, s
}

func TestKernelConnReadWrite(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		k, s := kernelPair(t, network)
		if k.RemoteAddr().String() != s.LocalAddr().String() {
			t.Errorf("%s: remote address %v, the server's is %v", network, k.RemoteAddr(), s.LocalAddr())
		}
		// 8 MiB each way: far more than the socket buffers, so writes wait for room.
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<19)
		go k.Write(big)
		got := make([]byte, len(big))
		if _, err := io.ReadFull(s, got); err != nil || !bytes.Equal(got, big) {
			t.Fatalf("%s: the server read equal %v, err %v", network, bytes.Equal(got, big), err)
		}
		go s.Write(big)
		if _, err := io.ReadFull(k, got); err != nil || !bytes.Equal(got, big) {
			t.Fatalf("%s: the client read equal %v, err %v", network, bytes.Equal(got, big), err)
		}
		// A reply that comes while the read waits.
		go func() {
			time.Sleep(20 * time.Millisecond)
			s.Write([]byte("late"))
		}()
		b := make([]byte, 10)
		if n, err := k.Read(b); err != nil || string(b[:n]) != "late" {
			t.Fatalf("%s: a late reply read as %q, %v", network, b[:n], err)
		}
		s.Close()
		if n, err := k.Read(b); n != 0 || err != io.EOF {
			t.Fatalf("%s: read after the peer closed: %d, %v, want io.EOF", network, n, err)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout()
}

func TestKernelConnDeadlines(t *testing.T) {
	k, s := kernelPair(t, "tcp")
	b := make([]byte, 10)
	k.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := k.Read(b); !isTimeout(err) {
		t.Fatalf("read past its deadline: %v, want a timeout net.Error", err)
	}
	k.SetReadDeadline(time.Time{})
	s.Write([]byte("hi"))
	if n, err := k.Read(b); err != nil || string(b[:n]) != "hi" {
		t.Fatalf("read after the deadline was lifted: %q, %v", b[:n], err)
	}
	// A deadline set while a read waits (pgx's cancellation does this) ends the wait.
	go func() {
		time.Sleep(20 * time.Millisecond)
		k.SetDeadline(time.Now())
	}()
	if _, err := k.Read(b); !isTimeout(err) {
		t.Fatalf("read whose deadline came while it waited: %v, want a timeout", err)
	}
	// A write into a socket nobody reads stops at its deadline, saying how much it wrote.
	k.SetDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := k.Write(make([]byte, 64<<20))
	if !isTimeout(err) || n <= 0 || n >= 64<<20 {
		t.Fatalf("write past its deadline: %d bytes, %v", n, err)
	}
}

func TestKernelConnClose(t *testing.T) {
	k, _ := kernelPair(t, "tcp")
	done := make(chan error, 1)
	go func() {
		_, err := k.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("a read waiting at Close returned %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a waiting read")
	}
	if err := k.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := k.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
	if err := k.SetDeadline(time.Now()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("SetDeadline after Close: %v", err)
	}
	for _, fd := range []int{k.fd, k.rwake, k.wwake} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
			t.Errorf("descriptor %d is still open after Close (%v)", fd, err)
		}
	}
}

// TestKernelWaitLetsTheRuntimeRun: a read that waits in the kernel keeps its processor, yet
// the runtime can still stop the world (a collection) and run other goroutines on that
// processor: its preemption signal ends the wait, which resumes after. With two processors the
// read keeps one (a raw wait) and the collection must stop it.
func TestKernelWaitLetsTheRuntimeRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	k, s := kernelPair(t, "tcp")
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 10)
		n, err := k.Read(b)
		got <- fmt.Sprint(string(b[:n]), err)
	}()
	time.Sleep(20 * time.Millisecond)
	if n := rawWaiters.Load(); n != 1 {
		t.Fatalf("%d waits keep their processor, want the reader's", n)
	}
	done := make(chan bool)
	go func() {
		runtime.GC()
		done <- true
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a collection did not finish while a read waited in the kernel")
	}
	s.Write([]byte("after"))
	if r := <-got; r != "after<nil>" {
		t.Fatalf("the read that waited through a collection returned %q", r)
	}
}

// TestKernelCallsWriteRead: the lean paths' exchanges on a detached socket, through its
// RawConn, keep their guarantee: bytes that came before the request are found at once.
func TestKernelCallsWriteRead(t *testing.T) {
	k, s := kernelPair(t, "tcp")
	raw, err := k.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	calls := NewCalls(raw)
	s.Write([]byte("unasked"))
	time.Sleep(20 * time.Millisecond)
	r := make([]byte, 64)
	if nw, nr, err := calls.WriteRead([]byte("ping"), r); err != nil || nw != 4 || string(r[:nr]) != "unasked" {
		t.Fatalf("WriteRead with bytes waiting: wrote %d, read %q, %v", nw, r[:nr], err)
	}
	go func() {
		b := make([]byte, 4)
		io.ReadFull(s, b)
		io.ReadFull(s, b)
		s.Write([]byte("pong"))
	}()
	if nw, nr, err := calls.WriteRead([]byte("ping"), r); err != nil || nw != 4 || string(r[:nr]) != "pong" {
		t.Fatalf("WriteRead: wrote %d, read %q, %v", nw, r[:nr], err)
	}
	// go-sql-driver's liveness check reads once without waiting.
	var n int
	var e error
	if err := raw.Read(func(fd uintptr) bool { n, e = unix.Read(int(fd), r); return true }); err != nil || n != -1 || e != unix.EAGAIN {
		t.Fatalf("a liveness check on an idle socket: %d, %v, %v", n, e, err)
	}
}

// TestKernelConnTLS: TLS runs on a detached socket as on any net.Conn (pgx and go-sql-driver
// start it after the dial, on the connection the dial returned).
func TestKernelConnTLS(t *testing.T) {
	k, s := kernelPair(t, "tcp")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), DNSNames: []string{"db.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv := tls.Server(s, &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	go func() {
		b := make([]byte, 4)
		if _, err := io.ReadFull(srv, b); err == nil {
			srv.Write(append(b, "!"...))
		}
	}()
	cli := tls.Client(k, &tls.Config{ServerName: "db.test", RootCAs: pool})
	if _, err := cli.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := io.ReadFull(cli, b); err != nil || string(b) != "ping!" {
		t.Fatalf("TLS on a detached socket read %q, %v", b, err)
	}
	// A connection that is not a socket of its own (TLS, a pipe) is left as it is.
	if d, err := Detach(cli); err != nil || d != net.Conn(cli) {
		t.Fatalf("Detach of a TLS connection gave %T, %v", d, err)
	}
}

// TestKernelConnDoesNotAllocate: a round trip on a detached socket, through Read and Write and
// through the lean paths' exchange, allocates nothing.
func TestKernelConnDoesNotAllocate(t *testing.T) {
	k, s := kernelPair(t, "tcp")
	go io.Copy(s, s) // echo
	raw, _ := k.SyscallConn()
	calls := NewCalls(raw)
	req, rep := []byte("ping"), make([]byte, 4)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := k.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(k, rep); err != nil {
			t.Fatal(err)
		}
		_, nr, err := calls.WriteRead(req, rep)
		if err != nil || nr == 0 {
			t.Fatal(nr, err)
		}
		if _, err := io.ReadFull(k, rep[nr:]); err != nil { // what the exchange did not read yet
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("a round trip allocated %.1f times", allocs)
	}
}

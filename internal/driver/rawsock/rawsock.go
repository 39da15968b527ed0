// Package rawsock reads and writes a client's sockets with raw system calls.
//
// Go's net.Conn enters the scheduler's system-call state around every read and write, and the
// first entry after the process was idle wakes the runtime's sysmon thread: a futex wake-up and
// some nanosleeps per statement of a client that waits for each reply. Read and Write here make
// the same system calls with RawSyscall inside syscall.RawConn: the socket is non-blocking, so
// each returns at once, and when it would block (EAGAIN) RawConn waits on Go's network poller as
// net.Conn does, deadlines included (figures: docs/performance.md, "The lean client paths").
// KernelConn (kernel.go, --client-path kernel, the default) makes the same calls on a socket
// taken out of the poller and waits for replies in the kernel, as C clients do: on an idle
// machine that doubles a closed-loop client's rate (docs/performance.md, "Waiting in the
// kernel"). Waiting without the read first saves one cheap call but could miss bytes that came
// before the request (docs/performance.md, "Lean socket reads").
// The race detector does not see these reads and writes (system calls, not instrumented memory
// accesses): the lean paths' protocol tests also run through net.Conn, where it does.
//
// driver/wire's lean paths use Calls directly; the SQL targets wrap the connections their
// drivers dial (Wrap), so pgx and go-sql-driver/mysql get them too.
package rawsock

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// Calls makes one socket's raw system calls. Its callbacks for RawConn are bound once, when it
// is made: a closure made for each call would capture the call's results and move them to the
// heap (TestCallsDoNotAllocate). A Calls is for one goroutine at a time; a connection that
// reads and writes from two keeps one for each direction.
type Calls struct {
	raw            syscall.RawConn
	w, r           []byte // the call's buffers, nil between calls
	nw, nr         int
	errno          syscall.Errno
	wrote, partial bool
	// waitFirst: after a request, wait for the reply before reading. Only where the wait is
	// level-triggered (KernelConn's ppoll): bytes already there end it at once.
	waitFirst bool

	read, write, exchange func(fd uintptr) bool
}

// NewCalls returns the calls for raw's socket.
func NewCalls(raw syscall.RawConn) *Calls {
	c := &Calls{raw: raw}
	_, c.waitFirst = raw.(kernelRaw)
	c.read, c.write, c.exchange = c.readFD, c.writeFD, c.exchangeFD
	return c
}

// Read reads once into b from the socket, waiting on the poller while nothing is there.
func (c *Calls) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.r, c.nr, c.errno = b, 0, 0 // the last call's results must not stand if this one makes none
	err := c.raw.Read(c.read)
	n, errno := c.nr, c.errno
	c.r = nil
	if err != nil { // the wait ended (deadline, close) after a read found nothing: nothing read
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (c *Calls) readFD(fd uintptr) bool {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.r[0])), uintptr(len(c.r)))
	c.nr, c.errno = count(r, e), e
	return e != syscall.EAGAIN
}

// count is a read's or write's byte count: 0 when it failed, where the system call returns -1
// (a count of -1 handed on as a net.Conn's would corrupt the caller's buffer arithmetic).
func count(r uintptr, e syscall.Errno) int {
	if e != 0 {
		return 0
	}
	return int(r)
}

// Write writes some of b to the socket, waiting on the poller while its buffer is full.
func (c *Calls) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.w, c.nw, c.errno = b, 0, 0
	err := c.raw.Write(c.write)
	n, errno := c.nw, c.errno
	c.w = nil
	if err != nil { // the wait for room ended (deadline, close): nothing written
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	return n, nil
}

func (c *Calls) writeFD(fd uintptr) bool {
	r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.w[0])), uintptr(len(c.w)))
	c.nw, c.errno = count(r, e), e
	return e != syscall.EAGAIN
}

// WriteRead writes a request w and reads the start of its reply into r, in one entry into the
// socket's RawConn.Read.
//
// It writes from inside raw.Read's callback and then reads at once, before any wait.
// RawConn.Read clears the poller's readiness notification before its first call of the callback
// (internal/poll's FD.RawRead calls prepareRead, the runtime's pollReset), so bytes that were
// in the socket before the write (a message the server sent unasked, then closed its side:
// MySQL's 4031 on an idle connection) raise no new notification: a wait before that read would
// wait forever (TestWriteReadFindsWhatCameFirst). A reply that arrives after the read found
// nothing raises one.
//
// When the socket takes only part of w (nw < len(w), err nil, nothing read), the caller writes
// the rest and reads as usual. Otherwise nr bytes of the reply are in r, or err says why not:
// io.EOF if the peer closed the connection, syscall.EINTR if the read was interrupted (read
// again).
func (c *Calls) WriteRead(w, r []byte) (nw, nr int, err error) {
	if len(w) == 0 || len(r) == 0 {
		panic("rawsock.WriteRead: nothing to write or no room to read")
	}
	c.w, c.r, c.nw, c.nr, c.errno, c.wrote, c.partial = w, r, 0, 0, 0, false, false
	err = c.raw.Read(c.exchange)
	nw, nr, errno, partial := c.nw, c.nr, c.errno, c.partial
	c.w, c.r = nil, nil
	switch {
	case err != nil:
		return nw, 0, err
	case errno != 0:
		return nw, 0, errno
	case partial:
		return nw, 0, nil
	case nr == 0:
		return nw, 0, io.EOF
	}
	return nw, nr, nil
}

func (c *Calls) exchangeFD(fd uintptr) bool {
	if !c.wrote {
		c.wrote = true
		for {
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.w[0])), uintptr(len(c.w)))
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				c.partial = true
				return true
			case e != 0:
				c.errno = e
				return true
			}
			c.nw = int(n)
			c.partial = c.nw < len(c.w)
			if c.partial {
				return true
			}
			if c.waitFirst {
				return false // a reply takes longer than a read that finds nothing: wait first
			}
			break // all written: read what is there, and wait only if nothing is
		}
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.r[0])), uintptr(len(c.r)))
	c.nr, c.errno = count(n, e), e
	return e != syscall.EAGAIN
}

// Conn is a TCP or Unix connection whose Read and Write are Read and Write above; everything
// else (deadlines, Close, addresses, SyscallConn) is the connection's own.
type Conn struct {
	net.Conn
	raw    syscall.RawConn
	rd, wr *Calls // net.Conn's Read and Write may run at the same time, on two goroutines
}

// Wrap returns c with raw reads and writes, or c itself when it has no file descriptor. The
// targets wrap their connections only under --client-path raw (kernel: Detach).
func Wrap(c net.Conn) net.Conn {
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return c
	}
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return c
	}
	return &Conn{Conn: c, raw: raw, rd: NewCalls(raw), wr: NewCalls(raw)}
}

// Unwrap returns the connection Wrap wrapped, or c.
func Unwrap(c net.Conn) net.Conn {
	if w, ok := c.(*Conn); ok {
		return w.Conn
	}
	return c
}

// SyscallConn is the connection's own, for the drivers' liveness checks and driver/wire's socket paths.
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return c.raw, nil }

// Read implements net.Conn; interrupted calls are retried, errors wrapped as net.Conn's are.
func (c *Conn) Read(b []byte) (int, error) {
	for {
		n, err := c.rd.Read(b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == nil || err == io.EOF:
			return n, err
		default:
			return n, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
		}
	}
}

// Write implements net.Conn: all of b unless an error stops it, as net.Conn's Write.
func (c *Conn) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		n, err := c.wr.Write(b[done:])
		done += n
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return done, &net.OpError{Op: "write", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
		}
	}
	return done, nil
}

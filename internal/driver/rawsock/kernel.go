package rawsock

import (
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// KernelConn is a TCP or Unix connection taken out of Go's network poller: a client that waits
// for each reply in the kernel, on a thread of its own, as C and Java clients do (--client-path
// kernel). On an idle machine a wait on Go's poller costs a closed-loop client half its rate:
// the reply wakes the runtime's poller thread, which hands the goroutine to a processor, and a
// socket still registered with the poller wakes that thread at every reply even when nobody
// waits there (docs/performance.md, "Waiting in the kernel").
//
// Its descriptor is a duplicate of the dialed one, which is closed (that removes it from the
// poller). Reads and writes are raw system calls; when one would block, the goroutine waits in
// ppoll (RawSyscall: it keeps its processor, as a C thread keeps its CPU, while one is left for
// the rest of the process) on the socket and on
// an eventfd that Close and deadlines (a Go timer each) write to. The wait has no timeout of its
// own: in a virtual machine arming and cancelling the kernel's timer at every wait cost more
// than the rest of a statement's client CPU. It still lets the runtime stop the world and take
// back a processor held too long: their preemption signal ends ppoll (EINTR) and the goroutine
// yields at its next call. Everything net.Conn promises holds: concurrent Read and Write,
// deadlines that end a wait already begun, Close that ends every wait, net.OpError errors with
// os.ErrDeadlineExceeded and net.ErrClosed.
type KernelConn struct {
	fd           int
	rwake, wwake int // eventfds: a deadline change or Close for a waiting Read, Write
	laddr, raddr net.Addr
	rdl, wdl     atomic.Int64 // deadlines, Unix nanoseconds; 0: none

	mu     sync.Mutex
	rt, wt *time.Timer // wake a waiting Read, Write at its deadline
	ops    int         // calls inside the descriptors; the last to leave after Close closes them
	closed atomic.Bool // set under mu; read without it by a waiting call
}

// Detach takes c, a *net.TCPConn or *net.UnixConn, out of Go's network poller and returns the
// connection as a KernelConn; c is closed. Any other connection (TLS, a test's pipe) is
// returned as it is.
func Detach(c net.Conn) (net.Conn, error) {
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return c, nil
	}
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("dup", derr)
	}
	k := &KernelConn{fd: fd, rwake: -1, wwake: -1, laddr: c.LocalAddr(), raddr: c.RemoteAddr()}
	if k.rwake, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err == nil {
		k.wwake, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	}
	if err != nil {
		k.closeFDs()
		c.Close()
		return nil, os.NewSyscallError("eventfd", err)
	}
	// The duplicate shares the socket's O_NONBLOCK, which Go set; closing c takes the socket
	// out of the poller (EPOLL_CTL_DEL) while the duplicate keeps it open.
	if err := c.Close(); err != nil {
		k.closeFDs()
		return nil, err
	}
	return k, nil
}

func (k *KernelConn) closeFDs() {
	for _, fd := range []int{k.fd, k.rwake, k.wwake} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// enter counts a call inside the descriptors, unless the connection is closed.
func (k *KernelConn) enter() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed.Load() {
		return false
	}
	k.ops++
	return true
}

func (k *KernelConn) leave() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ops--; k.closed.Load() && k.ops == 0 {
		k.closeFDs()
	}
}

// Read implements net.Conn.
func (k *KernelConn) Read(b []byte) (int, error) {
	if !k.enter() {
		return 0, k.opErr("read", net.ErrClosed)
	}
	defer k.leave()
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(k.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == 0 && n == 0:
			return 0, io.EOF
		case e == 0:
			return int(n), nil
		case e == unix.EINTR:
		case e == unix.EAGAIN:
			if err := k.wait(unix.POLLIN, k.rwake, &k.rdl); err != nil {
				return 0, k.opErr("read", err)
			}
		default:
			return 0, k.opErr("read", os.NewSyscallError("read", e))
		}
	}
}

// Write implements net.Conn: all of b unless an error stops it.
func (k *KernelConn) Write(b []byte) (int, error) {
	if !k.enter() {
		return 0, k.opErr("write", net.ErrClosed)
	}
	defer k.leave()
	done := 0
	for done < len(b) {
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(k.fd), uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done))
		switch {
		case e == 0:
			done += int(n)
		case e == unix.EINTR:
		case e == unix.EAGAIN:
			if err := k.wait(unix.POLLOUT, k.wwake, &k.wdl); err != nil {
				return done, k.opErr("write", err)
			}
		default:
			return done, k.opErr("write", os.NewSyscallError("write", e))
		}
	}
	return done, nil
}

// wait blocks until the socket has events, the deadline passes or the connection closes. A
// call that ends on Close or its deadline pokes wake again: the first call to wake drains it,
// and every other call waiting on it must wake too.
func (k *KernelConn) wait(events int16, wake int, deadline *atomic.Int64) error {
	for {
		if k.closed.Load() {
			poke(wake)
			return net.ErrClosed
		}
		if dl := deadline.Load(); dl != 0 && int64(time.Since(epoch)) >= dl {
			poke(wake)
			return os.ErrDeadlineExceeded
		}
		fds := [2]unix.PollFd{{Fd: int32(k.fd), Events: events}, {Fd: int32(wake), Events: unix.POLLIN}}
		n, e := ppoll(&fds)
		switch {
		case e == unix.EINTR || n == 0: // a signal: the runtime's preemption among them
		case e != 0:
			return os.NewSyscallError("ppoll", e)
		case fds[1].Revents != 0: // a deadline changed or Close: look again
			var v [8]byte
			unix.Read(wake, v[:])
		default: // readable, writable, or an error or hang-up the next call reports
			return nil
		}
	}
}

// epoch is the origin of the deadlines: monotonic, unlike Unix time.
var epoch = time.Now()

// noAsyncPreempt: under GODEBUG=asyncpreemptoff=1 the runtime sends no preemption signal, so
// nothing would end a wait that keeps its processor: a collection would stop the process until
// a reply came. Every wait is then a system call.
var noAsyncPreempt = strings.Contains(os.Getenv("GODEBUG"), "asyncpreemptoff=1")

// rawWaiters counts the waits that keep their processor.
var rawWaiters atomic.Int64

// ppoll waits on fds until one has events or a signal comes. It keeps its processor while that
// leaves another for the rest of the process; otherwise it waits as a system call, whose
// processor the runtime takes back for other goroutines (with more waiting clients than
// processors, --client-procs all, each would wait for sysmon's preemption, 10 ms).
func ppoll(fds *[2]unix.PollFd) (int, syscall.Errno) {
	call := unix.Syscall6
	if rawWaiters.Add(1) < int64(runtime.GOMAXPROCS(0)) && !noAsyncPreempt {
		call = unix.RawSyscall6
	}
	n, _, e := call(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 2, 0, 0, 0, 0)
	rawWaiters.Add(-1)
	return int(n), e
}

// Close implements net.Conn: waiting calls end with net.ErrClosed, and the descriptors are
// closed when the last leaves.
func (k *KernelConn) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed.Load() {
		return k.opErr("close", net.ErrClosed)
	}
	k.closed.Store(true)
	for _, t := range []*time.Timer{k.rt, k.wt} {
		if t != nil {
			t.Stop()
		}
	}
	if k.ops == 0 {
		k.closeFDs()
	} else {
		poke(k.rwake)
		poke(k.wwake)
	}
	return nil
}

func poke(fd int) {
	one := [8]byte{1}
	unix.Write(fd, one[:])
}

// SyscallConn gives the drivers' liveness checks and driver/wire's exchanges the descriptor;
// its Read and Write wait as KernelConn's do.
func (k *KernelConn) SyscallConn() (syscall.RawConn, error) { return kernelRaw{k}, nil }

type kernelRaw struct{ k *KernelConn }

func (r kernelRaw) Control(f func(fd uintptr)) error {
	if !r.k.enter() {
		return net.ErrClosed
	}
	defer r.k.leave()
	f(uintptr(r.k.fd))
	return nil
}

func (r kernelRaw) Read(f func(fd uintptr) bool) error {
	return r.loop(f, unix.POLLIN, r.k.rwake, &r.k.rdl)
}

func (r kernelRaw) Write(f func(fd uintptr) bool) error {
	return r.loop(f, unix.POLLOUT, r.k.wwake, &r.k.wdl)
}

// loop calls f until it returns true, waiting for events between calls, as RawConn's do.
func (r kernelRaw) loop(f func(fd uintptr) bool, events int16, wake int, dl *atomic.Int64) error {
	if !r.k.enter() {
		return net.ErrClosed
	}
	defer r.k.leave()
	for !f(uintptr(r.k.fd)) {
		if err := r.k.wait(events, wake, dl); err != nil {
			return err
		}
	}
	return nil
}

// LocalAddr implements net.Conn.
func (k *KernelConn) LocalAddr() net.Addr { return k.laddr }

// RemoteAddr implements net.Conn.
func (k *KernelConn) RemoteAddr() net.Addr { return k.raddr }

// SetDeadline implements net.Conn.
func (k *KernelConn) SetDeadline(t time.Time) error {
	if err := k.SetReadDeadline(t); err != nil {
		return err
	}
	return k.SetWriteDeadline(t)
}

// SetReadDeadline implements net.Conn; a Read waiting now sees the new deadline.
func (k *KernelConn) SetReadDeadline(t time.Time) error {
	return k.setDeadline(&k.rdl, &k.rt, k.rwake, t)
}

// SetWriteDeadline implements net.Conn; a Write waiting now sees the new deadline.
func (k *KernelConn) SetWriteDeadline(t time.Time) error {
	return k.setDeadline(&k.wdl, &k.wt, k.wwake, t)
}

// setDeadline stores the deadline, wakes a waiting call to look at it, and arms a timer that
// wakes it when the deadline comes (the wait itself has no timeout).
func (k *KernelConn) setDeadline(dl *atomic.Int64, timer **time.Timer, wake int, t time.Time) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed.Load() {
		return k.opErr("set deadline", net.ErrClosed)
	}
	if *timer != nil {
		(*timer).Stop()
	}
	v := int64(0)
	if !t.IsZero() {
		v = max(int64(t.Sub(epoch)), 1)
		*timer = time.AfterFunc(time.Until(t), func() { k.pokeOpen(wake) })
	}
	dl.Store(v)
	poke(wake)
	return nil
}

// pokeOpen wakes a waiting call unless the descriptors are closed (their numbers may be reused).
func (k *KernelConn) pokeOpen(wake int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed.Load() {
		poke(wake)
	}
}

func (k *KernelConn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: k.laddr.Network(), Source: k.laddr, Addr: k.raddr, Err: err}
}

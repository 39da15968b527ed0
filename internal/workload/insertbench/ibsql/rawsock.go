package ibsql

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// The lean wire paths (pgwire.go, and mywire.go for MySQL) read and write their socket with raw
// system calls inside syscall.RawConn's Read and Write: the socket is non-blocking, so each call
// returns at once, and when it would block (EAGAIN) RawConn waits on Go's network poller as
// net.Conn does. What this skips is the scheduler's system-call bookkeeping (entersyscall), which
// wakes the runtime's sysmon thread whenever it sleeps: after every idle wait for a reply, the
// next read or write woke it, a futex wake-up and a few sysmon cycles per statement. Measured on
// MariaDB's range query: client CPU 37.8 -> 16.4 µs per statement in the hot benchmark
// (docs/performance.md, "dbperf beside C clients").

// rawRead reads once into b from raw's socket, waiting on the poller while nothing is there.
func rawRead(raw syscall.RawConn, b []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := raw.Read(func(fd uintptr) bool {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		n, errno = int(r), e
		return e != syscall.EAGAIN
	})
	if err == nil && errno != 0 {
		return 0, errno
	}
	if err == nil && n == 0 {
		err = io.EOF
	}
	return n, err
}

// rawWrite writes some of b to raw's socket, waiting on the poller while its buffer is full.
func rawWrite(raw syscall.RawConn, b []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := raw.Write(func(fd uintptr) bool {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		n, errno = int(r), e
		return e != syscall.EAGAIN
	})
	if err == nil && errno != 0 {
		return 0, errno
	}
	return n, err
}

// wireSock is a lean path's socket: whole writes, and reads into one reused buffer whose
// unread part is rbuf[r:n]. Its calls are rawRead and rawWrite, or nc's with raw nil (the
// DBPERF_PGWIRE=poll and DBPERF_MYWIRE=poll A/B switches).
type wireSock struct {
	nc   net.Conn
	raw  syscall.RawConn
	rbuf []byte
	r, n int
}

// newWireSock reads and writes nc with raw system calls, or through nc itself when poll is set
// or nc has no file descriptor.
func newWireSock(nc net.Conn, poll bool) wireSock {
	s := wireSock{nc: nc, rbuf: make([]byte, 16<<10)}
	if sc, ok := nc.(syscall.Conn); ok && !poll {
		s.raw, _ = sc.SyscallConn()
	}
	return s
}

// writeAll writes all of b.
func (s *wireSock) writeAll(b []byte) error {
	for len(b) > 0 {
		var n int
		var err error
		if s.raw == nil {
			n, err = s.nc.Write(b)
		} else {
			n, err = rawWrite(s.raw, b)
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// readAtLeast reads until at least n unread bytes are buffered; io.EOF if the peer closed the
// connection first.
func (s *wireSock) readAtLeast(n int) error {
	if s.n-s.r >= n {
		return nil
	}
	if s.r > 0 { // move the unread part to the front
		s.n = copy(s.rbuf, s.rbuf[s.r:s.n])
		s.r = 0
	}
	if n > len(s.rbuf) {
		s.rbuf = append(s.rbuf, make([]byte, n-len(s.rbuf))...)
	}
	for s.n < n {
		var m int
		var err error
		if s.raw == nil {
			m, err = s.nc.Read(s.rbuf[s.n:])
		} else {
			m, err = rawRead(s.raw, s.rbuf[s.n:])
		}
		s.n += max(m, 0)
		switch {
		case err == syscall.EINTR:
		case err == nil && m == 0:
			return io.EOF
		case err != nil:
			return err
		}
	}
	return nil
}

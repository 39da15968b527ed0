package ibsql

import (
	"io"
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

// Package wire holds dbperf's lean client paths: statements written on a driver's own socket
// and their replies read into one reused buffer, beside the driver rather than through it, for
// the statements a workload sends thousands of times a second (docs/performance.md, "dbperf
// beside C clients"). The drivers (pgx, go-sql-driver/mysql) still connect, authenticate and
// run everything else.
//
// MySQL is the text protocol's COM_QUERY (mysql.go); Postgres the extended protocol's prepared
// statements and the simple protocol (postgres.go); both on Sock.
package wire

import (
	"io"
	"net"
	"syscall"

	"github.com/dbperf/dbperf/internal/driver/rawsock"
)

// Sock is a lean path's socket: whole writes, and reads into one reused buffer whose unread
// part is rbuf[r:n]. Its calls are rawsock's raw system calls (see that package for why), or
// nc's with raw nil (--client-path netconn).
type Sock struct {
	nc   net.Conn
	raw  *rawsock.Calls
	rbuf []byte
	r, n int
}

// NewSock reads and writes nc with raw system calls, or through the connection the target
// dialed (without rawsock's wrapper) when poll is set or nc has no file descriptor.
func NewSock(nc net.Conn, poll bool) Sock {
	s := Sock{nc: rawsock.Unwrap(nc), rbuf: make([]byte, 16<<10)}
	if sc, ok := nc.(syscall.Conn); ok && !poll {
		if raw, err := sc.SyscallConn(); err == nil {
			s.raw = rawsock.NewCalls(raw)
		}
	}
	return s
}

// writeAll writes all of b.
func (s *Sock) writeAll(b []byte) error {
	for len(b) > 0 {
		var n int
		var err error
		if s.raw == nil {
			n, err = s.nc.Write(b)
		} else {
			n, err = s.raw.Write(b)
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

// Exchange writes all of b, a request, and reads the first bytes of its reply. With raw system
// calls and nothing unread it writes and reads in one entry into the socket's RawConn
// (rawsock's WriteRead).
func (s *Sock) Exchange(b []byte) error {
	if s.raw != nil && s.r == s.n {
		s.r, s.n = 0, 0
		nw, nr, err := s.raw.WriteRead(b, s.rbuf)
		switch {
		case nw < len(b) && err == nil: // the socket took only part: go on as usual
			b = b[nw:]
		case err == syscall.EINTR:
			return s.Fill(1)
		default:
			s.n = nr
			return err
		}
	}
	if err := s.writeAll(b); err != nil {
		return err
	}
	return s.Fill(1)
}

// Fill reads until at least n unread bytes are buffered; io.EOF if the peer closed the
// connection first.
func (s *Sock) Fill(n int) error {
	if s.n-s.r >= n {
		return nil
	}
	if s.r > 0 { // move the unread part to the front
		s.n = copy(s.rbuf, s.rbuf[s.r:s.n])
		s.r = 0
	}
	for s.n < n {
		if s.n == len(s.rbuf) { // grow as bytes arrive, not to what a (maybe corrupt) length says
			s.rbuf = append(s.rbuf, make([]byte, min(n, 2*len(s.rbuf))-len(s.rbuf))...)
		}
		var m int
		var err error
		if s.raw == nil {
			m, err = s.nc.Read(s.rbuf[s.n:])
		} else {
			m, err = s.raw.Read(s.rbuf[s.n:])
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

// absorb moves the bytes u holds given back to the end of the buffer: the raw calls read the
// socket beneath u and would skip them.
func (s *Sock) absorb(u *rawsock.Unreader) {
	for u.Pending() > 0 {
		if s.n == len(s.rbuf) {
			s.rbuf = append(s.rbuf, make([]byte, u.Pending())...)
		}
		m, _ := u.Read(s.rbuf[s.n:]) // the given-back bytes only, while there are any
		s.n += m
	}
}

// Buffered is the unread part of the buffer, valid until the next read.
func (s *Sock) Buffered() []byte { return s.rbuf[s.r:s.n] }

// Advance marks n bytes of Buffered read.
func (s *Sock) Advance(n int) { s.r += n }

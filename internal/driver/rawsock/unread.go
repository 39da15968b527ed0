package rawsock

import (
	"errors"
	"net"
	"syscall"
)

// Unreader is a connection that can take bytes back: its next reads return them before anything
// from the socket. A lean path that read a driver's messages (a ReadyForQuery, a
// ParameterStatus, a notification that arrived after its reply) gives them back this way, so
// that the driver, reading them, keeps its own state right.
type Unreader struct {
	net.Conn
	back []byte
}

// NewUnreader wraps c.
func NewUnreader(c net.Conn) *Unreader { return &Unreader{Conn: c} }

// Unread puts b in front of what the next reads return (b is copied).
func (u *Unreader) Unread(b []byte) {
	if len(b) == 0 {
		return
	}
	u.back = append(append(make([]byte, 0, len(b)+len(u.back)), b...), u.back...)
}

// Pending is the number of bytes given back and not yet read.
func (u *Unreader) Pending() int { return len(u.back) }

// Read returns the bytes given back first, and only those while there are any, so that a
// reader that asks for more never waits on the socket for them.
func (u *Unreader) Read(b []byte) (int, error) {
	if len(u.back) > 0 {
		n := copy(b, u.back)
		u.back = u.back[n:]
		if len(u.back) == 0 {
			u.back = nil
		}
		return n, nil
	}
	return u.Conn.Read(b)
}

// SyscallConn is the wrapped connection's, for the lean paths' raw calls and the drivers'
// liveness checks.
func (u *Unreader) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := u.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.New("rawsock: the connection has no file descriptor")
}

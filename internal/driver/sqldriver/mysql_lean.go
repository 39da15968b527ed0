package sqldriver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
)

// mysqlWhoAmI asks the server which connection this is and where it sees the connection's
// client ("IP:port"; "name:port" when the server resolves names; "localhost" on a Unix
// socket).
const mysqlWhoAmI = "SELECT CONNECTION_ID(), (SELECT host FROM information_schema.processlist WHERE id = CONNECTION_ID())"

// UnverifiedError says why a connection's socket cannot be shown to be that connection's, so
// that the lean path must not write on it.
type UnverifiedError struct{ Reason string }

func (e *UnverifiedError) Error() string { return e.Reason }

func (m *MySQL) unverified(format string, args ...any) error {
	return &UnverifiedError{Reason: m.where() + ": " + fmt.Sprintf(format, args...)}
}

// sameEnd checks that host, the server's name for a connection's client, is local, the
// address of the socket found for it.
func sameEnd(host string, local net.Addr) error {
	tcp, ok := local.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("the target is a Unix socket, where the server names no client address to compare with the socket's")
	}
	mismatch := fmt.Errorf("the server sees its client at %q, not at the socket's %s (is a proxy between them?)", host, tcp)
	i := strings.LastIndexByte(host, ':')
	if i < 0 || host[i+1:] != strconv.Itoa(tcp.Port) {
		return mismatch
	}
	name := strings.TrimSuffix(strings.TrimPrefix(host[:i], "["), "]")
	want := tcp.AddrPort().Addr().Unmap()
	if ip, err := netip.ParseAddr(name); err == nil {
		if ip.Unmap() != want {
			return mismatch
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", name) // the server resolved our address
	if err != nil {
		return fmt.Errorf("the server sees its client at %q, which does not resolve: %v", host, err)
	}
	for _, ip := range ips {
		if ip.Unmap() == want {
			return nil
		}
	}
	return mismatch
}

// checkLean tries the lean path's socket lookup on one connection at open. Where the socket
// cannot be verified (a Unix socket, a proxy, TLS) the target falls back to the driver, and
// says why (driver.PathTarget), rather than write on a socket that may be another
// connection's or that only the driver can read.
func (m *MySQL) checkLean(ctx context.Context) error {
	if !m.path.Lean() {
		return nil
	}
	c, err := m.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = m.Socket(ctx, c)
	var u *UnverifiedError
	if errors.As(err, &u) {
		m.path, m.fallback = driver.ClientDriver, u.Reason+"; so every statement goes through go-sql-driver/mysql"
		m.socks.dialAsDriver()
		c.Close()
		m.db.SetMaxIdleConns(0) // the pool's connections were dialed for the lean path
		return nil
	}
	return err
}

// mysqlKillTimeout bounds a KILL QUERY: the server may be as stuck as the statement.
const mysqlKillTimeout = 10 * time.Second

// killQuery stops the statement connection id runs, on another connection (the pool): a
// canceled statement's connection is closed, by the driver or the lean path, but the server
// would run the statement to its end, holding its locks and changing rows after its client
// gave up. An error (the statement had ended: unknown thread) is of no use to anyone.
func (m *MySQL) killQuery(id uint32) {
	ctx, cancel := context.WithTimeout(context.Background(), mysqlKillTimeout)
	defer cancel()
	m.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(uint64(id), 10))
}

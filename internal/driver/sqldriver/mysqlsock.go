package sqldriver

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/dbperf/dbperf/internal/driver"
)

// MySQLSocket is a connection's own socket and what its handshake negotiated, for a client that
// sends its hot statements itself (driver/wire's MySQL) while go-sql-driver/mysql, the
// connection's owner, is idle. The driver has no API for either, so the target dials its
// connections itself (Config.DialFunc) and reads the two handshake packets as they pass.
type MySQLSocket struct {
	Conn net.Conn // the dialed connection, beneath the driver's buffering
	// ID is the server's connection id (its handshake; CONNECTION_ID()).
	ID uint32
	// Capabilities are the CLIENT_* flags the driver sent in its handshake response (the
	// driver keeps only those the server has); ExtCapabilities are MariaDB's extended flags
	// (zero on MySQL).
	Capabilities, ExtCapabilities uint32
	// Kill sends KILL QUERY for this connection on another one (the target's pool), once: a
	// client that closes the socket to abandon a statement calls it, since the server would
	// otherwise run the statement to its end (nil: nothing to call).
	Kill func()
}

// CLIENT_* capability flags a raw client of a MySQLSocket must look at.
const (
	MySQLClientCompress     = 1 << 5
	MySQLClientSSL          = 1 << 11
	MySQLClientDeprecateEOF = 1 << 24
	// MariaDBClientCacheMetadata is an extended (MariaDB) flag: a result set's column count is
	// followed by a byte that says whether the column definitions follow.
	MariaDBClientCacheMetadata = 1 << 4
)

// mysqlSockets are a target's open connections by server connection id.
type mysqlSockets struct {
	path driver.ClientPath // the connections' socket calls (onPath); empty: as dialed
	kill func(id uint32)   // KILL QUERY id on another connection
	mu   sync.Mutex
	by   map[uint32]*sniffConn
}

// dial is the target's Config.DialFunc: a plain dial whose connection records its handshake.
func (s *mysqlSockets) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	path := s.path
	s.mu.Unlock()
	if c, err = onPath(c, path); err != nil {
		return nil, err
	}
	return &sniffConn{Conn: c, socks: s}, nil
}

// dialAsDriver makes the connections dialed from now on those of --client-path driver: a
// target that falls back to the driver measures the same client as one that asked for it.
func (s *mysqlSockets) dialAsDriver() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.path = ""
}

func (s *mysqlSockets) add(c *sniffConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[uint32]*sniffConn{}
	}
	s.by[c.sock.ID] = c
}

func (s *mysqlSockets) remove(c *sniffConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by[c.sock.ID] == c {
		delete(s.by, c.sock.ID)
	}
}

func (s *mysqlSockets) get(id uint32) *sniffConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.by[id]
}

// sniffConn is a dialed connection that reads the server's handshake (its connection id) and
// the driver's handshake response (the capabilities) as they pass, then only passes bytes on.
// Only the driver's goroutine reads and writes during the handshake.
//
// It is also where go-sql-driver's cancel shows: the driver closes the connection (from its
// watcher goroutine) without the COM_QUIT of an orderly Close, and the server goes on running
// the statement; so a Close without COM_QUIT sends KILL QUERY on another connection. Watching
// the bytes costs a comparison per write and nothing per statement.
type sniffConn struct {
	net.Conn
	socks        *mysqlSockets
	in, out      []byte // the handshake's first bytes each way, until parsed
	gotID, ready bool
	sock         MySQLSocket
	quit         atomic.Bool // the driver sent COM_QUIT: an orderly close
	killed       atomic.Bool // KILL QUERY was sent (once is enough: the connection is closing)
}

func (c *sniffConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if !c.gotID && n > 0 {
		c.in = append(c.in, b[:n]...)
		c.parseHandshake()
	}
	return n, err
}

func (c *sniffConn) Write(b []byte) (int, error) {
	if !c.ready && c.gotID && len(c.out) < 36 {
		c.out = append(c.out, b...)
		c.parseResponse()
	}
	if len(b) == 5 && string(b) == "\x01\x00\x00\x00\x01" { // COM_QUIT (under TLS never seen)
		c.quit.Store(true)
	}
	return c.Conn.Write(b)
}

// Close closes the socket first (the statement's caller returns at once), then, unless the
// close is orderly, sends KILL QUERY in the background. Under TLS COM_QUIT is never seen, so
// every close kills: an orderly one's KILL finds no statement, which costs one round trip.
func (c *sniffConn) Close() error {
	if !c.ready {
		return c.Conn.Close()
	}
	c.socks.remove(c)
	err := c.Conn.Close()
	if !c.quit.Load() {
		go c.kill()
	}
	return err
}

// kill sends KILL QUERY for c's connection, once.
func (c *sniffConn) kill() {
	if c.socks.kill != nil && c.killed.CompareAndSwap(false, true) {
		c.socks.kill(c.sock.ID)
	}
}

// SyscallConn lets the driver's liveness check (connCheck) see the socket.
func (c *sniffConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.New("mysql: the connection has no file descriptor")
}

// parseHandshake reads the connection id from the server's first packet (Handshake v10:
// header, protocol version, server version NUL-terminated, connection id).
func (c *sniffConn) parseHandshake() {
	if len(c.in) < 5 {
		return
	}
	end := bytes.IndexByte(c.in[5:], 0)
	if end < 0 || len(c.in) < 5+end+1+4 {
		if len(c.in) > 1024 {
			c.gotID, c.in = true, nil // not a handshake v10: no raw use
		}
		return
	}
	if c.in[4] == 10 {
		c.sock.ID = binary.LittleEndian.Uint32(c.in[5+end+1:])
		c.sock.Conn = c.Conn
	}
	c.gotID, c.in = true, nil
}

// parseResponse reads the capabilities from the driver's handshake response (or SSL request):
// header (4), capabilities (4), max packet size (4), collation (1), filler (19), MariaDB's
// extended capabilities (4) when the CLIENT_MYSQL flag is off.
func (c *sniffConn) parseResponse() {
	if len(c.out) < 36 || c.sock.Conn == nil {
		return
	}
	c.sock.Capabilities = binary.LittleEndian.Uint32(c.out[4:])
	if c.sock.Capabilities&1 == 0 {
		c.sock.ExtCapabilities = binary.LittleEndian.Uint32(c.out[32:])
	}
	c.ready, c.out = true, nil
	c.socks.add(c)
}

// Socket returns c's socket and handshake for raw use between the driver's operations on c;
// the caller must not use it while the driver runs a statement on c. c must come from this
// target (Conn). The socket is the one the server's connection id names, and it is verified
// to be c's: the server's name for the connection's client must be the socket's local address
// (behind a proxy the id can name another connection, or none). An *UnverifiedError says why
// it cannot be.
func (m *MySQL) Socket(ctx context.Context, c *sql.Conn) (*MySQLSocket, error) {
	var id uint32
	var host sql.NullString
	if err := c.QueryRowContext(ctx, mysqlWhoAmI).Scan(&id, &host); err != nil {
		return nil, err
	}
	sc := m.socks.get(id)
	if sc == nil {
		return nil, m.unverified("connection %d was not dialed by this target (is a proxy answering for the server?)", id)
	}
	s := sc.sock
	if s.Capabilities&MySQLClientSSL != 0 {
		return nil, m.unverified("connection %d uses TLS, and only the driver can read its socket", id)
	}
	if s.Capabilities&MySQLClientCompress != 0 {
		return nil, m.unverified("connection %d is compressed", id)
	}
	if err := sameEnd(host.String, s.Conn.LocalAddr()); err != nil {
		return nil, m.unverified("connection %d: %v", id, err)
	}
	s.Kill = sc.kill
	return &s, nil
}

package sqldriver

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
)

// openMySQLPath opens url on the given client path, closed when the test ends.
func openMySQLPath(t *testing.T, url string, path driver.ClientPath) *MySQL {
	t.Helper()
	spec := mustSpec(t, url)
	spec.Client = path
	tg, err := driver.Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*MySQL)
}

// connID returns c's server connection id.
func connID(t *testing.T, c *sql.Conn) uint32 {
	t.Helper()
	var id uint32
	if err := c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestMySQLSocketVerified: on a direct TCP connection the lean path stays, and the socket found
// is the connection's (the server sees its client at the socket's local address) with a kill.
func TestMySQLSocketVerified(t *testing.T) {
	m := openMySQLPath(t, mysqlTestURL(t, "innodb"), driver.ClientRaw)
	if path, fallback := m.ClientPath(); path != driver.ClientRaw || fallback != "" {
		t.Fatalf("direct TCP: path %s, fallback %q", path, fallback)
	}
	ctx := context.Background()
	c, err := m.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := m.Socket(ctx, c)
	if err != nil || s.ID != connID(t, c) || s.Kill == nil {
		t.Fatalf("socket %+v, %v", s, err)
	}
}

// TestMySQLSocketOfAnother: when the connection id names another connection's socket (as a
// proxy's ids can), Socket refuses it: the server's address for the connection's client is not
// that socket's.
func TestMySQLSocketOfAnother(t *testing.T) {
	m := openMySQLPath(t, mysqlTestURL(t, "innodb"), driver.ClientRaw)
	ctx := context.Background()
	var conns [2]*sql.Conn
	var ids [2]uint32
	for i := range conns {
		c, err := m.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i], ids[i] = c, connID(t, c)
	}
	m.socks.mu.Lock()
	m.socks.by[ids[0]], m.socks.by[ids[1]] = m.socks.by[ids[1]], m.socks.by[ids[0]]
	m.socks.mu.Unlock()
	s, err := m.Socket(ctx, conns[0])
	var u *UnverifiedError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "proxy") {
		t.Fatalf("another connection's socket: %+v, %v", s, err)
	}
}

// forward listens on a loopback port (or a Unix socket at path) and copies each connection to
// and from addr: a proxy.
func forward(t *testing.T, addr, path string) string {
	t.Helper()
	network, at := "tcp", "127.0.0.1:0"
	if path != "" {
		network, at = "unix", path
	}
	ln, err := net.Listen(network, at)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// TestMySQLFallbacks: behind a proxy, on a Unix socket and under TLS the lean path cannot know
// a socket for its connection's, so the target falls back to the driver at open and says why
// (run.json records it); it went on with the lean path.
func TestMySQLFallbacks(t *testing.T) {
	ctx := context.Background()
	base := mysqlTestURL(t, "innodb")
	t.Run("proxy", func(t *testing.T) {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = forward(t, u.Host, "")
		for _, p := range []driver.ClientPath{driver.ClientKernel, driver.ClientRaw, driver.ClientNetConn} {
			m := openMySQLPath(t, u.String(), p)
			if path, fallback := m.ClientPath(); path != driver.ClientDriver || !strings.Contains(fallback, "proxy") {
				t.Fatalf("%s behind a proxy: path %s, fallback %q", p, path, fallback)
			}
			if err := m.exec(ctx, "DO 1"); err != nil {
				t.Fatal(err)
			}
			dialedAsDriver(t, m, p)
		}
	})
	t.Run("unix", func(t *testing.T) {
		// A Unix socket forwarded to the server's TCP port: the server's users are those of
		// the test's URL, and the target's side is a Unix socket all the same.
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		sock := forward(t, u.Host, filepath.Join(t.TempDir(), "s"))
		m := openMySQLPath(t, base+"&socket="+url.QueryEscape(sock), driver.ClientRaw)
		if path, fallback := m.ClientPath(); path != driver.ClientDriver || !strings.Contains(fallback, "Unix socket") {
			t.Fatalf("on a Unix socket: path %s, fallback %q", path, fallback)
		}
		dialedAsDriver(t, m, driver.ClientRaw)
	})
	t.Run("tls", func(t *testing.T) {
		// The test server has no TLS: the connections' handshakes are marked as if they had
		// asked for it, which is what the target sees of a TLS connection.
		m := openMySQLPath(t, base, driver.ClientRaw)
		m.socks.mu.Lock()
		for _, c := range m.socks.by {
			c.sock.Capabilities |= MySQLClientSSL
		}
		m.socks.mu.Unlock()
		if err := m.checkLean(ctx); err != nil {
			t.Fatal(err)
		}
		if path, fallback := m.ClientPath(); path != driver.ClientDriver || !strings.Contains(fallback, "TLS") {
			t.Fatalf("under TLS: path %s, fallback %q", path, fallback)
		}
	})
}

// dialedAsDriver checks that every open connection of m, which fell back to the driver from
// asked, is a socket as --client-path driver dials it, not one made for the lean path.
func dialedAsDriver(t *testing.T, m *MySQL, asked driver.ClientPath) {
	t.Helper()
	c, err := m.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m.socks.mu.Lock()
	defer m.socks.mu.Unlock()
	for id, sc := range m.socks.by {
		switch sc.Conn.(type) {
		case *net.TCPConn, *net.UnixConn:
		default:
			t.Errorf("asked %s, fell back to the driver: connection %d is a %T, not a socket as the driver dials it", asked, id, sc.Conn)
		}
	}
}

// TestSameEnd: the server's name for the client, an address or a name it resolved, against
// the socket's local address.
func TestSameEnd(t *testing.T) {
	local := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 40001}
	for host, same := range map[string]bool{
		"127.0.0.1:40001": true, "localhost:40001": true, "::ffff:127.0.0.1:40001": true,
		"127.0.0.1:40002": false, "10.0.0.1:40001": false, "localhost": false, "": false,
	} {
		if err := sameEnd(host, local); (err == nil) != same {
			t.Errorf("%q: %v, want same %v", host, err, same)
		}
	}
	if err := sameEnd("localhost", &net.UnixAddr{Name: "/tmp/s", Net: "unix"}); err == nil || !strings.Contains(err.Error(), "Unix socket") {
		t.Errorf("unix: %v", err)
	}
}

// running tells whether connection id still runs a statement starting with prefix.
func running(t *testing.T, db *sql.DB, id uint32, prefix string) bool {
	t.Helper()
	var n int
	err := db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND info LIKE ?", id, prefix+"%").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// waitGone waits until connection id no longer runs a statement starting with prefix, failing
// the test if it still does after limit: a bound far beyond a KILL QUERY's time (milliseconds)
// and below the statement's own, only so that a statement left running fails.
func waitGone(t *testing.T, db *sql.DB, id uint32, prefix string, limit time.Duration) {
	t.Helper()
	for start := time.Now(); running(t, db, id, prefix); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > limit {
			t.Fatalf("connection %d still runs %s... %v after its context was canceled", id, prefix, limit)
		}
	}
}

// TestMySQLCancelKillsDriver: a statement canceled through database/sql (go-sql-driver closes
// its connection, sending nothing) stops on the server: the target sends KILL QUERY when the
// driver closes a connection without COM_QUIT; an orderly close sends none.
func TestMySQLCancelKillsDriver(t *testing.T) {
	m := openMySQLPath(t, mysqlTestURL(t, "innodb"), driver.ClientDriver)
	ctx := context.Background()
	c, err := m.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := connID(t, c)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // cancel once the server runs the statement
		for !running(t, m.db, id, "SELECT SLEEP") {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := c.ExecContext(cctx, "SELECT SLEEP(60)"); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
	// MariaDB's SLEEP notices a closed connection every 5 s by itself; killed, it ends at once.
	waitGone(t, m.db, id, "SELECT SLEEP", 3*time.Second)

	// Orderly closes (COM_QUIT) kill nothing.
	var all []*sniffConn
	m.socks.mu.Lock()
	for _, s := range m.socks.by {
		all = append(all, s)
	}
	m.socks.mu.Unlock()
	m.db.SetMaxIdleConns(0) // closes the idle connections, each with COM_QUIT
	if len(all) == 0 {
		t.Fatal("no open connection")
	}
	for _, s := range all {
		if !s.quit.Load() || s.killed.Load() {
			t.Fatalf("connection %d closed in order: quit %v, killed %v", s.sock.ID, s.quit.Load(), s.killed.Load())
		}
	}
}

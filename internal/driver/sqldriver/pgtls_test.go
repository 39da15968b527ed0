package sqldriver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestPostgresTLSFallsBackToPgx: against a server that encrypts (pgx's default sslmode=prefer,
// Debian's clusters with ssl on), the lean path cannot read the socket, so the target takes the
// driver path and says why; without TLS it keeps the path asked for.
func TestPostgresTLSFallsBackToPgx(t *testing.T) {
	for _, tc := range []struct {
		tls      bool
		mode     string
		wantPath driver.ClientPath
	}{
		{true, "prefer", driver.ClientDriver},
		{true, "require", driver.ClientDriver},
		{false, "disable", driver.ClientKernel},
	} {
		addr := fakeTLSPostgres(t, tc.tls)
		spec, err := driver.Parse("postgres://u@" + addr + "/db?sslmode=" + tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tg, err := driver.Open(ctx, spec)
		cancel()
		if err != nil {
			t.Fatalf("sslmode=%s: %v", tc.mode, err)
		}
		path, why := tg.(driver.PathTarget).ClientPath()
		if path != tc.wantPath || (path == driver.ClientDriver) != strings.Contains(why, "TLS") {
			t.Errorf("sslmode=%s, TLS %v: path %s (%q), want %s", tc.mode, tc.tls, path, why, tc.wantPath)
		}
		tg.Close()
	}
}

// fakeTLSPostgres serves PostgreSQL's startup, with TLS if on (a self-signed certificate:
// sslmode prefer and require do not verify it), and answers every later request with an empty
// result; it returns its address.
func fakeTLSPostgres(t *testing.T, on bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	cfg := &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveStartup(c, on, cfg)
		}
	}()
	return ln.Addr().String()
}

func serveStartup(c net.Conn, on bool, cfg *tls.Config) {
	defer c.Close()
	var conn net.Conn = c
	be := pgproto3.NewBackend(conn, conn)
	msg, err := be.ReceiveStartupMessage()
	if err != nil {
		return
	}
	if _, ok := msg.(*pgproto3.SSLRequest); ok {
		if !on {
			c.Write([]byte{'N'})
		} else {
			c.Write([]byte{'S'})
			conn = tls.Server(c, cfg)
		}
		be = pgproto3.NewBackend(conn, conn)
		if _, err := be.ReceiveStartupMessage(); err != nil {
			return
		}
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 2}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	for {
		m, err := be.Receive()
		if err != nil {
			return
		}
		switch m.(type) {
		case *pgproto3.Terminate:
			return
		case *pgproto3.Sync, *pgproto3.Query:
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if be.Flush() != nil {
				return
			}
		}
	}
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

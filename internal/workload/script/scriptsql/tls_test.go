package scriptsql_test

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
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestTLSTakesTheDriverPath: against a PostgreSQL server that encrypts, the lean path cannot
// read the socket; the target falls back to pgx and says why, and the script's clients connect
// and run their statements through pgx in every mode (a store that took the lean path anyway
// could not make a client's connection).
func TestTLSTakesTheDriverPath(t *testing.T) {
	addr := fakeTLSPostgres(t)
	spec, err := driver.Parse("postgres://u@" + addr + "/db?sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg, err := driver.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if path, why := tg.(driver.PathTarget).ClientPath(); path != driver.ClientDriver || !strings.Contains(why, "TLS") {
		t.Fatalf("path %s (%q), want the driver's because of TLS", path, why)
	}
	store, err := scriptsql.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := store.Connect(ctx)
	if err != nil {
		t.Fatalf("a client's connection under TLS: %v", err)
	}
	defer c.Close()
	for id, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
		st := &script.Stmt{ID: id, Mode: mode, Text: "UPDATE t SET v = $1", Params: [][]byte{[]byte("1")}}
		if mode == script.ModeSimple {
			st = simple("UPDATE t SET v = 1", script.StoreNone)
		}
		if _, err := c.Exec(ctx, st); err != nil {
			t.Errorf("%s under TLS: %v", mode, err)
		}
	}
}

// fakeTLSPostgres serves PostgreSQL's startup over TLS (a self-signed certificate, which
// sslmode=require does not verify) and answers each request with an empty command's reply,
// a prepare's with its description; it returns its address.
func fakeTLSPostgres(t *testing.T) string {
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
			go serveTLS(c, cfg)
		}
	}()
	return ln.Addr().String()
}

func serveTLS(c net.Conn, cfg *tls.Config) {
	defer c.Close()
	var conn net.Conn = c
	be := pgproto3.NewBackend(conn, conn)
	msg, err := be.ReceiveStartupMessage()
	if err != nil {
		return
	}
	if _, ok := msg.(*pgproto3.SSLRequest); ok {
		c.Write([]byte{'S'})
		conn = tls.Server(c, cfg)
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
		switch m := m.(type) {
		case *pgproto3.Terminate:
			return
		case *pgproto3.Parse:
			be.Send(&pgproto3.ParseComplete{})
		case *pgproto3.Bind:
			be.Send(&pgproto3.BindComplete{})
		case *pgproto3.Describe:
			if m.ObjectType == 'S' { // a prepared statement's: its parameters first
				be.Send(&pgproto3.ParameterDescription{ParameterOIDs: []uint32{25}})
			}
			be.Send(&pgproto3.NoData{})
		case *pgproto3.Execute:
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("UPDATE 1")})
		case *pgproto3.Query:
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if be.Flush() != nil {
				return
			}
		case *pgproto3.Sync:
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

package sqldriver

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/rawsock"
)

// TestPostgresTLSFallbackIsTheDriverPath: a TLS target falls back to the driver path and
// run.json records client_path driver, so its connections must be what --client-path driver
// dials (Go's net.Conn on the network poller). The DialFunc wraps the socket for the lean path
// (onPath: a KernelConn waiting in ppoll under --client-path kernel) before pgx starts TLS on
// it, so the "driver" run measures pgx over the kernel path's socket instead.
func TestPostgresTLSFallbackIsTheDriverPath(t *testing.T) {
	for _, asked := range []driver.ClientPath{driver.ClientKernel, driver.ClientRaw, driver.ClientDriver} {
		addr := fakeTLSPostgres(t, true)
		spec, err := driver.Parse("postgres://u@" + addr + "/db?sslmode=require")
		if err != nil {
			t.Fatal(err)
		}
		spec.Client = asked
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tg, err := driver.Open(ctx, spec)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", asked, err)
		}
		p := tg.(*Postgres)
		if path, _ := p.ClientPath(); path != driver.ClientDriver {
			t.Errorf("asked %s over TLS: path %s, want driver", asked, path)
		}
		c, err := p.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		tc, ok := c.PgConn().Conn().(*tls.Conn)
		if !ok {
			t.Fatalf("asked %s: connection %T, want TLS", asked, c.PgConn().Conn())
		}
		under := tc.NetConn()
		if u, ok := under.(*rawsock.Unreader); ok {
			under = u.Conn
		}
		if _, plain := under.(*net.TCPConn); !plain {
			t.Errorf("asked %s, fell back to driver: TLS runs over %T, not the *net.TCPConn of --client-path driver", asked, under)
		}
		c.Close(context.Background())
		tg.Close()
	}
}

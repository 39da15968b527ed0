package sbsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/testtargets"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
)

// A run step's connection dropped by the server (pg_terminate_backend, KILL) comes back as a
// runner.Lost; its Redial opens a new connection with the statements prepared again, and the
// statement then runs. The prepare step's connections are not wrapped.
func TestRedialAfterDroppedConnection(t *testing.T) {
	ctx := context.Background()
	targets := sqlTargets(t, "dbperf_sysbench_redial")
	for _, name := range []string{"postgres", "mysql-innodb"} {
		target, ok := targets[name]
		if !ok {
			continue // -short without the server
		}
		t.Run(name, func(t *testing.T) {
			cfg := sb.DefaultConfig()
			cfg.SetTest("read_write")
			cfg.TableSize, cfg.Seed, cfg.Steps = 100, 3, []string{sb.StepPrepare}
			tg := testtargets.Open(t, target)
			runSession(t, tg, bind(t, tg, cfg))
			store, err := For(tg, Options{QueryMode: sb.QueryPrepared, Used: cfg.Event().Used(), Tables: 1})
			if err != nil {
				t.Fatal(err)
			}
			if c, err := store.Connect(ctx, false); err != nil {
				t.Fatal(err)
			} else if _, wrapped := c.(*redialConn); wrapped {
				t.Error("a prepare step's connection is wrapped: its bulk inserts cannot be retried")
			} else {
				c.Close()
			}
			conn, err := store.Connect(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			sel := func() (sb.Result, error) { return conn.Exec(ctx, sb.PointSelect, 1, []sb.Arg{sb.Int(7)}) }
			if _, err := sel(); err != nil {
				t.Fatal(err)
			}
			drop(t, store, inner(conn))
			_, err = sel()
			var lost *runner.Lost
			if !errors.As(err, &lost) {
				t.Fatalf("after the connection was dropped: %v, want a runner.Lost", err)
			}
			if _, err := sel(); !errors.As(err, &lost) {
				t.Fatalf("before the redial: %v, want a runner.Lost", err)
			}
			if err := lost.Redial(ctx); err != nil {
				t.Fatal(err)
			}
			if r, err := sel(); err != nil || !r.Rows {
				t.Fatalf("after the redial: %+v, %v; want the row", r, err)
			}
		})
	}
}

// drop has the server close c's connection.
func drop(t *testing.T, store sb.Store, c sb.Conn) {
	t.Helper()
	ctx := context.Background()
	var q string
	switch c := c.(type) {
	case *pgConn:
		q = fmt.Sprintf("SELECT pg_terminate_backend(%d, 10000)", c.pg.PID()) // waits until it has ended
	case *myConn:
		q = "KILL " + connectionID(t, c.c)
	case *sqlConn:
		q = "KILL " + connectionID(t, c.c)
	default:
		t.Fatalf("no way to drop a %T", c)
	}
	if err := store.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
}

func connectionID(t *testing.T, c *sql.Conn) string {
	t.Helper()
	var id string
	if err := c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// inner is the connection a redialConn holds now.
func inner(c sb.Conn) sb.Conn {
	if r, ok := c.(*redialConn); ok {
		c, _ = r.Conn()
	}
	return c
}

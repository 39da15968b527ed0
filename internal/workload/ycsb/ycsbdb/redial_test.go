package ycsbdb

import (
	"context"
	"errors"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/testtargets"
)

// A connection PostgreSQL drops (pg_terminate_backend) comes back as a runner.Lost; after its
// Redial the operation works again, and an insert whose reply was lost meets its own key on
// the retry and counts as done.
func TestRedialAfterDroppedConnection(t *testing.T) {
	ctx := context.Background()
	targets := testtargets.All(t, "dbperf_ycsb_redial", "redial")
	url, ok := targets["postgres"]
	if !ok {
		t.Skip("no PostgreSQL (-short)")
	}
	tg := testtargets.Open(t, url)
	st, err := For(tg)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, 2, true); err != nil {
		t.Fatal(err)
	}
	c, err := st.Connect(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	values := [][]byte{[]byte("a"), []byte("b")}
	if err := c.Insert(ctx, "user1", values); err != nil {
		t.Fatal(err)
	}
	held, _ := c.(*redialConn).Conn()
	pid := held.(*pgConn).c.PgConn().PID()
	if _, err := tg.(*sqldriver.Postgres).Admin().Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	err = c.Insert(ctx, "user2", values)
	var l *runner.Lost
	if !errors.As(err, &l) || driver.ErrorKind(err) != driver.KindConnLost {
		t.Fatalf("an insert after the connection was dropped: %v (%T), want a runner.Lost", err, err)
	}
	if err := l.Redial(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Insert(ctx, "user2", values); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	c.(*redialConn).doubt = "user2" // as if the lost attempt had committed
	if err := c.Insert(ctx, "user2", values); err != nil {
		t.Errorf("an insert in doubt that had committed: %v", err)
	}
	if err := c.Insert(ctx, "user2", values); !driver.DuplicateKey(err) {
		t.Errorf("the same key again, not in doubt: %v, want a duplicate key", err)
	}
	if found, err := c.Read(ctx, "user2", -1); !found || err != nil {
		t.Errorf("read: %v %v", found, err)
	}
	if n, err := st.Count(ctx); n != 2 || err != nil {
		t.Errorf("%d records (%v), want 2", n, err)
	}
}

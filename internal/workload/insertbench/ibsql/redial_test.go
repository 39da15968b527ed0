package ibsql

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/runner"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// A connection the server drops (pg_terminate_backend, KILL) comes back from every statement
// as a runner.Lost; after its Redial the statements work again, on both client paths. A write
// whose reply was lost is settled exactly on its retry: an insert that committed meets its own
// rows and counts as done once, a delete that committed deletes nothing more.
func TestRedialAfterDroppedConnection(t *testing.T) {
	ctx := context.Background()
	table := fmt.Sprintf("redial_%d", os.Getpid()) // test processes of other packages run beside
	for _, path := range []driver.ClientPath{driver.ClientRaw, driver.ClientDriver} {
		t.Run("postgres-"+string(path), func(t *testing.T) {
			st := openPostgresPath(t, table, path).(*pgStore)
			testRedial(t, st, table, func(c ib.Conn) {
				pid := inner(c).(*pgConn).c.PgConn().PID()
				admin, err := st.t.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer admin.Close(ctx)
				if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
					t.Fatal(err)
				}
			})
		})
		t.Run("mariadb-"+string(path), func(t *testing.T) {
			st := openMySQLPath(t, path)
			if err := st.CreateTables(ctx, []string{table}); err != nil {
				t.Fatal(err)
			}
			testRedial(t, st, table, func(c ib.Conn) {
				var id int64
				if err := inner(c).(*sqlConn).c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
					t.Fatal(err)
				}
				admin, err := st.t.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer admin.Close()
				if _, err := admin.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

func testRedial(t *testing.T, st ib.Store, table string, kill func(ib.Conn)) {
	ctx := context.Background()
	c, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gen := ib.NewGenerator(rand.New(rand.NewPCG(2, 2)), ib.DataSpec{Min: 10, Max: 20})
	batch := func(first int64) []ib.Row {
		rows := make([]ib.Row, 10)
		gen.Fill(rows, first, 1795363200)
		return rows
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// lost runs op, which must fail with a lost connection, and redials.
	lost := func(what string, op func() error) {
		t.Helper()
		err := op()
		var l *runner.Lost
		if !errors.As(err, &l) || driver.ErrorKind(err) != driver.KindConnLost {
			t.Fatalf("%s after the connection was dropped: %v (%T), want a runner.Lost", what, err, err)
		}
		must(l.Redial(ctx))
	}
	rows := func(wantRows, wantMin int64) {
		t.Helper()
		s, err := st.Stats(ctx, table)
		must(err)
		if s.Rows != wantRows || s.MinID != wantMin {
			t.Errorf("%d rows from id %d, want %d from %d", s.Rows, s.MinID, wantRows, wantMin)
		}
	}
	must(c.Insert(ctx, table, batch(1)))
	kill(c)
	second := batch(11)
	lost("an insert", func() error { return c.Insert(ctx, table, second) })
	must(c.Insert(ctx, table, second)) // the retry: the lost attempt did not commit
	rows(20, 1)

	// As if the insert of ids 11-20 had lost its reply after committing: the retry counts it.
	r := c.(*redialConn)
	r.insertFirst = 11
	if err := c.Insert(ctx, table, second); err != nil {
		t.Errorf("an in-doubt insert that had committed: %v", err)
	}
	if err := c.Insert(ctx, table, second); !driver.DuplicateKey(err) {
		t.Errorf("the same rows again, not in doubt: %v, want a duplicate key", err)
	}
	// The same for a delete: ids 1-5 deleted, in doubt, retried.
	n, err := c.DeleteOldest(ctx, table, 1, 6)
	must(err)
	r.delFrom, r.delTo = 1, 6
	if n2, err := c.DeleteOldest(ctx, table, 1, 6); n != 5 || n2 != 5 || err != nil {
		t.Errorf("deleted %d, then in doubt %d (%v), want 5 and 5", n, n2, err)
	}
	rows(15, 6)
	kill(c)
	lost("a delete", func() error { _, err := c.DeleteOldest(ctx, table, 6, 11); return err })
	n, err = c.DeleteOldest(ctx, table, 6, 11)
	if n != 5 || err != nil {
		t.Errorf("the delete's retry deleted %d (%v), want 5", n, err)
	}
	rows(10, 11)
	kill(c)
	lost("a query", func() error { _, err := c.PointQuery(ctx, table, []int64{12, 13}, nil); return err })
	got, err := c.PointQuery(ctx, table, []int64{12, 13}, nil)
	if len(got) != 2 || err != nil {
		t.Errorf("the query's retry: %d rows (%v), want 2", len(got), err)
	}
	_, _, err = st.(interface {
		DropTables(context.Context, []string) ([]string, []string, error)
	}).DropTables(ctx, []string{table})
	must(err)
}

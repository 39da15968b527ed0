package scriptsql_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// The script workload's guarantees on PostgreSQL through each client path: the lean path on
// raw system calls and through net.Conn (wire.Postgres), and pgx's pgconn (--client-path
// driver). Each test asserts what the server did, and that every path reports the same.

var clientPaths = []driver.ClientPath{driver.ClientRaw, driver.ClientNetConn, driver.ClientDriver}

// pgTarget is the test PostgreSQL's database for these tests.
func pgTarget(t *testing.T) string {
	t.Helper()
	target, ok := sqlTargets(t, "paths")["postgres"]
	if !ok {
		t.Skip("no PostgreSQL (-short)")
	}
	return target
}

// openPath opens target with its statements on path; the target must keep that path.
func openPath(t *testing.T, target string, path driver.ClientPath) (driver.Target, script.Store) {
	t.Helper()
	tg := testtargets.OpenPath(t, target, path)
	if used, why := tg.(driver.PathTarget).ClientPath(); used != path {
		t.Fatalf("client path %s, want %s (%s)", used, path, why)
	}
	store, err := scriptsql.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	return tg, store
}

// connect opens one client connection of store, closed when the test ends.
func connect(t *testing.T, store script.Store) script.Conn {
	t.Helper()
	c, err := store.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func simple(q string, store script.ResultVars) *script.Stmt {
	return &script.Stmt{Mode: script.ModeSimple, SQL: []byte(q), Store: store}
}

// TestPathsSameResults: \aset's results of a compound simple query (NULL, an empty string,
// several rows, a result without columns) and \gset's of a parameterized query in extended
// and prepared modes (a NULL and an empty parameter) are the same on every path, and what
// the server returns.
func TestPathsSameResults(t *testing.T) {
	target := pgTarget(t)
	ctx := context.Background()
	compound := simple("SELECT 1 AS a, NULL::text AS b, '' AS c; SELECT g AS d FROM generate_series(1, 3) g; SET application_name = 'dbperf'", script.StoreAset)
	wantCompound := []script.Result{
		{Cols: []string{"a", "b", "c"}, Rows: [][]string{{"1", "", ""}}},
		{Cols: []string{"d"}, Rows: [][]string{{"1"}, {"2"}, {"3"}}},
		{},
	}
	wantParams := []script.Result{{Cols: []string{"a", "b", "e"}, Rows: [][]string{{"42", "null", ""}}}}
	for _, path := range clientPaths {
		t.Run(string(path), func(t *testing.T) {
			_, store := openPath(t, target, path)
			c := connect(t, store)
			res, err := c.Exec(ctx, compound)
			if err != nil || !reflect.DeepEqual(res, wantCompound) {
				t.Errorf("compound query: %q, %v; want %q", res, err, wantCompound)
			}
			for id, mode := range []script.Mode{script.ModeExtended, script.ModePrepared} {
				st := &script.Stmt{ID: id, Mode: mode, Store: script.StoreGset,
					Text:   "SELECT $1::int + 1 AS a, coalesce($2::text, 'null') AS b, $3::text AS e",
					Params: [][]byte{[]byte("41"), nil, {}}}
				for range 2 { // prepared: prepared by the first, run again by the second
					res, err := c.Exec(ctx, st)
					if err != nil || !reflect.DeepEqual(res, wantParams) {
						t.Errorf("%s: %q, %v; want %q", mode, res, err, wantParams)
					}
				}
				st.Store = script.StoreNone
				if res, err := c.Exec(ctx, st); res != nil || err != nil {
					t.Errorf("%s without \\gset: %q, %v; want nothing", mode, res, err)
				}
			}
		})
	}
}

// TestPathsErrorsAndTransactions: in each mode a failed statement inside BEGIN returns the
// server's SQLSTATE, leaves the transaction aborted (the next statement fails with 25P02, as
// pgbench's would) until the rollback; a serialization failure is retryable, another error not.
func TestPathsErrorsAndTransactions(t *testing.T) {
	target := pgTarget(t)
	ctx := context.Background()
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return ""
	}
	for _, path := range clientPaths {
		t.Run(string(path), func(t *testing.T) {
			_, store := openPath(t, target, path)
			c := connect(t, store)
			for id, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
				if _, err := c.Exec(ctx, simple("BEGIN", script.StoreNone)); err != nil || !c.InTransaction() {
					t.Fatalf("%s: BEGIN: %v, in a transaction: %v", mode, err, c.InTransaction())
				}
				div := &script.Stmt{ID: id, Mode: mode, Text: "SELECT 1 / $1::int", Params: [][]byte{[]byte("0")}}
				if mode == script.ModeSimple {
					div = simple("SELECT 1 / 0", script.StoreNone)
				}
				_, err := c.Exec(ctx, div)
				if code(err) != "22012" {
					t.Errorf("%s: 1/0: %v, want SQLSTATE 22012", mode, err)
				}
				if kind, retry := store.Outcome(err); retry {
					t.Errorf("%s: 1/0 is %s, retryable; want not retryable", mode, kind)
				}
				if !c.InTransaction() {
					t.Errorf("%s: after the failed statement the transaction is not open", mode)
				}
				if _, err := c.Exec(ctx, simple("SELECT 1", script.StoreNone)); code(err) != "25P02" {
					t.Errorf("%s: a statement in the failed transaction: %v, want SQLSTATE 25P02", mode, err)
				}
				if err := c.Rollback(ctx); err != nil || c.InTransaction() {
					t.Errorf("%s: ROLLBACK: %v, still in a transaction: %v", mode, err, c.InTransaction())
				}
			}
			_, err := c.Exec(ctx, simple("DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = 'serialization_failure'; END $$", script.StoreNone))
			if kind, retry := store.Outcome(err); kind != driver.KindSerialization || !retry {
				t.Errorf("40001: %v is %s, retryable %v; want serialization, retryable", err, kind, retry)
			}
			if res, err := c.Exec(ctx, simple("SELECT 7 AS n", script.StoreGset)); err != nil || res[0].Rows[0][0] != "7" {
				t.Errorf("after the errors: %q, %v; want 7", res, err)
			}
		})
	}
}

// TestPathsCancel: a statement whose context is canceled returns an error and no longer runs
// on the server (the lean path's CancelRequest; pgx's cancel handler on the driver path).
func TestPathsCancel(t *testing.T) {
	target := pgTarget(t)
	for _, path := range clientPaths {
		t.Run(string(path), func(t *testing.T) {
			tg, store := openPath(t, target, path)
			c := connect(t, store)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := c.Exec(ctx, simple("SELECT pg_sleep(30) /* script_paths_sleep */", script.StoreNone))
				done <- err
			}()
			for deadline := time.Now().Add(time.Minute); sleeps(t, tg) == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the sleep did not start within a minute")
				}
			}
			cancel()
			if err := <-done; err == nil {
				t.Fatal("the canceled statement returned no error")
			} else if _, retry := store.Outcome(err); retry {
				t.Errorf("a canceled statement is retryable: %v", err)
			}
			if n := sleeps(t, tg); n != 0 {
				t.Errorf("%d canceled sleeps still run on the server after the statement returned", n)
			}
		})
	}
}

// sleeps counts the active statements of TestPathsCancel on the server.
func sleeps(t *testing.T, tg driver.Target) int {
	t.Helper()
	store, _ := scriptsql.For(tg)
	row, err := store.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%script_paths_sleep%' AND pid <> pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	if row[0] == "0" {
		return 0
	}
	return 1
}

// TestMySQLPaths: on MariaDB (InnoDB) through each client path, a failed statement returns the
// server's error number in each mode, a canceled statement no longer runs on the server, and
// tpcb-like passes its balance check in each mode.
func TestMySQLPaths(t *testing.T) {
	target, ok := sqlTargets(t, "paths")["mysql-innodb"]
	if !ok {
		t.Skip("no MariaDB (-short)")
	}
	ctx := context.Background()
	for i, path := range clientPaths {
		t.Run(string(path), func(t *testing.T) {
			tg, store := openPath(t, target, path)
			c := connect(t, store)
			for id, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
				st := &script.Stmt{ID: id, Mode: mode, Text: "SELECT * FROM script_no_such_table WHERE a = ?", Params: [][]byte{[]byte("1")}}
				if mode == script.ModeSimple {
					st = simple("SELECT * FROM script_no_such_table", script.StoreNone)
				}
				var me *mysql.MySQLError
				if _, err := c.Exec(ctx, st); !errors.As(err, &me) || me.Number != 1146 {
					t.Errorf("%s: a missing table: %v, want error 1146", mode, err)
				}
				if res, err := c.Exec(ctx, simple("SELECT 7 AS n", script.StoreGset)); err != nil || len(res) != 1 || res[0].Rows[0][0] != "7" {
					t.Errorf("%s: after the error: %q, %v; want 7", mode, res, err)
				}
			}
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := c.Exec(cctx, simple("SELECT SLEEP(30) /* script_paths_sleep */", script.StoreNone))
				done <- err
			}()
			running := func() string {
				row, err := store.QueryRow(ctx, "SELECT count(*) FROM information_schema.processlist WHERE info LIKE '%script_paths_sleep%' AND id <> CONNECTION_ID()")
				if err != nil {
					t.Fatal(err)
				}
				return row[0]
			}
			for deadline := time.Now().Add(time.Minute); running() == "0"; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the sleep did not start within a minute")
				}
			}
			cancel()
			if err := <-done; err == nil {
				t.Error("the canceled statement returned no error")
			}
			for deadline := time.Now().Add(time.Minute); running() != "0"; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) { // KILL QUERY runs beside the statement's return
					t.Fatal("the canceled sleep still runs on the server a minute later")
				}
			}
			for j, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
				cfg := script.DefaultConfig()
				cfg.Sources = []script.Source{{Builtin: "tpcb-like", Weight: 1}}
				cfg.Clients, cfg.Transactions, cfg.Mode, cfg.Seed, cfg.MaxTries = 3, 30, mode, uint64(10*i+j), 10
				cfg.Steps = []string{script.StepRun}
				if i == 0 && j == 0 {
					cfg.Steps = []string{script.StepInit, script.StepRun}
				}
				if _, b, err := runOn(t, tg, cfg); err != nil {
					t.Fatalf("%s: %v", mode, err)
				} else if st := b.Stats(); st.Transactions+st.Failed != 90 {
					t.Errorf("%s: %+v, want 90 transactions", mode, st)
				}
			}
		})
	}
}

// TestMySQLSQLModeOnEveryPath: a script's SET sql_mode with NO_BACKSLASH_ESCAPES, which the
// lean path sends and go-sql-driver never reads the reply of, does not change what a later
// \gset statement's parameter means, in extended and prepared modes, on every path (the
// driver's interpolation would escape the backslash for the mode it last saw).
func TestMySQLSQLModeOnEveryPath(t *testing.T) {
	target, ok := sqlTargets(t, "paths")["mysql-innodb"]
	if !ok {
		t.Skip("no MariaDB (-short)")
	}
	ctx := context.Background()
	const arg = `it's a\`
	for _, path := range append(clientPaths, driver.ClientKernel) {
		t.Run(string(path), func(t *testing.T) {
			_, store := openPath(t, target, path)
			c := connect(t, store)
			set := simple("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')", script.StoreNone)
			if _, err := c.Exec(ctx, set); err != nil {
				t.Fatal(err)
			}
			for id, mode := range []script.Mode{script.ModeExtended, script.ModePrepared} {
				st := &script.Stmt{ID: id, Mode: mode, Store: script.StoreGset, Text: "SELECT ? AS x", Params: [][]byte{[]byte(arg)}}
				res, err := c.Exec(ctx, st)
				if err != nil || len(res) != 1 || len(res[0].Rows) != 1 || res[0].Rows[0][0] != arg {
					t.Errorf("%s after the lean SET: %q, %v; want %q", mode, res, err, arg)
				}
			}
		})
	}
}

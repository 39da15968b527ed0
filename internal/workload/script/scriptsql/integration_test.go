package scriptsql_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
)

// sqlTargets are SQLite and the real PostgreSQL and MariaDB (InnoDB, MyRocks) servers.
func sqlTargets(t *testing.T, name string) map[string]string {
	all := testtargets.All(t, "dbperf_script_"+name, "script")
	delete(all, "pebble")
	delete(all, "bbolt")
	return all
}

// run runs cfg's steps on target in a session that checks after each step; it returns the run
// directory and the session's error.
func run(t *testing.T, target string, cfg script.Config) (string, *script.Bench, error) {
	t.Helper()
	return runOn(t, testtargets.Open(t, target), cfg)
}

// runOn is run on an opened target (one with a chosen client path: openPath).
func runOn(t *testing.T, tg driver.Target, cfg script.Config) (string, *script.Bench, error) {
	t.Helper()
	store, err := scriptsql.For(tg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := script.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	d, err := archive.Create(dir, archive.Run{Name: "run", Workload: script.Name, Target: archive.Target(tg.Info(context.Background())), Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workload: b, Dir: d, Out: io.Discard, Verify: true, Tick: 200 * time.Millisecond}
	return dir, b, s.Run(context.Background())
}

// stepFigures reads a step's summary.json workload figures.
func stepFigures(t *testing.T, dir, step string) map[string]any {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "*"+step, "summary.json"))
	if len(matches) == 0 {
		t.Fatalf("no summary.json for step %s in %s", step, dir)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Workload map[string]any `json:"workload"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Workload
}

// TestBuiltinsOnEveryTarget initializes pgbench's tables and runs each built-in script in each
// query mode with 4 clients; the session's checks (rows loaded, balances adding up, a history
// row per transaction) must pass.
func TestBuiltinsOnEveryTarget(t *testing.T) {
	for name, target := range sqlTargets(t, "builtins") {
		t.Run(name, func(t *testing.T) {
			for i, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
				cfg := script.DefaultConfig()
				cfg.Sources = []script.Source{{Builtin: "tpcb", Weight: 2}, {Builtin: "simple-update", Weight: 1}, {Builtin: "select-only", Weight: 1}}
				if i > 0 {
					cfg.Sources = []script.Source{{Builtin: []string{"", "tpcb-like", "select"}[i], Weight: 1}}
				}
				cfg.Clients, cfg.Transactions, cfg.Mode, cfg.Seed, cfg.MaxTries = 4, 50, mode, uint64(i+1), 10
				cfg.Steps = []string{script.StepInit, script.StepRun}
				if i > 0 {
					cfg.Steps = []string{script.StepRun} // on the tables of the first
				}
				dir, b, err := run(t, target, cfg)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				f := stepFigures(t, dir, script.StepRun)
				st := b.Stats()
				if st.Transactions+st.Failed != 200 || f["transactions"].(float64) != float64(st.Transactions) {
					t.Errorf("%s: stats %+v, figures %v", mode, st, f)
				}
			}
		})
	}
}

// TestUserScriptChecks runs a script of one's own with \gset and \if, and a --check that holds
// and one that does not: the second fails the run.
func TestUserScriptChecks(t *testing.T) {
	text := `\set id random(1, 1000)
SELECT count(*) AS n FROM script_t WHERE id = :id \gset
\if :n = 0
INSERT INTO script_t (id, v) VALUES (:id, 1);
\else
UPDATE script_t SET v = v + 1 WHERE id = :id;
\endif
`
	for name, target := range sqlTargets(t, "user") {
		t.Run(name, func(t *testing.T) {
			tg := testtargets.Open(t, target)
			store, _ := scriptsql.For(tg)
			ctx := context.Background()
			if err := store.Exec(ctx, "DROP TABLE IF EXISTS script_t", "CREATE TABLE script_t (id int PRIMARY KEY, v int)"); err != nil {
				t.Fatal(err)
			}
			tg.Close()
			cfg := script.DefaultConfig()
			cfg.Sources = []script.Source{{Name: "upsert", Text: text, Weight: 1}}
			cfg.Transactions, cfg.Mode = 100, script.ModePrepared
			cfg.Checks = []script.Check{{SQL: "SELECT sum(v) FROM script_t", Want: "100"}}
			if _, _, err := run(t, target, cfg); err != nil {
				t.Fatal(err)
			}
			cfg.Checks = []script.Check{{SQL: "SELECT sum(v) FROM script_t", Want: "1"}}
			if _, _, err := run(t, target, cfg); err == nil || !strings.Contains(err.Error(), "got 200") {
				t.Errorf("a failing --check: got %v", err)
			}
		})
	}
}

// TestBalanceCheckFails: a script that changes an account's balance without a history row
// makes the built-in scripts' check fail.
func TestBalanceCheckFails(t *testing.T) {
	targets := sqlTargets(t, "balance")
	for _, name := range []string{"sqlite", "postgres"} {
		target, ok := targets[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			cfg := script.DefaultConfig()
			cfg.Sources = []script.Source{{Builtin: "tpcb-like", Weight: 1},
				{Name: "thief", Text: "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;", Weight: 1}}
			cfg.Steps, cfg.Transactions = []string{script.StepInit, script.StepRun}, 20
			_, _, err := run(t, target, cfg)
			if err == nil || !strings.Contains(err.Error(), "balances do not add up") {
				t.Errorf("got %v, want the balance check to fail", err)
			}
		})
	}
}

// TestOpenLoop runs tpcb-like open loop (constant arrivals for a second) through the core's
// pool: the step is marked open loop, its stream's arrivals are counted, and the checks hold.
func TestOpenLoop(t *testing.T) {
	targets := sqlTargets(t, "open")
	for _, name := range []string{"sqlite", "postgres"} {
		target, ok := targets[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			cfg := script.DefaultConfig()
			cfg.Sources = []script.Source{{Builtin: "tpcb-like", Weight: 1}}
			cfg.Steps, cfg.Clients, cfg.Transactions, cfg.Duration = []string{script.StepInit, script.StepRun}, 2, 0, time.Second
			a, err := workload.ParseArrival("constant", "200")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Arrival = a
			dir, b, err := run(t, target, cfg)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "run", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if st := b.Stats(); st.Transactions == 0 || !strings.Contains(string(data), "offered") {
				t.Errorf("open loop at 200/s for 1s: %d transactions; summary %s", st.Transactions, data)
			}
		})
	}
}

// TestRetriesOnServer: a transaction that raises a serialization failure (SQLSTATE 40001) on
// every odd value of a sequence (a sequence is not rolled back) is retried once and succeeds
// with --max-tries 2, and counts as failed with --max-tries 1, on PostgreSQL, on every client
// path.
func TestRetriesOnServer(t *testing.T) {
	target, ok := sqlTargets(t, "retry")["postgres"]
	if !ok {
		t.Skip("no PostgreSQL")
	}
	for _, path := range clientPaths {
		t.Run(string(path), func(t *testing.T) { testRetries(t, target, path) })
	}
}

func testRetries(t *testing.T, target string, path driver.ClientPath) {
	text := `BEGIN;
SELECT nextval('script_retry') AS n \gset
\if :n % 2 = 1
DO $$ BEGIN RAISE EXCEPTION 'odd try' USING ERRCODE = 'serialization_failure'; END $$;
\endif
END;
`
	for _, tc := range []struct {
		tries                                int
		transactions, failed, retries, fails int64
	}{{2, 10, 0, 10, 10}, {1, 5, 5, 0, 5}} {
		tg, store := openPath(t, target, path)
		if err := store.Exec(context.Background(), "DROP SEQUENCE IF EXISTS script_retry", "CREATE SEQUENCE script_retry"); err != nil {
			t.Fatal(err)
		}
		cfg := script.DefaultConfig()
		cfg.Sources = []script.Source{{Name: "retry", Text: text, Weight: 1}}
		cfg.Transactions, cfg.MaxTries = 10, tc.tries
		_, b, err := runOn(t, tg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		st := b.Stats()
		if st.Transactions != tc.transactions || st.Failed != tc.failed || st.Retries != tc.retries || st.Serialization != tc.fails {
			t.Errorf("--max-tries %d: %+v", tc.tries, st)
		}
	}
}

// TestBuiltinOnEveryPath runs tpcb-like with 3 clients in each query mode on each client path,
// and a script of one's own reading \aset's results: the balance checks hold on every path,
// every transaction succeeds, and the pgbench_history rows are the transactions'.
func TestBuiltinOnEveryPath(t *testing.T) {
	target := pgTarget(t)
	aset := `\set aid random(1, 100000 * :scale)
SELECT abalance AS before FROM pgbench_accounts WHERE aid = :aid \; SELECT :aid AS got \aset
\if :got <> :aid
SELECT 1 / 0;
\endif
`
	for i, path := range clientPaths {
		t.Run(string(path), func(t *testing.T) {
			for j, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
				tg, _ := openPath(t, target, path)
				cfg := script.DefaultConfig()
				cfg.Sources = []script.Source{{Builtin: "tpcb-like", Weight: 1}}
				if mode == script.ModeSimple {
					cfg.Sources = append(cfg.Sources, script.Source{Name: "aset", Text: aset, Weight: 1})
				}
				cfg.Clients, cfg.Transactions, cfg.Mode, cfg.Seed = 3, 30, mode, uint64(10*i+j)
				cfg.Steps = []string{script.StepRun}
				if i == 0 && j == 0 {
					cfg.Steps = []string{script.StepInit, script.StepRun}
				}
				_, b, err := runOn(t, tg, cfg)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				if st := b.Stats(); st.Transactions != 90 || st.Failed != 0 {
					t.Errorf("%s: %+v, want 90 transactions", mode, st)
				}
			}
		})
	}
}

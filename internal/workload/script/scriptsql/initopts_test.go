package scriptsql_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
)

// schemaSQL describes pgbench's tables from PostgreSQL's catalog: each relation's kind,
// storage options, partition key and bounds; each constraint; each column's type.
const schemaSQL = `SELECT string_agg(d, E'\n' ORDER BY d) FROM (
  SELECT c.relname || ' ' || c.relkind::text || ' ' || coalesce(array_to_string(c.reloptions, ','), '-') || ' ' ||
         coalesce(pg_get_expr(c.relpartbound, c.oid), '-') || ' ' || coalesce(pg_get_partkeydef(c.oid), '-') AS d
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relname LIKE 'pgbench%'
  UNION ALL
  SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE conrelid::regclass::text LIKE 'pgbench%'
  UNION ALL
  SELECT attrelid::regclass::text || '.' || attname || ' ' || format_type(atttypid, atttypmod) || ' ' || attnotnull
    FROM pg_attribute WHERE attrelid::regclass::text LIKE 'pgbench%' AND attnum > 0 AND NOT attisdropped) s`

// dataSQL digests pgbench's rows, every column, in key order.
var dataSQL = []string{
	`SELECT count(*) || ' ' || md5(string_agg(aid || ',' || bid || ',' || abalance || ',' || coalesce(filler, 'NULL'), ';' ORDER BY aid)) FROM pgbench_accounts`,
	`SELECT count(*) || ' ' || md5(string_agg(tid || ',' || bid || ',' || tbalance || ',' || coalesce(filler, 'NULL'), ';' ORDER BY tid)) FROM pgbench_tellers`,
	`SELECT count(*) || ' ' || md5(string_agg(bid || ',' || bbalance || ',' || coalesce(filler, 'NULL'), ';' ORDER BY bid)) FROM pgbench_branches`,
	`SELECT count(*) FROM pgbench_history`,
}

// TestInitMatchesPgbench runs the installed pgbench -i (15.18) and dbperf's init step with the
// same -F, --partitions, --partition-method and -I into two databases of the test server, and
// compares the catalogs' description of the tables (kinds, fillfactors, partition keys and
// bounds, primary and foreign keys, column types) and a digest of every row.
func TestInitMatchesPgbench(t *testing.T) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if _, err := exec.LookPath("pgbench"); err != nil || dsn == "" {
		t.Skip("needs pgbench on PATH and DBPERF_TEST_POSTGRES")
	}
	for _, tc := range []struct {
		name string
		args []string
		o    script.InitOptions
	}{
		{"default", nil, script.InitOptions{}},
		{"range", []string{"-F", "90", "--partitions", "3"}, script.InitOptions{Fillfactor: 90, Partitions: 3}},
		{"hash-server-fk", []string{"-F", "80", "--partitions", "4", "--partition-method", "hash", "-I", "dtG vpf"},
			script.InitOptions{Fillfactor: 80, Partitions: 4, PartitionMethod: "hash", Steps: "dtG vpf"}},
		{"no-keys", []string{"-I", "dtg"}, script.InitOptions{Steps: "dtg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := testtargets.WithDatabase(dsn, "dbperf_script_init_ref")
			refStore, _ := scriptsql.For(testtargets.Open(t, ref)) // creates the database
			args := append(append([]string{"-i", "-q", "-s", "2"}, tc.args...), ref)
			if out, err := exec.Command("pgbench", args...).CombinedOutput(); err != nil {
				t.Fatalf("pgbench %v: %v\n%s", args, err, out)
			}
			mine := testtargets.WithDatabase(dsn, "dbperf_script_init_mine")
			cfg := script.DefaultConfig()
			cfg.Sources, cfg.Steps, cfg.Scale, cfg.Init = []script.Source{{Builtin: "tpcb-like", Weight: 1}}, []string{script.StepInit}, 2, tc.o
			if _, _, err := run(t, mine, cfg); err != nil {
				t.Fatal(err) // the init step's own check included: rows, fillfactors, partitions
			}
			myStore, _ := scriptsql.For(testtargets.Open(t, mine))
			ctx := context.Background()
			for _, q := range append([]string{schemaSQL}, dataSQL...) {
				want, err := refStore.QueryRow(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := myStore.QueryRow(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, "") != strings.Join(want, "") {
					t.Errorf("%.60s...:\ndbperf:\n%s\npgbench:\n%s", q, strings.Join(got, ""), strings.Join(want, ""))
				}
			}
		})
	}
}

// TestInitStepsOnServers: on MariaDB (InnoDB) and SQLite as on PostgreSQL, --init-steps dt
// leaves pgbench's tables empty (the init check counts 0 rows), then dtg fills them without a
// vacuum, and tpcb-like runs on them with its balance check; what only PostgreSQL has is refused.
func TestInitStepsOnServers(t *testing.T) {
	targets := sqlTargets(t, "initsteps")
	for _, name := range []string{"sqlite", "postgres", "mysql-innodb"} {
		target, ok := targets[name]
		if !ok {
			continue // -short: no servers
		}
		t.Run(name, func(t *testing.T) {
			cfg := script.DefaultConfig()
			cfg.Sources, cfg.Steps, cfg.Init.Steps = []script.Source{{Builtin: "tpcb-like", Weight: 1}}, []string{script.StepInit}, "dt"
			dir, _, err := run(t, target, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if f := stepFigures(t, dir, script.StepInit); f["init_steps"] != "dt" {
				t.Errorf("init_steps %v", f["init_steps"])
			}
			cfg.Steps, cfg.Init.Steps, cfg.Clients, cfg.Transactions = []string{script.StepInit, script.StepRun}, "dtg", 2, 20
			if _, _, err := run(t, target, cfg); err != nil {
				t.Fatal(err)
			}
			if name == "postgres" {
				return
			}
			cfg.Init.Steps, cfg.Init.Partitions = "dtgvp", 2
			store, _ := scriptsql.For(testtargets.Open(t, target))
			if _, err := script.New(cfg, store); err == nil || !strings.Contains(err.Error(), "run on PostgreSQL only") {
				t.Errorf("--partitions off PostgreSQL: %v", err)
			}
		})
	}
}

// TestConnectPerTransactionOnServers: with --connect-per-transaction, 2 clients × 20
// transactions of a script that records its server connection's id (the backend's pid) run on
// 40 connections; without it, on 2. In a closed loop each connection is a connect operation;
// the step's figures count them. MariaDB refuses it: database/sql's pool may hand back an open
// connection.
func TestConnectPerTransactionOnServers(t *testing.T) {
	targets := sqlTargets(t, "connect")
	if target, ok := targets["mysql-innodb"]; ok {
		cfg := script.DefaultConfig()
		cfg.Sources, cfg.ConnectEach = []script.Source{{Name: "s", Text: "SELECT 1;", Weight: 1}}, true
		store, _ := scriptsql.For(testtargets.Open(t, target))
		if _, err := script.New(cfg, store); err == nil || !strings.Contains(err.Error(), "runs on PostgreSQL only") {
			t.Errorf("--connect-per-transaction on MariaDB: %v", err)
		}
	}
	for _, tc := range []struct{ name, id string }{{"postgres", "pg_backend_pid()"}} {
		target, ok := targets[tc.name]
		if !ok {
			continue // -short: no servers
		}
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []struct{ each, open bool }{{true, false}, {false, false}, {true, true}} {
				each := v.each
				tg := testtargets.Open(t, target)
				store, _ := scriptsql.For(tg)
				if err := store.Exec(context.Background(), "DROP TABLE IF EXISTS script_conns", "CREATE TABLE script_conns (id bigint)"); err != nil {
					t.Fatal(err)
				}
				tg.Close()
				want := map[bool]string{true: "40", false: "2"}[each]
				cfg := script.DefaultConfig()
				cfg.Sources = []script.Source{{Name: "conn", Text: "INSERT INTO script_conns VALUES (" + tc.id + ");\n", Weight: 1}}
				cfg.Clients, cfg.Transactions, cfg.ConnectEach, cfg.Mode = 2, 20, each, script.ModePrepared
				cfg.Checks = []script.Check{{SQL: "SELECT count(DISTINCT id) FROM script_conns", Want: want}}
				if v.open { // the connection inside each arrival's transaction
					cfg.Arrival = workload.Arrival{Process: workload.Constant, Rate: 200}
				}
				dir, _, err := run(t, target, cfg)
				if err != nil {
					t.Fatalf("%+v: %v", v, err)
				}
				f := stepFigures(t, dir, script.StepRun)
				if each && (f["connections"] != 40.0 || f["transactions"] != 40.0 || !(f["connection_time_ms"].(float64) > 0)) {
					t.Errorf("%+v: figures %v", v, f)
				}
				if n := connectOps(t, dir); each && n != map[bool]int{false: 40, true: 0}[v.open] {
					t.Errorf("%+v: %d connect operations", v, n)
				}
				if !each && f["connections"] != nil {
					t.Errorf("connections counted without --connect-per-transaction: %v", f)
				}
			}
		})
	}
}

// connectOps is the count of the run step's connect operations in its summary.json.
func connectOps(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, script.StepRun, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Ops map[string]struct {
			Count int `json:"count"`
		} `json:"ops"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Ops[script.ConnectOp].Count
}

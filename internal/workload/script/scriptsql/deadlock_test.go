package scriptsql_test

import (
	"context"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
)

// deadlockScript updates rows 1 and 2 in an order that depends on the client: client 0 locks 1
// then 2, client 1 locks 2 then 1, sleeping between the two so that each holds its first row
// while it asks for the other's. The lock order forces the deadlock whenever the two clients'
// first updates fall within one sleep; over 8 transactions each, at least one does.
const deadlockScript = `\set a 1 + :client_id % 2
\set b 2 - :client_id % 2
BEGIN;
UPDATE script_deadlock SET v = v + 1 WHERE id = :a;
\sleep 100 ms
UPDATE script_deadlock SET v = v + 1 WHERE id = :b;
COMMIT;
`

// TestDeadlockRetriesOnServer: two clients that update two rows in opposite orders deadlock on
// PostgreSQL (40P01) and MariaDB InnoDB (1213); with --max-tries 3 the deadlocks are counted and
// retried, the run finishes, and the two rows' values are equal (a rolled-back try left
// nothing).
func TestDeadlockRetriesOnServer(t *testing.T) {
	targets := sqlTargets(t, "deadlock")
	for _, name := range []string{"postgres", "mysql-innodb"} {
		target, ok := targets[name]
		if !ok {
			continue // -short: no servers
		}
		t.Run(name, func(t *testing.T) {
			tg := testtargets.Open(t, target)
			store, err := scriptsql.For(tg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := store.Exec(ctx, "DROP TABLE IF EXISTS script_deadlock", "CREATE TABLE script_deadlock (id INT PRIMARY KEY, v INT NOT NULL)",
				"INSERT INTO script_deadlock VALUES (1, 0), (2, 0)"); err != nil {
				t.Fatal(err)
			}
			if name == "postgres" { // PostgreSQL looks for a deadlock after 1 s of waiting, by default
				if err := store.Exec(ctx, "ALTER DATABASE dbperf_script_deadlock SET deadlock_timeout = '100ms'"); err != nil {
					t.Fatal(err)
				}
			}
			cfg := script.DefaultConfig()
			cfg.Sources = []script.Source{{Name: "deadlock", Text: deadlockScript, Weight: 1}}
			cfg.Clients, cfg.Transactions, cfg.MaxTries = 2, 8, 3
			// every committed transaction added 1 to both rows; a rolled-back try to neither
			cfg.Checks = []script.Check{{SQL: "SELECT max(v) - min(v) FROM script_deadlock", Want: "0"}}
			_, b, err := runOn(t, tg, cfg)
			if err != nil {
				t.Fatal(err)
			}
			st := b.Stats()
			t.Logf("%+v", st)
			if st.Deadlock < 1 || st.Retries < 1 || st.Retried < 1 {
				t.Errorf("no deadlock retried: %+v", st)
			}
			if st.Serialization != 0 || st.Transactions+st.Failed != 16 {
				t.Errorf("want 16 transactions, succeeded or failed, and only deadlocks: %+v", st)
			}
		})
	}
}

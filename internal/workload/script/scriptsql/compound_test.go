package scriptsql_test

import (
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
)

// compoundScript sets :a and :b from one compound statement; the division by zero aborts the
// client if \aset did not read both results.
const compoundScript = `SELECT 1 AS a \; SELECT 2 AS b \aset
\if :a = 1 and :b = 2
SELECT 1;
\else
\set fail 1 / 0
\endif
`

// TestCompoundOnEveryTarget: on PostgreSQL a \; compound statement runs and \aset reads every
// result, as pgbench's; on MariaDB (error 1064 for the second statement) and SQLite (only the
// last result) it is refused before any work, with the script's line and what to do.
func TestCompoundOnEveryTarget(t *testing.T) {
	for name, target := range sqlTargets(t, "compound") {
		t.Run(name, func(t *testing.T) {
			cfg := script.DefaultConfig()
			cfg.Sources = []script.Source{{Name: "comp", Text: compoundScript, Weight: 1}}
			cfg.Transactions = 5
			if name == "postgres" {
				if _, b, err := run(t, target, cfg); err != nil || b.Stats().Transactions != 5 {
					t.Fatalf("got %v", err)
				}
				return
			}
			tg := testtargets.Open(t, target)
			store, err := scriptsql.For(tg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = script.New(cfg, store)
			want := "comp:1: \\; joins SQL commands into one compound statement, which dbperf runs on PostgreSQL only, not " + store.Dialect() + ": end each command with ;"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
}

package scriptsql_test

import (
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/workload/script"
)

// TestScriptEndsInTransaction: a script that ends inside a transaction block fails the step,
// as pgbench aborts the client (pgbench.c:4246-4257; its test: BEGIN;SELECT 1;), on
// PostgreSQL from ReadyForQuery and on MariaDB's lean paths from the OK and EOF packets'
// SERVER_STATUS_IN_TRANS, in each query mode, also when the last statement's results went
// through database/sql for \gset; on MariaDB's driver path from @@in_transaction at the
// step's end. The same script with its COMMIT runs.
func TestScriptEndsInTransaction(t *testing.T) {
	targets := sqlTargets(t, "endtx")
	for _, name := range []string{"postgres", "mysql-innodb"} {
		target, ok := targets[name]
		if !ok {
			continue
		}
		for _, path := range clientPaths {
			for _, mode := range []script.Mode{script.ModeSimple, script.ModeExtended, script.ModePrepared} {
				t.Run(name+"/"+string(path)+"/"+mode.String(), func(t *testing.T) {
					for _, tc := range []struct{ text, want string }{
						{"BEGIN;\nSELECT 1;\n", "inside a transaction block"},
						{"BEGIN;\nSELECT 1 AS x \\gset\n", "inside a transaction block"},
						{"BEGIN;\nSELECT 1 AS x \\gset\nCOMMIT;\n", ""},
						{"SELECT 1;\n", ""},
					} {
						tg, _ := openPath(t, target, path)
						cfg := script.DefaultConfig()
						cfg.Sources = []script.Source{{Name: "tx", Text: tc.text, Weight: 1}}
						cfg.Transactions, cfg.Mode = 3, mode
						_, _, err := runOn(t, tg, cfg)
						if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
							t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
						}
					}
				})
			}
		}
	}
}

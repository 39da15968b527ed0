package scriptsql_test

import (
	"cmp"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/workload/keyorder"
	"github.com/dbperf/dbperf/internal/workload/script"
)

// TestInitInsertPatternAsDeclared runs the init step on SQLite, whose pgbench_accounts has its
// primary key during the load and numbers rows in insert order (rowid), reads the aids back in
// that order and infers the pattern: it must be the one declared.
func TestInitInsertPatternAsDeclared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pgbench.sqlite")
	cfg := script.DefaultConfig()
	cfg.Sources = []script.Source{{Builtin: "tpcb-like", Weight: 1}}
	cfg.Steps = []string{script.StepInit}
	_, b, err := run(t, "sqlite:"+path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	pats := b.Figures().StepPatterns(script.StepInit)
	if len(pats) != 1 || pats[0].Table != "pgbench_accounts" {
		t.Fatalf("init declares %+v, want pgbench_accounts' key", pats)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT rowid, aid FROM pgbench_accounts")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	sample := keyorder.Sample[int64]{Compare: cmp.Compare[int64]}
	for rows.Next() {
		var in keyorder.Insert[int64]
		if err := rows.Scan(&in.Commit, &in.Key); err != nil {
			t.Fatal(err)
		}
		sample.Inserts = append(sample.Inserts, in)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(sample.Inserts, func(a, b keyorder.Insert[int64]) int { return cmp.Compare(a.Commit, b.Commit) })
	res, err := keyorder.Infer(sample)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.Streams.Code(); got != pats[0].Pattern {
		t.Errorf("init inserted %s, declared %s: %v", got, pats[0].Pattern, res)
	}
}

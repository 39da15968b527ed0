package script

import "testing"

// TestInsertPatterns: the init step declares pgbench_accounts' primary key where it exists
// during the load (MySQL, SQLite), not on PostgreSQL, which adds it afterwards; the run step
// declares nothing.
func TestInsertPatterns(t *testing.T) {
	for _, d := range []string{"mysql", "sqlite"} {
		p := InsertPatterns([]string{StepInit, StepRun}, d)
		if len(p) != 1 || p[0].Step != StepInit || p[0].Table != "pgbench_accounts" || p[0].Pattern != "nAsc:1, nRHS:1" {
			t.Errorf("%s: %+v", d, p)
		}
	}
	if p := InsertPatterns([]string{StepInit, StepRun}, "postgres"); len(p) != 0 {
		t.Errorf("postgres: %+v", p)
	}
	if p := InsertPatterns([]string{StepRun}, "mysql"); len(p) != 0 {
		t.Errorf("run alone: %+v", p)
	}
}

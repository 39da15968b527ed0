package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
)

// TestExplainInsertPatterns: summary --explain RUN prints the run's declared insert patterns
// (a shared table's, from its run.json), --explain alone every workload's default ones, and
// other formats only the column legend.
func TestExplainInsertPatterns(t *testing.T) {
	dir := t.TempDir()
	cfg := insertbench.DefaultConfig()
	cfg.SharedTable, cfg.Steps = true, []string{"l.i0", "l.x", "l.i1"}
	f := insertbench.Declaration()
	f.InsertPatterns = cfg.InsertPatterns()
	path := filepath.Join(dir, "shared")
	if _, err := archive.Create(path, archive.Run{Name: "shared", Workload: "insert", Figures: f,
		Steps: []archive.StepStatus{{Name: "l.i0", Dir: "l.i0", Complete: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(path, "l.i0"), 0o755); err != nil {
		t.Fatal(err)
	}
	step := archive.Step{Step: "l.i0", Complete: true, Seconds: 1, Stalls: &measure.Stalls{}}
	if err := archive.WriteJSON(filepath.Join(path, "l.i0", "summary.json"), step); err != nil {
		t.Fatal(err)
	}
	s := run(t, dir, "summary", "--explain", "shared")
	lines := strings.Join(strings.Fields(s.stdout), " ")
	if s.code != 0 || !strings.Contains(lines, "shared l.i1 pi1 marketsegment inf") || !strings.Contains(lines, "shared l.i0 pi1 pk nAsc:1, nRHS:1") {
		t.Fatalf("summary --explain RUN: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if strings.Contains(lines, "l.i0 pi1 pdc") || strings.Contains(lines, "kv fillseq") {
		t.Errorf("summary --explain RUN printed patterns not declared by the run:\n%s", s.stdout)
	}
	s = run(t, dir, "summary", "--explain")
	lines = strings.Join(strings.Fields(s.stdout), " ")
	for _, want := range []string{"insert l.i1 pi1..pi2, each pk nAsc:1, nRHS:1", "kv fillseq kv key nAsc:1, nRHS:1",
		"linkbench (SQL) load linktable pk nAsc:10, nRHS:1", "ycsb load usertable pk inf", "default configurations"} {
		if !strings.Contains(lines, want) {
			t.Errorf("summary --explain lacks %q:\n%s", want, s.stdout)
		}
	}
	if s := run(t, dir, "summary", "--explain", "--format", "tsv"); strings.Contains(s.stdout, "nRHS") {
		t.Errorf("summary --explain --format tsv printed a second table:\n%s", s.stdout)
	}
}

// TestExplainGroupPatterns: summary --explain of a run group made by a real --repeat 2 run
// prints the group's insert patterns once, named by the group, not once per repeat.
func TestExplainGroupPatterns(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "run", "insert", "--repeat", "2", "--quiet", "--seed", "5", "--rows", "500", "--l1-rows", "200",
		"--steps", "l.i0,l.x,l.i1", "--out", "g"); r.code != 0 {
		t.Fatalf("run --repeat 2: exit %d\n%s", r.code, r.stderr)
	}
	s := run(t, dir, "summary", "--explain", "g")
	if s.code != 0 {
		t.Fatalf("summary --explain GROUP: exit %d\n%s", s.code, s.stderr)
	}
	_, patterns, ok := strings.Cut(s.stdout, "\ngroup ")
	var rows []string
	for _, l := range strings.Split(patterns, "\n")[1:] {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	all := strings.Join(rows, "\n")
	for _, want := range []string{"g l.i0 pi1..pi2, each pk nAsc:1, nRHS:1", "g l.i1 pi1..pi2, each marketsegment inf"} {
		if n := strings.Count(all, want); !ok || n != 1 {
			t.Errorf("summary --explain GROUP prints %q %d times, want once:\n%s", want, n, s.stdout)
		}
	}
	if strings.Contains(all, "rep-") {
		t.Errorf("summary --explain GROUP names a repeat, not the group:\n%s", all)
	}
	if s := run(t, dir, "summary", "--explain", "--format", "tsv", "g"); s.code != 0 || strings.Contains(s.stdout, "nRHS") {
		t.Errorf("summary --explain --format tsv GROUP: exit %d, a second table:\n%s", s.code, s.stdout)
	}
}

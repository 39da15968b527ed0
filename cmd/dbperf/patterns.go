package main

import (
	"io"
	"path/filepath"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/report"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/kv"
	"github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
)

// patternsTitle heads summary --explain's table of insert patterns.
const patternsTitle = `
Insert patterns per index of each write step (docs/insert-benchmark.md): nAsc/nDesc streams
inserting in ascending/descending key order, nRHS/nLHS 1 when one inserts at the right/left end,
inf random with respect to the index. Steps and indexes not listed insert nothing (deletes,
index builds) or are unknown (a user's script).`

// defaultPatterns are each workload's patterns in its default configuration: the patterns
// depend on the configuration (clients, shared table, key order), so a run's own are in its
// run.json.
func defaultPatterns() []struct {
	name     string
	patterns []archive.InsertPattern
} {
	return []struct {
		name     string
		patterns []archive.InsertPattern
	}{
		{"insert", insertbench.DefaultConfig().InsertPatterns()},
		{"linkbench (SQL)", linkbench.DefaultConfig().InsertPatterns(true)},
		{"linkbench (key-value)", linkbench.DefaultConfig().InsertPatterns(false)},
		{"kv", kv.DefaultConfig().InsertPatterns()},
		{"ycsb", ycsb.DefaultConfig().InsertPatterns()},
		{"script (MySQL, SQLite)", script.InsertPatterns([]string{script.StepInit, script.StepRun}, "mysql")},
	}
}

// patternSource is one row label of summary --explain's pattern table (a run, or a run group)
// with the insert patterns it declared.
type patternSource struct {
	name     string
	patterns []archive.InsertPattern
}

// runPatterns are each run's declared patterns, named by the run's directory.
func runPatterns(runs []report.Run) []patternSource {
	var out []patternSource
	for _, r := range runs {
		out = append(out, patternSource{filepath.Base(r.Path), r.Meta.Figures.InsertPatterns})
	}
	return out
}

// groupPatterns are each run group's patterns, named by the group's directory: the distinct
// ones of its repeats (the same configuration declares the same patterns, so one repeat's;
// a repeat that declared others adds its own rows).
func groupPatterns(groups []report.Group) []patternSource {
	var out []patternSource
	for _, g := range groups {
		src := patternSource{name: filepath.Base(g.Path)}
		seen := map[archive.InsertPattern]bool{}
		for _, r := range g.Runs {
			for _, p := range r.Meta.Figures.InsertPatterns {
				if !seen[p] {
					seen[p] = true
					src.patterns = append(src.patterns, p)
				}
			}
		}
		out = append(out, src)
	}
	return out
}

// writeInsertPatterns prints the runs' (or run groups') insert patterns after summary
// --explain's legend, or without any each workload's default ones. Text format only: it is a
// second table.
func writeInsertPatterns(out io.Writer, sources []patternSource, groups bool) error {
	t := report.Table{Header: []string{"run", "step", "table", "index", "pattern"}, Title: patternsTitle}
	if groups {
		t.Header[0] = "group"
	}
	for _, s := range sources {
		for _, p := range s.patterns {
			t.Rows = append(t.Rows, []string{s.name, p.Step, p.Table, p.Index, p.Pattern})
		}
	}
	if len(sources) == 0 {
		t.Header[0] = "workload"
		t.Note = "(default configurations; a run's own, from its clients, tables and key order: dbperf summary --explain RUN)"
		for _, d := range defaultPatterns() {
			for _, p := range d.patterns {
				t.Rows = append(t.Rows, []string{d.name, p.Step, p.Table, p.Index, p.Pattern})
			}
		}
	}
	if len(t.Rows) == 0 {
		_, err := io.WriteString(out, patternsTitle+"\n(none declared in these runs)\n")
		return err
	}
	return report.WriteTable(out, t, report.FormatText)
}

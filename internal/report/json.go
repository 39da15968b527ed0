package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
)

// The JSON shapes of `summary --format json` and `compare --format json`, documented in
// docs/reports.md. Fields are added, never renamed or removed; numbers are unrounded.

// SummaryJSON is the summary of runs: the workloads' columns and each run's steps.
type SummaryJSON struct {
	Columns []archive.Column `json:"columns"`
	Runs    []SummaryRunJSON `json:"runs"`
}

// SummaryRunJSON is a run and its steps.
type SummaryRunJSON struct {
	Name     string            `json:"name"`
	Path     string            `json:"path"`
	Workload string            `json:"workload"`
	Target   TargetJSON        `json:"target"`
	Start    time.Time         `json:"start"`
	Commit   string            `json:"commit"`
	Complete bool              `json:"complete"`
	Steps    []SummaryStepJSON `json:"steps"`
}

// TargetJSON is what was measured.
type TargetJSON struct {
	Kind    string `json:"kind"`
	Engine  string `json:"engine,omitempty"`
	Version string `json:"version,omitempty"`
}

// SummaryStepJSON is a step's row of the summary.
type SummaryStepJSON struct {
	Step     string   `json:"step"`
	OK       string   `json:"ok"` // yes, unchecked or no, as the ok column
	Seconds  float64  `json:"seconds"`
	Errors   int64    `json:"errors"`
	Problems []string `json:"problems,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Figures are the workload columns the step has, by name (rates per second, latencies µs).
	Figures          map[string]float64 `json:"figures"`
	Gate             *GateJSON          `json:"gate,omitempty"`
	ClientCPUUsPerOp float64            `json:"client_cpu_us_per_op"`
	Stalls           *int               `json:"stalls"` // null: not judged
	// Host is summary.json's host object (docs/monitoring.md), absent when not monitored.
	Host *archive.HostSummary `json:"host,omitempty"`
}

// GateJSON is a step's gate: the condition's column, figures and outcome.
type GateJSON struct {
	Column   string  `json:"column"`
	Achieved float64 `json:"achieved"`
	Target   float64 `json:"target"`
	Met      bool    `json:"met"`
}

// Summary is the summary of runs as SummaryJSON.
func Summary(runs []Run) SummaryJSON {
	out := SummaryJSON{Columns: workloadColumns(runs, func(c archive.Column) bool { return c.Summary }), Runs: []SummaryRunJSON{}}
	for _, r := range runs {
		m := r.Meta
		rj := SummaryRunJSON{Name: m.Name, Path: r.Path, Workload: m.Workload, Start: m.Start, Commit: m.Dbperf.Commit,
			Complete: m.Complete, Target: TargetJSON{Kind: m.Target.Kind, Engine: m.Target.Engine, Version: m.Target.Version},
			Steps: []SummaryStepJSON{}}
		for _, s := range r.Steps {
			sj := SummaryStepJSON{Step: s.Step, OK: stepOK(s), Seconds: s.Seconds, Errors: s.Errors, Problems: s.Problems,
				Error: s.Error, Figures: map[string]float64{}, ClientCPUUsPerOp: s.ClientCPUUsPerOp, Host: s.Host}
			for _, c := range m.Figures.Columns {
				if v, ok := c.Value(s); ok && c.Summary {
					sj.Figures[c.Name] = v
				}
			}
			if g := m.Figures.Gate; g.Applies(s) {
				a, _ := s.Workload[g.Achieved].(float64)
				t, _ := s.Workload[g.Target].(float64)
				sj.Gate = &GateJSON{Column: g.Column, Achieved: a, Target: t, Met: !g.Failed(s)}
			}
			if s.Stalls != nil {
				n := s.Stalls.Count
				sj.Stalls = &n
			}
			rj.Steps = append(rj.Steps, sj)
		}
		out.Runs = append(out.Runs, rj)
	}
	return out
}

// WriteSummaryJSON writes Summary(runs) as indented JSON.
func WriteSummaryJSON(w io.Writer, runs []Run) error { return writeJSON(w, Summary(runs)) }

// CompareJSON is a comparison with a base run.
type CompareJSON struct {
	Base string   `json:"base"`
	Runs []string `json:"runs"`
	// LowRatio and HighRatio bound the ratios that count as the same as the base's.
	LowRatio  float64 `json:"low_ratio"`
	HighRatio float64 `json:"high_ratio"`
	// NotLikeForLike lists, per run that was not made like the base, the settings that differ.
	NotLikeForLike []RunDifferences `json:"not_like_for_like"`
	Rows           []CompareRow     `json:"rows"`
}

// RunDifferences are the settings in which a run differs from the base: Values are the
// base's, then the run's.
type RunDifferences struct {
	Run         string       `json:"run"`
	Differences []Difference `json:"differences"`
}

// Compare is the comparison of runs with a base as CompareJSON.
func Compare(base Run, runs []Run) CompareJSON {
	out := CompareJSON{Base: runName(base), LowRatio: LowRatio, HighRatio: HighRatio,
		NotLikeForLike: []RunDifferences{}, Rows: CompareRows(base, runs)}
	for _, r := range runs {
		out.Runs = append(out.Runs, runName(r))
		if d := Differences([]Run{base, r}); len(d) > 0 {
			out.NotLikeForLike = append(out.NotLikeForLike, RunDifferences{Run: runName(r), Differences: d})
		}
	}
	if out.Rows == nil {
		out.Rows = []CompareRow{}
	}
	return out
}

// WriteCompareJSON writes Compare(base, runs) as indented JSON.
func WriteCompareJSON(w io.Writer, base Run, runs []Run) error {
	return writeJSON(w, Compare(base, runs))
}

// GroupSummaryJSON is the summary of run groups (--repeat): the groups and, per group, step
// and figure, the statistics of its runs' values.
type GroupSummaryJSON struct {
	Groups []GroupJSON       `json:"groups"`
	Rows   []GroupSummaryRow `json:"rows"`
}

// GroupJSON is a group's group.json and its directory.
type GroupJSON struct {
	Path string `json:"path"`
	archive.Group
}

// WriteGroupSummaryJSON writes the summary of groups as indented JSON.
func WriteGroupSummaryJSON(w io.Writer, groups []Group) error {
	out := GroupSummaryJSON{Groups: []GroupJSON{}, Rows: GroupSummaryRows(groups)}
	for _, g := range groups {
		out.Groups = append(out.Groups, GroupJSON{Path: g.Path, Group: g.Meta})
	}
	return writeJSON(w, out)
}

// WriteGroupCompare writes the comparison of groups with a base group: GroupCompare as JSON, or
// its table followed, in text and markdown, by GroupCompareLegend.
func WriteGroupCompare(w io.Writer, base Group, groups []Group, format Format) error {
	cmp := GroupCompare(base, groups)
	if format == FormatJSON {
		return writeJSON(w, cmp)
	}
	if err := WriteTable(w, groupCompareTable(cmp), format); err != nil {
		return err
	}
	if format == FormatTSV { // data only
		return nil
	}
	sep := "\n"
	if format == FormatMarkdown {
		sep = "  \n"
	}
	_, err := io.WriteString(w, "\n"+strings.Join(GroupCompareLegend(cmp.Tested), sep)+"\n")
	return err
}

// GroupCompareLegend says how to read a group compare whose adjustment covered tested figures.
func GroupCompareLegend(tested int) []string {
	return []string{
		"ratio: the group's median / the base's. + better, - worse (by the figure's direction): a difference beyond the noise, q < 0.05",
		"~ after a ratio: no difference beyond the noise (q >= 0.05): the ratio may be chance",
		"p: Welch's t-test on the logarithms of the runs' values, two-sided, this figure alone; - : no test (fewer than 2 runs, or a run of 0)",
		fmt.Sprintf("q: p adjusted by Benjamini-Hochberg over the %d figures tested in this compare: calling q < 0.05 different keeps the expected share of false alarms among them at 5%%", tested),
		"n/c: not comparable: a run of the base or the group missed the step's gate. docs/repeats.md explains the statistics",
	}
}

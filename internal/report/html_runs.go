package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The report's Runs section: one line per run, the settings that differ between the runs, and
// every setting and provenance folded away.

// htmlRun is a run's line at the top of the report and in the Runs section.
type htmlRun struct {
	Name, Color, Workload, Target, Host, Start, Duration, Complete string
	Base                                                           bool
}

func htmlRuns(runs []Run, names []string, base int) []htmlRun {
	var out []htmlRun
	for i, r := range runs {
		m := r.Meta
		h := htmlRun{Name: names[i], Color: htmlColor(i), Base: i == base, Workload: m.Workload,
			Target:   strings.TrimSpace(m.Target.Engine + " " + m.Target.Version),
			Host:     fmt.Sprintf("%s, %d cores, %.1f GB", m.Host.Hostname, m.Host.Cores, m.Host.MemoryGB),
			Start:    m.Start.UTC().Format("2006-01-02 15:04 UTC"),
			Duration: "-", Complete: "yes"}
		if h.Target == "" {
			h.Target = m.Target.Kind
		}
		if !m.End.IsZero() {
			h.Duration = m.End.Sub(m.Start).Round(100 * time.Millisecond).String()
		}
		if !m.Complete {
			h.Complete = "no"
			if m.Error != "" {
				h.Complete = "no: " + m.Error
			}
		}
		out = append(out, h)
	}
	return out
}

// htmlDifferences is Differences(runs) as a table: setting, then each run's value. When the
// runs' target kinds differ, their DBMS settings go to a second table (shown folded): each kind
// has settings of its own.
func htmlDifferences(runs []Run, names []string) (main, dbms htmlTable) {
	main = htmlTable{Header: append([]string{"setting"}, names...)}
	dbms = htmlTable{Header: main.Header}
	kinds := false
	for _, r := range runs {
		kinds = kinds || r.Meta.Target.Kind != runs[0].Meta.Target.Kind
	}
	for _, d := range Differences(runs) {
		row := append([]string{d.Setting}, d.Values...)
		if kinds && strings.HasPrefix(d.Setting, "DBMS ") {
			dbms.Rows = append(dbms.Rows, row)
		} else {
			main.Rows = append(main.Rows, row)
		}
	}
	return main, dbms
}

// htmlRunNames are the runs' names, made unique.
func htmlRunNames(runs []Run) []string {
	seen := map[string]int{}
	var names []string
	for _, r := range runs {
		n := r.Meta.Name
		if n == "" {
			n = filepath.Base(filepath.Clean(r.Path))
		}
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s#%d", n, seen[n])
		}
		names = append(names, n)
	}
	return names
}

// htmlStepNames is the union of the runs' steps, in run order.
func htmlStepNames(runs []Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Meta.Steps {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// htmlProvenance is everything run.json says about each run: the folded table of the Runs
// section.
func htmlProvenance(runs []Run, names []string) htmlTable {
	t := htmlTable{Header: append([]string{""}, names...)}
	row := func(label string, f func(r Run) string) {
		cells := []string{label}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		t.Rows = append(t.Rows, cells)
	}
	kv := func(m map[string]any) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+"="+SettingValue(m[k]))
		}
		return strings.Join(parts, " ")
	}
	row("directory", func(r Run) string { return r.Path })
	row("workload", func(r Run) string { return r.Meta.Workload })
	row("target", func(r Run) string { return r.Meta.Target.Target })
	row("engine", func(r Run) string { return strings.TrimSpace(r.Meta.Target.Engine + " " + r.Meta.Target.Version) })
	row("DBMS settings", func(r Run) string { return kv(r.Meta.Target.Settings) })
	row("workload settings", func(r Run) string { return kv(r.Meta.Settings) })
	row("host", func(r Run) string {
		h := r.Meta.Host
		return fmt.Sprintf("%s: %s, %d cores, %.1f GB", h.Hostname, h.CPU, h.Cores, h.MemoryGB)
	})
	row("disk", func(r Run) string { return r.Meta.Host.Disk })
	row("OS", func(r Run) string { return strings.TrimSpace(r.Meta.Host.OS + ", kernel " + r.Meta.Host.Kernel) })
	row("dbperf", func(r Run) string {
		b := r.Meta.Dbperf
		s := fmt.Sprintf("%s commit %s (%s)", b.Version, b.Commit, b.GoVersion)
		if b.Modified {
			s += ", uncommitted changes"
		}
		return s
	})
	row("seed", func(r Run) string { return strconv.FormatUint(r.Meta.Seed, 10) })
	row("start", func(r Run) string { return r.Meta.Start.UTC().Format("2006-01-02 15:04:05 UTC") })
	row("steps", func(r Run) string {
		var s []string
		for _, st := range r.Meta.Steps {
			n := st.Name
			if !st.Complete {
				n += " (incomplete)"
			}
			s = append(s, n)
		}
		return strings.Join(s, ", ")
	})
	row("command", func(r Run) string { return strings.Join(r.Meta.Command, " ") })
	return t
}

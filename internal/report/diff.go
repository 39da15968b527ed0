package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
)

// Difference is a setting that differs between runs: a workload setting (run.json settings),
// the target's kind or version, a DBMS setting (target.settings), the host, the seed or the
// steps. Values has one entry per run, "-" where a run lacks the setting.
type Difference struct {
	Setting string   `json:"setting"`
	Values  []string `json:"values"`
}

// setting is one thing a run.json says about how the run was made.
type setting struct {
	name  string
	value func(r archive.Run) (string, bool)
}

// runSettings are the settings of the runs that Differences compares, in its order: the
// workload and target, the workload's settings, the DBMS's, the seed and steps, then the host.
func runSettings(runs []Run) []setting {
	fixed := func(name string, f func(r archive.Run) string) setting {
		return setting{name, func(r archive.Run) (string, bool) { v := f(r); return v, v != "" }}
	}
	s := []setting{
		fixed("workload", func(r archive.Run) string { return r.Workload }),
		fixed("target kind", func(r archive.Run) string { return r.Target.Kind }),
		fixed("target version", func(r archive.Run) string { return strings.TrimSpace(r.Target.Engine + " " + r.Target.Version) }),
	}
	keys := func(m func(r archive.Run) map[string]any) []string {
		set := map[string]bool{}
		for _, r := range runs {
			for k := range m(r.Meta) {
				set[k] = true
			}
		}
		var ks []string
		for k := range set {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	workload := func(r archive.Run) map[string]any { return r.Settings }
	dbms := func(r archive.Run) map[string]any { return r.Target.Settings }
	hasSteps := false
	for _, k := range keys(workload) {
		hasSteps = hasSteps || k == "steps"
		s = append(s, setting{k, func(r archive.Run) (string, bool) {
			v, ok := r.Settings[k]
			return SettingValue(v), ok
		}})
	}
	for _, k := range keys(dbms) {
		if isLocation(k) {
			continue
		}
		s = append(s, setting{"DBMS " + k, func(r archive.Run) (string, bool) {
			v, ok := r.Target.Settings[k]
			return SettingValue(v), ok
		}})
	}
	s = append(s, setting{"seed", func(r archive.Run) (string, bool) { return strconv.FormatUint(r.Seed, 10), true }})
	if !hasSteps { // a workload that does not list its steps among its settings
		s = append(s, fixed("steps", func(r archive.Run) string {
			var names []string
			for _, st := range r.Steps {
				names = append(names, st.Name)
			}
			return strings.Join(names, ",")
		}))
	}
	return append(s,
		fixed("host", func(r archive.Run) string { return r.Host.Hostname }),
		fixed("host CPU", func(r archive.Run) string { return r.Host.CPU }),
		fixed("host cores", func(r archive.Run) string { return strconv.Itoa(r.Host.Cores) }),
		fixed("host memory GB", func(r archive.Run) string { return strconv.FormatFloat(r.Host.MemoryGB, 'f', -1, 64) }),
		fixed("host kernel", func(r archive.Run) string { return r.Host.Kernel }),
		fixed("host disk", func(r archive.Run) string { d, _, _ := strings.Cut(r.Host.Disk, ", "); return d }), // not its free space
	)
}

// isLocation tells a DBMS setting that says where the data is (SQLite's path, a data
// directory) rather than how it is handled: two runs in two places are made alike.
func isLocation(key string) bool {
	return key == "path" || strings.HasSuffix(key, "_path") || strings.HasSuffix(key, "_dir") || strings.HasSuffix(key, "directory")
}

// Differences are the settings whose values are not the same in every run, in runSettings'
// order. None means the runs were made alike, as far as run.json tells.
func Differences(runs []Run) []Difference {
	var diffs []Difference
	for _, s := range runSettings(runs) {
		d := Difference{Setting: s.name}
		same := true
		for i, r := range runs {
			v, ok := s.value(r.Meta)
			if !ok {
				v = "-"
			}
			d.Values = append(d.Values, v)
			same = same && (i == 0 || v == d.Values[0])
		}
		if !same {
			diffs = append(diffs, d)
		}
	}
	return diffs
}

// NotLikeForLike says how a run's settings differ from the base's, in one line, "" when they
// do not: "not like for like: a vs b: rows 10000 vs 20000, DBMS shared_buffers 128MB vs 1GB".
func NotLikeForLike(base, run Run) string {
	diffs := Differences([]Run{base, run})
	if len(diffs) == 0 {
		return ""
	}
	// Two kinds of target have settings of their own: that they differ goes without listing.
	kinds := base.Meta.Target.Kind != run.Meta.Target.Kind
	var parts []string
	dbms := 0
	for _, d := range diffs {
		if kinds && strings.HasPrefix(d.Setting, "DBMS ") {
			dbms++
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s vs %s", d.Setting, d.Values[0], d.Values[1]))
	}
	if dbms > 0 {
		parts = append(parts, fmt.Sprintf("%d DBMS settings of each kind", dbms))
	}
	return fmt.Sprintf("not like for like: %s vs %s: %s", runName(base), runName(run), strings.Join(parts, ", "))
}

// SettingValue prints a setting read from JSON: numbers without exponents, lists joined by
// commas.
func SettingValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		var s []string
		for _, e := range x {
			s = append(s, SettingValue(e))
		}
		return strings.Join(s, ",")
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

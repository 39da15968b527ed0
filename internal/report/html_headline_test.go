package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/measure"
)

// TestStepPatterns: a step's declared insert patterns read index by index, the table named
// only where two tables' indexes of one name differ; a step without any shows nothing.
func TestStepPatterns(t *testing.T) {
	f := archive.Figures{InsertPatterns: []archive.InsertPattern{
		{Step: "l.i0", Table: "pi1", Index: "pk", Pattern: "nAsc:1, nRHS:1"},
		{Step: "l.i0", Table: "pi2", Index: "pk", Pattern: "nAsc:1, nRHS:1"},
		{Step: "l.i1", Table: "pi1", Index: "pk", Pattern: "nAsc:1, nRHS:1"},
		{Step: "l.i1", Table: "pi1", Index: "k1", Pattern: "inf"},
		{Step: "l.i1", Table: "pi2", Index: "k1", Pattern: "nAsc:1"},
	}}
	runs := []Run{{Meta: archive.Run{Figures: f}}}
	for step, want := range map[string]string{
		"l.i0":  "pk=(nAsc:1, nRHS:1)",
		"l.i1":  "pk=(nAsc:1, nRHS:1) · pi1.k1=(inf) · pi2.k1=(nAsc:1)",
		"qr100": "",
	} {
		if got := stepPatterns(runs, step); got != want {
			t.Errorf("%s: %q, want %q", step, got, want)
		}
	}
}

// headlineRun is a run of one step whose main op inserted at rate and whose p99 was p99.
func headlineRun(name string, rate, p99 float64) Run {
	figs := archive.Figures{Ops: []measure.OpType{{Name: "insert", Unit: "rows"}},
		Columns: []archive.Column{
			{Name: "ips", Op: "insert", Stat: archive.StatPerSec, Better: archive.HigherIsBetter, Compare: true},
			{Name: "i_p99", Op: "insert", Stat: archive.StatP99, Better: archive.LowerIsBetter, Compare: true},
		}}
	st := archive.Step{Step: "l.i0", Complete: true, Seconds: 10,
		Ops: map[string]measure.OpSummary{"insert": {Count: int64(rate * 10), Statements: 10, PerSec: rate, P99Us: p99}}}
	return Run{Path: name, Meta: archive.Run{Name: name, Workload: "insert", Figures: figs,
		Steps: []archive.StepStatus{{Name: "l.i0", Dir: "l.i0", Complete: true}}}, Steps: []archive.Step{st}}
}

// fakeWhy is an explanation of l.i0's inserts, 1000 -> 1500 a second: significant, or within
// the noise.
func fakeWhy(significant bool) *counters.Why {
	w := &counters.Why{Step: "l.i0", Op: "insert", BaseRate: 1000, RunRate: 1500, Repeats: [2]int{1, 1},
		Significant: significant, Test: "per-second noise ±60%"}
	if significant {
		w.Test = "per-second noise ±1%"
		w.Rows = []counters.WhyRow{
			{Name: "insert/s", Section: counters.SectionThroughput, Base: 1000, Run: 1500, Change: 0.41},
			{Name: "cpu_us_per_op", Section: counters.SectionCPU, Base: 10, Run: 10, Vital: true},
			{Name: "x per op", Section: counters.SectionDBMS, Base: 1, Run: 2, Change: 0.69},
			{Name: "y per op", Section: counters.SectionDBMS, Base: 1, Run: 3, Change: 1.1, InNoise: true},
		}
	}
	return w
}

// TestHeadlines: a step's headline has the main figure of each run, the ratio marked by its
// direction, the other figures that changed, and the why line only for a run whose main
// figure changed.
func TestHeadlines(t *testing.T) {
	runs := []Run{headlineRun("a", 1000, 500), headlineRun("b", 1500, 1000), headlineRun("c", 1010, 500)}
	asked := map[string]bool{}
	why := func(base, run Run, step string) *counters.Why {
		asked[run.Meta.Name] = true
		return fakeWhy(true)
	}
	hs := headlines(runs, []string{"a", "b", "c"}, 0, []htmlStep{{Name: "l.i0", Anchor: "step-0"}}, why)
	if len(hs) != 1 {
		t.Fatalf("%d headlines", len(hs))
	}
	h := hs[0]
	if h.Figure != "ips" || len(h.Values) != 3 || h.Values[0].Text != "1k" || h.Values[1].Text != "1.5k" ||
		h.Values[1].Ratio != "1.50×" || h.Values[1].Class != "better" || h.Values[2].Class != "" {
		t.Errorf("main figure: %s %+v", h.Figure, h.Values)
	}
	if len(h.Changed) != 1 || h.Changed[0].Text != "b i_p99 2.00" || h.Changed[0].Class != "worse" {
		t.Errorf("changed: %+v, want b's i_p99 2.00, worse", h.Changed)
	}
	if h.ChangedLabel != "moved 5% or more (one run each: not tested)" {
		t.Errorf("changed chips of single runs labelled %q: they are compare's 5%% mark, untested", h.ChangedLabel)
	}
	if !asked["b"] || asked["c"] || len(h.Why) != 1 || h.Why[0] != "b: per op, moved most: x per op 2x (1 -> 2)" {
		t.Errorf("why asked for %v: %q", asked, h.Why)
	}
	if len(h.Tables) != 1 || h.Tables[0].Run != "b" || h.Tables[0].Base != "a" || len(h.Tables[0].Rows) != 4 {
		t.Fatalf("tables %+v: want b's against a, 4 rows", h.Tables)
	}
	r := h.Tables[0].Rows
	if r[0].Section != "throughput" || r[1].Section != "CPU per op (µs)" || r[2].Section != "DBMS, ranked by change" ||
		!r[2].Moved || r[1].Moved || r[2].Ratio != "2x" || r[0].Run != "1500" {
		t.Errorf("rows %+v: want throughput, CPU, DBMS sections, x per op named by the line", r)
	}
	if r[3].Section != "" || r[3].Moved || r[3].Ratio != "3x ~" || !r[3].InNoise {
		t.Errorf("a change within the repeats' spread: %+v, want 3x ~, not named", r[3])
	}
	hs = headlines(runs, []string{"a", "b", "c"}, 0, []htmlStep{{Name: "l.i0", Anchor: "step-0"}},
		func(Run, Run, string) *counters.Why { return fakeWhy(false) })
	if h := hs[0]; len(h.Tables) != 0 || len(h.Why) != 1 || h.Why[0] != "b: not explained (per-second noise ±60%)" {
		t.Errorf("a change within the noise: %q, %d tables; want not explained and no table", h.Why, len(h.Tables))
	}
}

// TestHeadlineFromZero: a figure that rose from a base of 0 reads "0 → 1.2" in the changed
// chips ("i_p99 0 → 1.2k"), not "inf".
func TestHeadlineFromZero(t *testing.T) {
	runs := []Run{headlineRun("a", 1000, 0), headlineRun("b", 1000, 1200)}
	hs := headlines(runs, []string{"a", "b"}, 0, []htmlStep{{Name: "l.i0", Anchor: "step-0"}}, nil)
	if len(hs) != 1 || len(hs[0].Changed) != 1 || hs[0].Changed[0].Text != "i_p99 0 → 1.2k" {
		t.Errorf("changed: %+v, want i_p99 0 → 1.2k", hs)
	}
}

// TestCrashOnlyPage: crash runs alone make a page of their section, each verdict coloured,
// with no benchmark section.
func TestCrashOnlyPage(t *testing.T) {
	crash := []CrashRun{
		{Name: "pebble-sync=false-process", Target: "pebble", Settings: "sync=false", Kill: "process", Crashes: 3,
			CommitsPerSec: 51223, LostMin: 439, LostMedian: 969, LostMax: 2302, Suffix: 3, Verdict: "no promise: losses or failures in 3 of 3 crashes"},
		{Name: "sqlite-x", Target: "sqlite", Settings: "synchronous=FULL", Kill: "process", Crashes: 3, Verdict: "durable: 0 lost in 3 crashes"},
		{Name: "badger-y", Target: "badger", Settings: "SyncWrites=true", Kill: "power", Crashes: 3, LostMax: 5, Broken: true,
			Verdict: "DURABILITY PROMISE BROKEN in 3 of 3 crashes"},
	}
	var buf bytes.Buffer
	if err := HTML(&buf, nil, 0, HTMLOptions{Crash: crash}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="crash"`, "439 / 969 / 2302", "3 / 0", `class="verdict better">durable: 0 lost in 3 crashes`,
		`class="verdict worse">DURABILITY PROMISE BROKEN`, "1 broken"} {
		if !strings.Contains(page, want) {
			t.Errorf("the crash page lacks %q", want)
		}
	}
	for _, bad := range []string{`id="summary"`, `id="glance"`} {
		if strings.Contains(page, bad) {
			t.Errorf("the crash page has %s", bad)
		}
	}
	if i, j := strings.Index(page, "badger"), strings.Index(page, "pebble"); i < 0 || j < i {
		t.Errorf("rows not sorted by target")
	}
}

// TestGroupHeadlines: a group's headline has each group's median, "~" after a ratio within
// the repeats' noise, and the why line only for a significant change, given the compare's
// verdict.
func TestGroupHeadlines(t *testing.T) {
	group := func(name string, rates ...float64) Group {
		g := Group{Path: name}
		for _, r := range rates {
			g.Runs = append(g.Runs, headlineRun(name, r, 500))
		}
		return g
	}
	groups := []Group{group("a", 1000, 1010, 990, 1005), group("b", 2000, 2020, 1980, 2010), group("c", 1000, 1300, 800, 1100)}
	cmp := GroupCompare(groups[0], groups[1:])
	var tests []string
	why := func(base, g Group, step string, significant bool, test string) *counters.Why {
		tests = append(tests, g.Path+": "+test)
		return fakeWhy(true)
	}
	hs := groupHeadlines(cmp, groups, []string{"#1", "#2", "#3"}, []htmlStep{{Name: "l.i0"}}, why)
	if len(hs) != 1 || len(hs[0].Values) != 3 {
		t.Fatalf("headlines %+v", hs)
	}
	v := hs[0].Values
	if v[0].Text != "1k" || v[1].Text != "2k" || v[1].Ratio != "2.00×" || v[1].Class != "better" || !strings.HasSuffix(v[2].Ratio, " ~") {
		t.Errorf("values %+v: want medians 1k, 2k (2.00×, better) and c within the noise", v)
	}
	if hs[0].ChangedLabel != "changed significantly (q < 0.05)" {
		t.Errorf("changed chips of groups labelled %q", hs[0].ChangedLabel)
	}
	if len(tests) != 1 || !strings.HasPrefix(tests[0], "b: ips q = ") || len(hs[0].Why) != 1 || !strings.HasPrefix(hs[0].Why[0], "b: per op") ||
		len(hs[0].Tables) != 1 || hs[0].Tables[0].Base != "a" {
		t.Errorf("why asked %q, lines %q: want b's alone, with the compare's q", tests, hs[0].Why)
	}
}

// TestHeadlineGate: a main figure gated by the step's condition (the Insert Benchmark's qps
// by its insert rate) that a run missed reads "n/c", as in compare, and asks for no why.
func TestHeadlineGate(t *testing.T) {
	runs := []Run{headlineRun("a", 1000, 500), headlineRun("b", 2000, 500)}
	for i := range runs {
		runs[i].Meta.Figures.Gate = &archive.Gate{Column: "i_target", Met: "met", Achieved: "got", Target: "want"}
		runs[i].Meta.Figures.Columns[0].Gated = true
		runs[i].Steps[0].Workload = map[string]any{"met": i == 0, "got": 100.0, "want": 100.0}
	}
	asked := false
	hs := headlines(runs, []string{"a", "b"}, 0, []htmlStep{{Name: "l.i0"}}, func(Run, Run, string) *counters.Why { asked = true; return fakeWhy(true) })
	if v := hs[0].Values[1]; v.Ratio != NotComparable || v.Class != "nc" || asked {
		t.Errorf("b missed the gate: %+v, why asked %v; want %s, not comparable", v, asked, NotComparable)
	}
}

// TestOverviewLongOps: a main op whose operations last seconds (an index build) is drawn as
// the step's mean rate over its seconds, not as the one interval its units ended in; a step of
// short operations keeps its seconds' rates.
func TestOverviewLongOps(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := &htmlCSV{cols: map[string][]*float64{"t_sec": {f(1), f(2), f(3), f(3.5)}, "index_per_sec": {f(0), f(0), f(0), f(600000)}}}
	long := &htmlStepFiles{intervals: rows, summary: archive.Step{Seconds: 3.5,
		Ops: map[string]measure.OpSummary{"index": {Count: 300000, PerSec: 85714.3, P50Us: 3.4e6}}}}
	got := overviewBins(long, 5, 1)
	for k, v := range got {
		if k < 4 && (v == nil || *v != 85714.3) || k == 4 && v != nil {
			t.Errorf("bin %d: %v; want the mean rate over the step's 3.5 s", k, v)
		}
	}
	long.summary.Ops = map[string]measure.OpSummary{"index": {Count: 300000, PerSec: 85714.3, P50Us: 900}}
	if got := overviewBins(long, 5, 1); got[0] != nil || got[3] == nil || *got[3] != 600000 {
		t.Errorf("short operations: %v; want the seconds' rates", got)
	}
}

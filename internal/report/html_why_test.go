package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
)

// The archived pair of TestWhyBufferPool (cmd/dbperf): YCSB on MariaDB with a 256M and a 16M
// buffer pool; both steps' rates fell (load 0.343x, scans 0.241x) beyond their noise.
var whyPair = []string{"testdata/why/bp-256M", "testdata/why/bp-16M"}

// TestWhyTables: under each headline whose main figure changed significantly, and in its
// step's section, the page has compare --why's table: the rows counters.ExplainRuns ranks, in
// its order, top down from throughput through CPU, IO and context switches per op to the
// DBMS's figures; the buffer pool's misses per op are among them.
func TestWhyTables(t *testing.T) {
	runs, err := Load(whyPair)
	if err != nil {
		t.Fatal(err)
	}
	var o HTMLOptions
	o.Explain(counters.Vitals())
	p, err := buildHTMLPage(runs, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"load", "run"} {
		var h *htmlHeadline
		for i := range p.Headlines {
			if p.Headlines[i].Step == step {
				h = &p.Headlines[i]
			}
		}
		if h == nil || len(h.Tables) != 1 || len(h.Why) != 1 {
			t.Fatalf("%s: headline %+v, want one explanation with its table", step, h)
		}
		bs, rs := loadCounters(runs[0], step), loadCounters(runs[1], step)
		w := counters.ExplainRuns(bs, rs, counters.Vitals())
		tbl := h.Tables[0]
		if len(tbl.Rows) != len(w.Rows) || len(tbl.Rows) < 12 {
			t.Fatalf("%s: %d rows, compare --why has %d", step, len(tbl.Rows), len(w.Rows))
		}
		var sections []string
		for i, r := range tbl.Rows {
			if r.Name != w.Rows[i].Name || r.Run != counters.Num(w.Rows[i].Run) {
				t.Errorf("%s row %d: %s %s, compare --why's %s %s", step, i, r.Name, r.Run, w.Rows[i].Name, counters.Num(w.Rows[i].Run))
			}
			if r.Section != "" {
				sections = append(sections, r.Section)
			}
		}
		if got := strings.Join(sections, " / "); got != "throughput / CPU per op (µs) / IO per op / context switches per op / DBMS, ranked by change" {
			t.Errorf("%s: sections %s", step, got)
		}
		if !strings.Contains(h.Why[0], "moved most") || !strings.HasPrefix(h.Why[0], p.Runs[1].Name+": ") || tbl.Base != p.Runs[0].Name {
			t.Errorf("%s: line %q", step, h.Why[0])
		}
		for _, st := range p.Steps {
			if st.Name == step && (len(st.Why) != 1 || len(st.Why[0].Rows) != len(tbl.Rows)) {
				t.Errorf("%s: the step's section has %d tables, want the headline's", step, len(st.Why))
			}
		}
	}
	var buf bytes.Buffer
	if err := writeHTMLPage(&buf, p); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	glance, rest, _ := strings.Cut(page, `<section id="summary">`)
	for what, part := range map[string]string{"first screen": glance, "steps": rest} {
		if n := strings.Count(part, `<table class="data why">`); n != 2 {
			t.Errorf("the %s has %d explanation tables, want 2 (load, run)", what, n)
		}
		if !strings.Contains(part, "buffer_pool_reads_per_op") {
			t.Errorf("the %s does not name buffer_pool_reads_per_op", what)
		}
	}
	if i, j := strings.Index(glance, `id="overview"`), strings.Index(glance, `<details class="whyt">`); i < 0 || j < 0 {
		t.Errorf("the first screen lacks the overview chart (%d) or the folded tables (%d)", i, j)
	}
}

// TestStallTables: each stall of a step gets the counters that moved most in it: from
// summary.json's host.stall_counters when it has them, else ranked here from counters.csv.gz
// (blocks read at 13.5 times their median second in the stall of the test run, read a second
// past it: PostgreSQL's publishing delay, counters.Step.Late).
func TestStallTables(t *testing.T) {
	dir := counterRun(t)
	check := func(what, counter, change string, computed bool) {
		t.Helper()
		runs, err := Load([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		p, err := buildHTMLPage(runs, 0, HTMLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := p.Steps[0].Stalls
		if len(st) != 1 || len(st[0].Stalls) != 1 || st[0].Computed != computed || st[0].Stalls[0].Window != "5-6 s" {
			t.Fatalf("%s: stalls %+v, want one, 5-6 s", what, st)
		}
		if r := st[0].Stalls[0].Rows; len(r) == 0 || r[0].Name != counter || r[0].Change != change {
			t.Errorf("%s: rows %+v, want %s first, %s", what, r, counter, change)
		}
		var buf bytes.Buffer
		if err := writeHTMLPage(&buf, p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `<table class="data stalls">`) || !strings.Contains(buf.String(), "<td class=\"fig\">"+counter) {
			t.Errorf("%s: the page has no stall table naming %s", what, counter)
		}
	}
	check("computed", "db.blks_read", "13.5x", true)

	file := filepath.Join(dir, "qr100", "summary.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sum archive.Step
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	sum.Host = &archive.HostSummary{StallCounters: []archive.StallCounters{{FromSec: 5, ToSec: 6,
		Moved: []archive.MovedCounter{{Name: "checkpointer.write_time", Stall: 6100, Median: 0}}}}}
	if b, err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	check("summary.json's", "checkpointer.write_time", "from 0", false)
}

// TestWhyGroupTables: the report of two run groups (the buffer-pool pair, 3 repeats each)
// has, under the headline of a step whose median rate differs significantly, the table
// counters.ExplainGroups ranks for it, in its order and with its verdicts on the repeats'
// spread (marked "~": TestHeadlines checks the mark); and
// the stalls of its repeats with the counters summary.json names for them.
func TestWhyGroupTables(t *testing.T) {
	groups, ok, err := LoadGroups([]string{"testdata/why/g-256M", "testdata/why/g-16M"})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	var o HTMLOptions
	o.Explain(counters.Vitals())
	var buf bytes.Buffer
	if err := HTMLGroups(&buf, groups, 0, o); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	runs := append(append([]Run(nil), groups[0].Runs...), groups[1].Runs...)
	p, err := buildHTMLPage(runs, 0, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cmp := GroupCompare(groups[0], groups[1:])
	hs := groupHeadlines(cmp, groups, []string{"#1", "#2"}, p.Steps, o.WhyGroup)
	explained := 0
	for _, h := range hs {
		for _, tbl := range h.Tables {
			explained++
			w := counters.ExplainGroups(groupCounters(groups[0], h.Step), groupCounters(groups[1], h.Step), counters.Vitals(), true, "")
			if len(tbl.Rows) != len(w.Rows) {
				t.Fatalf("%s: %d rows, ExplainGroups %d", h.Step, len(tbl.Rows), len(w.Rows))
			}
			for i, r := range tbl.Rows {
				if r.Name != w.Rows[i].Name || r.InNoise != w.Rows[i].InNoise || r.InNoise != strings.HasSuffix(r.Ratio, " ~") {
					t.Errorf("%s row %d: %+v, ExplainGroups' %+v", h.Step, i, r, w.Rows[i])
				}
			}
		}
	}
	if explained == 0 || !strings.Contains(page, `<table class="data why">`) {
		t.Errorf("no step explained: %+v", hs)
	}
	stalls := 0
	for _, st := range p.Steps {
		for _, s := range st.Stalls {
			if s.Computed {
				t.Errorf("%s %s: stalls ranked here, summary.json has them", st.Name, s.Run)
			}
			stalls += len(s.Stalls) + len(s.More)
		}
	}
	if stalls == 0 || strings.Count(page, `<table class="data stalls">`) == 0 {
		t.Errorf("no stall tables for the repeats' stalls")
	}
}

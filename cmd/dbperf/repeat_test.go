package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// groupSummary is what the tests read of summary --format json of run groups.
type groupSummary struct {
	Rows []struct {
		Figure string  `json:"figure"`
		N      int     `json:"n"`
		Median float64 `json:"median"`
	} `json:"rows"`
}

// TestRepeatReports: every reading command takes run groups. summary --format json and compare
// --format json of groups carry numbers; compare's text ends with the legend of "~", p and q;
// summary --explain and report accept a group (both said "not a dbperf run directory").
func TestRepeatReports(t *testing.T) {
	dir := t.TempDir()
	for _, g := range []string{"a", "b"} {
		if r := run(t, dir, "run", "insert", "--repeat", "2", "--quiet", "--seed", "5", "--rows", "500", "--steps", "l.i0,l.x", "--out", g); r.code != 0 {
			t.Fatalf("repeat into %s: exit %d\n%s", g, r.code, r.stderr)
		}
	}
	var sum groupSummary
	s := run(t, dir, "summary", "--format", "json", "a")
	if err := json.Unmarshal([]byte(s.stdout), &sum); s.code != 0 || err != nil || len(sum.Rows) == 0 || sum.Rows[0].N != 2 || sum.Rows[0].Median <= 0 {
		t.Errorf("summary --format json of a group: exit %d, %v\n%s%s", s.code, err, s.stdout, s.stderr)
	}
	var cmp struct {
		Tested int `json:"tested"`
		Rows   []struct {
			Groups []struct {
				Ratio *float64 `json:"ratio"`
			} `json:"groups"`
		} `json:"rows"`
	}
	s = run(t, dir, "compare", "--format", "json", "--base", "a", "b")
	if err := json.Unmarshal([]byte(s.stdout), &cmp); s.code != 0 || err != nil || len(cmp.Rows) == 0 || cmp.Rows[0].Groups[0].Ratio == nil || cmp.Tested == 0 {
		t.Errorf("compare --format json of groups: exit %d, %v\n%s%s", s.code, err, s.stdout, s.stderr)
	}
	if s := run(t, dir, "compare", "--base", "a", "b"); s.code != 0 || !strings.Contains(s.stdout, "~ after a ratio") || !strings.Contains(s.stdout, "Benjamini-Hochberg") {
		t.Errorf("compare of groups has no legend: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "summary", "--explain", "a"); s.code != 0 || !strings.Contains(s.stdout, "ci95_low") || !strings.Contains(s.stdout, "ips") {
		t.Errorf("summary --explain of a group: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if s := run(t, dir, "report", "a", "b", "-o", "g.html"); s.code != 0 {
		t.Fatalf("report of groups: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "g.html"))
	if err != nil || !strings.Contains(string(page), `<section id="groups">`) || !strings.Contains(string(page), "b/rep-2") {
		t.Errorf("report of groups: no groups section or no run b/rep-2 (%v)", err)
	}
}

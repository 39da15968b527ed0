package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDefaultOutputsFit: the default text output of every command (live lines, step
// summaries, the closing summary, the kv reference rows, summary, compare, targets; --wide is
// exempt) fits 100 columns, with run directories named as dbperf names them.
func TestDefaultOutputsFit(t *testing.T) {
	dir := t.TempDir()
	const a, b = "runs/insert-sqlite-20261126-005423", "runs/insert-sqlite-20261126-005424"
	const lb, kv, kv2 = "runs/lb-sqlite-20261126-005423", "runs/kv-pebble-20261126-005423", "runs/kv-bbolt-20261126-005423"
	insert := []string{"run", "insert", "--rows", "500", "--l1-rows", "200", "--q-seconds", "0.3", "--out"}
	cmds := [][]string{
		append(insert, a),
		append(insert, b),
		{"run", "linkbench", "--maxid", "2000", "--requests", "200", "--out", lb},
		{"run", "kv", "--keys", "2000", "--step-seconds", "0.3", "--drain-seconds", "0.3", "--out", kv},
		{"run", "kv", "--target", "bbolt", "--keys", "2000", "--step-seconds", "0.3", "--drain-seconds", "0.3", "--out", kv2},
		{"summary", a}, {"summary", a, b}, {"summary", lb}, {"summary", kv}, {"summary", a, lb, kv},
		{"compare", "--base", a, b}, {"compare", "--base", kv, kv2},
		{"targets"},
	}
	for _, args := range cmds {
		r := run(t, dir, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(l); n > 100 {
				t.Errorf("%s: a line of %d columns:\n%s", args[0], n, l)
			}
		}
	}
}

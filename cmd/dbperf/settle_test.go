package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSettleScaleFromSizes: without --settle-scale the scale follows the sizes, never whether a
// size flag was typed: --rows 10000 (the default, given) keeps the small run's 0.01; sizes above
// the defaults get the reference's 1; --settle-scale given wins.
func TestSettleScaleFromSizes(t *testing.T) {
	cases := []struct {
		args []string
		want float64
	}{
		{nil, 0.01},
		{[]string{"--rows", "10000"}, 0.01},
		{[]string{"--rows", "500", "--l1-rows", "5000"}, 0.01},
		{[]string{"--rows", "10001"}, 1},
		{[]string{"--l1-rows", "5001"}, 1},
		{[]string{"--rows", "10000", "--settle-scale", "0.5"}, 0.5},
	}
	dir := t.TempDir()
	for i, c := range cases {
		out := filepath.Join("runs", string(rune('a'+i)))
		args := append([]string{"run", "insert", "--steps", "l.i0", "--rows", "100", "--out", out}, c.args...)
		if r := run(t, dir, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, r.code, r.stderr)
		}
		var meta struct{ Settings map[string]any }
		b, _ := os.ReadFile(filepath.Join(dir, out, "run.json"))
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		if got := meta.Settings["settle_scale"]; got != c.want {
			t.Errorf("%v: settle_scale %v, want %v", c.args, got, c.want)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldRunJSONPasswordNotShown: run.json written by an older dbperf kept the target's password
// (in the target and the command line); report, summary and compare never show it.
func TestOldRunJSONPasswordNotShown(t *testing.T) {
	dir := t.TempDir()
	for i, pw := range []string{"hunter2", "swordfish"} {
		out := filepath.Join("runs", string(rune('a'+i)))
		if r := run(t, dir, "run", "insert", "--steps", "l.i0", "--rows", "100", "--out", out); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		path := filepath.Join(dir, out, "run.json")
		b, _ := os.ReadFile(path)
		var meta map[string]any
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		target := "postgres://bench:" + pw + "@127.0.0.1:5432/ib"
		meta["target"].(map[string]any)["target"] = target
		meta["command"] = []string{"dbperf", "run", "insert", "--target", target, "--target=" + target}
		b, _ = json.Marshal(meta)
		os.WriteFile(path, b, 0o644)
	}
	for _, args := range [][]string{
		{"report", "runs/a", "runs/b", "-o", "r.html"},
		{"summary", "runs/a", "runs/b"}, {"summary", "--wide", "runs/a", "runs/b"}, {"summary", "--format", "json", "runs/a"},
		{"compare", "--base", "runs/a", "runs/b"}, {"compare", "--format", "json", "--base", "runs/a", "runs/b"},
	} {
		r := run(t, dir, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		for _, pw := range []string{"hunter2", "swordfish"} {
			if strings.Contains(r.stdout+r.stderr, pw) {
				t.Errorf("%v prints the password %s", args, pw)
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"hunter2", "swordfish"} {
		if strings.Contains(string(html), pw) {
			t.Errorf("the report holds the password %s", pw)
		}
	}
	if !strings.Contains(string(html), "postgres://bench@127.0.0.1:5432/ib") {
		t.Errorf("the report lacks the target without its password")
	}
}

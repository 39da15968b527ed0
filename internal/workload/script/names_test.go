package script

import (
	"strings"
	"testing"
)

// TestScriptNames: a script whose op type would break the archive, take dbperf's own op
// types or appear twice is refused by Validate, before any work, saying what to do.
func TestScriptNames(t *testing.T) {
	file := func(name string) Source { return Source{Name: name, Text: "SELECT 1;", Weight: 1} }
	builtin := func(name string) Source { return Source{Builtin: name, Weight: 1} }
	for _, tc := range []struct {
		sources []Source
		want    string // "" when accepted
	}{
		{[]Source{file("my op")}, `script name "my op": an op type holds only letters, digits, _, . and -: give --name NAME or rename the file`},
		{[]Source{file("x,y")}, `script name "x,y"`},
		{[]Source{file("a:b")}, `script name "a:b"`},
		{[]Source{file("")}, `script name ""`},
		{[]Source{file("failed")}, `script name "failed" is the op type of dbperf's own failed operations`},
		{[]Source{file("connect")}, `script name "connect" is the op type`},
		{[]Source{builtin("select-only"), file("select-only")}, "two scripts are named select-only: give the file another name (or --name NAME)"},
		{[]Source{builtin("sel"), builtin("select-only")}, "two scripts are named select-only"},
		{[]Source{file("a"), file("a")}, "two scripts are named a"},
		{[]Source{builtin("nope")}, `no built-in script "nope"`},
		{[]Source{file("my_op-2.v1"), builtin("tpcb"), file("simple")}, ""},
	} {
		cfg := DefaultConfig()
		cfg.Sources = tc.sources
		if tc.sources[0].Builtin != "" {
			cfg.Steps = []string{StepInit, StepRun}
		}
		err := cfg.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.sources, err, tc.want)
		}
	}
}

// TestPerStatementNamesDistinct: with --per-statement the op types are NAME.N; scripts named
// "a" and "a.1" (ops a.1, a.2 and a.1.1) still make distinct op types, so both are accepted.
func TestPerStatementNamesDistinct(t *testing.T) {
	two := "SELECT 1;\nSELECT 2;\n"
	b := newBench(t, &fakeStore{dialect: "postgres"}, Config{PerStatement: true,
		Sources: []Source{{Name: "a", Text: two, Weight: 1}, {Name: "a.1", Text: two, Weight: 1}}})
	seen := map[string]bool{}
	var names []string
	for _, o := range b.ops {
		if seen[o.Name] {
			t.Errorf("op type %s twice", o.Name)
		}
		seen[o.Name] = true
		names = append(names, o.Name)
	}
	if got := strings.Join(names, " "); got != "a.1 a.2 a.1.1 a.1.2 failed" {
		t.Errorf("op types %s", got)
	}
}

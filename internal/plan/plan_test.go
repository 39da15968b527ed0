package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/dbperf/dbperf/internal/driver/kvdriver"
	_ "github.com/dbperf/dbperf/internal/driver/sqldriver"
)

func TestExpand(t *testing.T) {
	runs, err := File{Runs: []Entry{
		{Server: "postgres", Configs: []string{"cached-by-dbms", "cached-by-os"}},
		{Server: "mariadb", Engine: "rocksdb", Configs: []string{"cached-by-os"}, Port: 3399},
		{Server: "mariadb"},
		{Target: "pebble:/data/ib"},
		{Target: "mysql://u:secret@h:3306/db?engine=rocksdb", Name: "remote"},
		{Target: "postgres://u:secret@h/db"},
	}}.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"postgres-cached-by-dbms", "postgres-cached-by-os", "mariadb-rocksdb-cached-by-os",
		"mariadb-innodb-cached-by-dbms", "pebble-data_ib", "remote", "postgres"}
	if len(runs) != len(want) {
		t.Fatalf("%d runs, want %d: %+v", len(runs), len(want), runs)
	}
	for i, r := range runs {
		if r.Name != want[i] {
			t.Errorf("run %d named %q, want %q", i, r.Name, want[i])
		}
		if strings.Contains(r.Name, "secret") {
			t.Errorf("run name %q has the password", r.Name)
		}
	}
	if s := runs[2].Server; s == nil || s.Kind != "mariadb" || s.Config != "cached-by-os" || s.Port != 3399 || runs[2].Engine != "rocksdb" {
		t.Errorf("mariadb run: %+v %+v", runs[2], s)
	}
	if runs[3].Engine != "innodb" {
		t.Errorf("mariadb's default engine: %q", runs[3].Engine)
	}
	if runs[4].Server != nil || runs[4].Target != "pebble:/data/ib" {
		t.Errorf("target run: %+v", runs[4])
	}
}

func TestExpandReportsEveryProblem(t *testing.T) {
	_, err := File{Runs: []Entry{
		{Target: "mongo:/x"},
		{Server: "oracle"},
		{Server: "mariadb", Engine: "myisam"},
		{Server: "postgres", Engine: "rocksdb"},
		{Server: "postgres", Configs: []string{"huge"}},
		{Target: "sqlite", Server: "postgres"},
		{},
		{Target: "pebble", Configs: []string{"cached-by-os"}},
		{Target: "sqlite:/a", Name: "x"},
		{Target: "sqlite:/b", Name: "x"},
	}}.Expand()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`run 1: unknown target "mongo:/x"`,
		`run 2: unknown server "oracle"`,
		`run 3: engine "myisam": mariadb runs innodb or rocksdb`,
		`run 4: engine goes with server mariadb only`,
		`run 5: --config "huge" is neither a named config`,
		`run 6 has both target and server`,
		`run 7 has neither target nor server`,
		`run 8: engine, configs, datadir and port go with a server`,
		`two runs are named "x"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if _, err := (File{}).Expand(); err == nil || !strings.Contains(err.Error(), "no runs") {
		t.Errorf("empty plan: %v", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"runs": [{"server": "postgres", "configs": ["cached-by-os"]}, {"target": "bbolt"}]}`), 0o644)
	runs, err := Load(good)
	if err != nil || len(runs) != 2 || runs[0].Name != "postgres-cached-by-os" || runs[1].Name != "bbolt" {
		t.Fatalf("Load = %+v, %v", runs, err)
	}
	typo := filepath.Join(dir, "typo.json")
	os.WriteFile(typo, []byte(`{"runs": [{"sever": "postgres"}]}`), 0o644)
	if _, err := Load(typo); err == nil || !strings.Contains(err.Error(), `unknown field "sever"`) {
		t.Errorf("a misspelt field: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "cannot read the plan") {
		t.Errorf("a missing plan: %v", err)
	}
}

func TestFromTargets(t *testing.T) {
	runs, err := FromTargets([]string{"sqlite", "pebble", "mysql://u@h/db?engine=innodb"})
	if err != nil || len(runs) != 3 || runs[2].Name != "mysql-innodb" {
		t.Fatalf("FromTargets = %+v, %v", runs, err)
	}
	if _, err := FromTargets([]string{"sqlite", "sqlite"}); err == nil || !strings.Contains(err.Error(), `two runs are named "sqlite"`) {
		t.Errorf("the same target twice: %v", err)
	}
	if _, err := FromTargets([]string{"mongo:/x"}); err == nil || strings.HasPrefix(err.Error(), "run 1") {
		t.Errorf("a bad target is reported as it is: %v", err)
	}
}

// TestLoadSaysWhere: a plan that is not valid JSON, or has a value of the wrong type, names
// the line and column of the mistake.
func TestLoadSaysWhere(t *testing.T) {
	cases := map[string]string{
		"{\"runs\": [\n  {\"target\": \"pebble\"},\n  {\"target\": \"bbolt\",}\n]}\n": "line 3, column 22: invalid character '}'",
		"{\"runs\": [\n  {\"target\": 5}\n]}\n":                                       "line 2, column 14: json: cannot unmarshal number",
		"{\"runs\": [\n  {\"target\": \"x\"":                                          "line 2, column 17: unexpected EOF",
	}
	for text, want := range cases {
		path := filepath.Join(t.TempDir(), "plan.json")
		os.WriteFile(path, []byte(text), 0o644)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", text, err, want)
		}
	}
}

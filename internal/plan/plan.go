// Package plan expands what to run into a list of runs: several targets, or a plan file of
// targets and managed servers crossed with configs, run one after the other unattended, each
// into its own run directory with a name that says what it was.
package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/server"
)

// File is a plan file (JSON):
//
//	{"runs": [
//	  {"server": "postgres", "configs": ["cached-by-dbms", "cached-by-os"]},
//	  {"server": "mariadb", "engine": "rocksdb", "configs": ["cached-by-dbms", "cached-by-os"]},
//	  {"target": "pebble:/data/ib", "name": "pebble"}
//	]}
type File struct {
	Runs []Entry `json:"runs"`
}

// Entry is one line of a plan: a target string, or a server dbperf starts once per config.
type Entry struct {
	Target  string   `json:"target,omitempty"`
	Server  string   `json:"server,omitempty"`  // postgres or mariadb
	Engine  string   `json:"engine,omitempty"`  // mariadb: innodb (default) or rocksdb
	Configs []string `json:"configs,omitempty"` // server configs; default cached-by-dbms
	DataDir string   `json:"datadir,omitempty"`
	Port    int      `json:"port,omitempty"`
	Name    string   `json:"name,omitempty"` // run directory name; default from the entry
}

// Run is one expanded run.
type Run struct {
	Name   string          // run directory name, e.g. mariadb-rocksdb-cached-by-os
	Target string          // target string; for a server, completed once it has started
	Server *server.Options // the server to start before the run (and stop after), or nil
	Engine string          // mariadb engine
}

// Load reads and expands a plan file, reporting every problem at once.
func Load(path string) ([]Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the plan: %v", err)
	}
	var f File
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("plan %s is not a valid plan file: %s%v (see 'dbperf run insert --help')", path, where(b, err), err)
	}
	runs, err := f.Expand()
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	return runs, nil
}

// where is "line L, column C: " of a JSON decoding error that has an offset (a syntax error, a
// value of the wrong type), else "".
func where(b []byte, err error) string {
	var offset int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		offset = int64(len(b))
	}
	if offset < 0 {
		return ""
	}
	offset = min(offset, int64(len(b)))
	line := 1 + bytes.Count(b[:offset], []byte("\n"))
	col := int(offset) - bytes.LastIndexByte(b[:offset], '\n')
	if offset > 0 && (syn != nil || typ != nil) { // the offset is just past what is wrong
		col = max(col-1, 1)
	}
	return fmt.Sprintf("line %d, column %d: ", line, col)
}

// Expand turns a plan into runs, one per target and one per server and config.
func (f File) Expand() ([]Run, error) {
	var runs []Run
	var errs []error
	if len(f.Runs) == 0 {
		errs = append(errs, errors.New(`no runs: give "runs": [{"target": ...} or {"server": ..., "configs": [...]}]`))
	}
	for i, e := range f.Runs {
		where := fmt.Sprintf("run %d", i+1)
		switch {
		case e.Target != "" && e.Server != "":
			errs = append(errs, fmt.Errorf("%s has both target and server: give one", where))
		case e.Target != "":
			if _, err := driver.Parse(e.Target); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
				continue
			}
			if e.Engine != "" || len(e.Configs) > 0 || e.DataDir != "" || e.Port != 0 {
				errs = append(errs, fmt.Errorf("%s: engine, configs, datadir and port go with a server, not a target", where))
			}
			name := e.Name
			if name == "" {
				name = NameOf(e.Target)
			}
			runs = append(runs, Run{Name: name, Target: e.Target})
		case e.Server != "":
			configs := e.Configs
			if len(configs) == 0 {
				configs = []string{"cached-by-dbms"}
			}
			engine := e.Engine
			switch {
			case e.Server == "mariadb" && engine == "":
				engine = "innodb"
			case e.Server == "mariadb" && engine != "innodb" && engine != "rocksdb":
				errs = append(errs, fmt.Errorf("%s: engine %q: mariadb runs innodb or rocksdb", where, engine))
			case e.Server != "mariadb" && engine != "":
				errs = append(errs, fmt.Errorf("%s: engine goes with server mariadb only", where))
			}
			for _, c := range configs {
				o := server.Options{Kind: e.Server, Config: c, DataDir: e.DataDir, Port: e.Port}
				if _, err := server.New(o); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", where, err))
					continue
				}
				parts := []string{e.Server}
				if engine != "" {
					parts = append(parts, engine)
				}
				if e.Name != "" {
					parts = []string{e.Name}
				}
				runs = append(runs, Run{Name: strings.Join(append(parts, configName(c)), "-"), Server: &o, Engine: engine})
			}
		default:
			errs = append(errs, fmt.Errorf("%s has neither target nor server", where))
		}
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Name] {
			errs = append(errs, fmt.Errorf("two runs are named %q: give them different names", r.Name))
		}
		seen[r.Name] = true
	}
	return runs, errors.Join(errs...)
}

// FromTargets makes one run per target string.
func FromTargets(targets []string) ([]Run, error) {
	var entries []Entry
	for _, t := range targets {
		if _, err := driver.Parse(t); err != nil {
			return nil, err // as it is: there are no plan lines to point at
		}
		entries = append(entries, Entry{Target: t})
	}
	return File{Runs: entries}.Expand()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// NameOf names a run after its target: the kind, the engine for mysql, the file or directory
// for an embedded engine; never the password.
func NameOf(t string) string {
	spec, err := driver.Parse(driver.RedactTarget(t)) // "engine=" can be in a password
	if err != nil {
		return "run"
	}
	name := spec.Kind
	if spec.DSN != "" {
		if i := strings.Index(spec.DSN, "engine="); i >= 0 {
			name += "-" + strings.SplitN(spec.DSN[i+len("engine="):], "&", 2)[0]
		}
	} else if spec.Path != "" {
		name += "-" + strings.Trim(unsafeName.ReplaceAllString(spec.Path, "_"), "_.")
	}
	return name
}

// configName is a config's name in a run name: a named config as is, a file by its base name.
func configName(c string) string {
	if _, ok := server.Configs[c]; ok {
		return c
	}
	base := c[strings.LastIndex(c, "/")+1:]
	return strings.TrimSuffix(unsafeName.ReplaceAllString(base, "_"), ".conf")
}

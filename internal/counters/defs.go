package counters

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// A definitions file (docs/counters.md, "Expressions"): one definition a line,
//
//	# a comment
//	[postgres]                                        the sections below apply to PostgreSQL
//	wal_bytes_per_op = rate(wal_bytes) / ops          # WAL written per op
//
// A heading names the targets its definitions apply to (comma-separated: a target's kind,
// its engine, innodb or myrocks for MySQL/MariaDB, * for all); a file without one applies to
// every target. The text after # on a definition's line says what it tells. A later
// definition of a name replaces an earlier one, so a user's file can redefine a vital sign.

// Def is one definition.
type Def struct {
	Name, Source, Doc string
	Expr              Expr
	Sections          []string
	Where             string // file:line
}

//go:embed vitals.conf
var vitalsConf string

// Vitals are the vital signs dbperf ships (vitals.conf).
func Vitals() []*Def {
	defs, err := Parse("vitals.conf", strings.NewReader(vitalsConf))
	if err != nil {
		panic(err) // a test parses it
	}
	return defs
}

// ParseFile reads a user's definitions file.
func ParseFile(path string) ([]*Def, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// Parse reads definitions; name is the file's, for errors.
func Parse(name string, r io.Reader) ([]*Def, error) {
	var defs []*Def
	sections := []string{"*"}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		where := fmt.Sprintf("%s:%d", name, line)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if strings.HasPrefix(text, "[") {
			head, ok := strings.CutSuffix(text, "]")
			if !ok {
				return nil, fmt.Errorf("%s: a heading is [name, ...]", where)
			}
			sections = nil
			for _, s := range strings.Split(head[1:], ",") {
				sections = append(sections, strings.ToLower(strings.TrimSpace(s)))
			}
			continue
		}
		d, err := parseDef(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		d.Sections, d.Where = sections, where
		defs = append(defs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return defs, checkCycles(defs)
}

func parseDef(text string) (*Def, error) {
	name, rest, ok := strings.Cut(text, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.IndexFunc(name, func(r rune) bool { return r > 127 || !isNameByte(byte(r)) }) >= 0 {
		return nil, fmt.Errorf("a definition is NAME = EXPRESSION  # what it tells (name of letters, digits, _ and .)")
	}
	if name == "ops" || name == "seconds" {
		return nil, fmt.Errorf("%s is a built-in variable", name)
	}
	src, doc, _ := strings.Cut(rest, "#")
	x, err := ParseExpr(strings.TrimSpace(src))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &Def{Name: name, Source: strings.TrimSpace(src), Doc: strings.TrimSpace(doc), Expr: x}, nil
}

// checkCycles refuses a definition that refers to itself through others.
func checkCycles(defs []*Def) error {
	by := map[string]*Def{}
	for _, d := range defs {
		by[d.Name] = d
	}
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(d *Def) error
	visit = func(d *Def) error {
		switch state[d.Name] {
		case 1:
			return fmt.Errorf("%s: %s refers to itself", d.Where, d.Name)
		case 2:
			return nil
		}
		state[d.Name] = 1
		var err error
		d.Expr.refs(func(n string) {
			if o, ok := by[n]; ok && err == nil {
				err = visit(o)
			}
		})
		state[d.Name] = 2
		return err
	}
	for _, d := range defs {
		if err := visit(d); err != nil {
			return err
		}
	}
	return nil
}

// Applicable are the definitions whose sections name the step's target, a later one of a
// name replacing an earlier one in its place.
func (s *Step) Applicable(defs []*Def) []*Def {
	var out []*Def
	at := map[string]int{}
	for _, d := range defs {
		if !slices.ContainsFunc(d.Sections, func(sec string) bool { return slices.Contains(s.Sections, sec) }) {
			continue
		}
		if i, ok := at[d.Name]; ok {
			out[i] = d
			continue
		}
		at[d.Name] = len(out)
		out = append(out, d)
	}
	return out
}

// knownSections are the section names a target can have (sections): "*", the target kinds,
// their engines in lower case, and innodb and myrocks.
var knownSections = []string{"*", "postgres", "postgresql", "mysql", "innodb", "myrocks", "sqlite",
	"pebble", "rocksdb", "badger", "bbolt", "synth", "synthetic"}

// DefWarnings are a user's definitions' silent mistakes, one sentence each: a section that
// names no target kind (its definitions apply to no run), and a counter or pattern that
// matches no counter in any step read where its definition applies (the definition is
// undefined there, so left out without a word). steps are every step the command read.
func DefWarnings(defs []*Def, steps []*Step) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range defs {
		file := d.Where[:max(strings.LastIndex(d.Where, ":"), 0)]
		for _, sec := range d.Sections {
			known := slices.Contains(knownSections, sec) || slices.ContainsFunc(steps, func(s *Step) bool { return slices.Contains(s.Sections, sec) })
			if key := file + "\x00" + sec; !known && !seen[key] {
				seen[key] = true
				out = append(out, fmt.Sprintf("%s: section [%s] names no target kind (%s), so its definitions apply to no run",
					file, sec, strings.Join(knownSections[1:], ", ")))
			}
		}
		var applies []*Step
		for _, s := range steps {
			if slices.ContainsFunc(d.Sections, func(sec string) bool { return slices.Contains(s.Sections, sec) }) {
				applies = append(applies, s)
			}
		}
		if len(applies) == 0 {
			continue
		}
		for _, ps := range callPatterns(d.Expr) {
			if !slices.ContainsFunc(applies, func(s *Step) bool {
				return slices.ContainsFunc(ps, func(p string) bool { return len(s.match(p)) > 0 })
			}) {
				out = append(out, fmt.Sprintf("%s: %s reads %s, which matches no counter in any step read (dbperf counters RUN --all lists them)",
					d.Where, d.Name, strings.Join(ps, " ")))
			}
		}
	}
	return out
}

// callPatterns are the patterns of each function call of an expression: a call reads
// something when any of its patterns matches (delta(a b) names two versions' counters).
func callPatterns(x Expr) [][]string {
	switch x := x.(type) {
	case call:
		return [][]string{x.patterns}
	case unary:
		return callPatterns(x.x)
	case binary:
		return append(callPatterns(x.l), callPatterns(x.r)...)
	}
	return nil
}

package archtest

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	module   = "github.com/dbperf/dbperf"
	internal = module + "/internal/"
	doc      = "docs/architecture.md"
)

// row is one line of the table: the packages it covers (relative to internal/, or cmd/...) and
// the internal packages they may import; any for every one.
type row struct {
	pkg     string
	allowed []string
	any     bool
}

var cell = regexp.MustCompile("`([^`]+)`")

// readTable reads the rows of the "Allowed imports" table.
func readTable(file string) ([]row, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Allowed imports"
			continue
		}
		cells := strings.Split(line, "|")
		if !in || len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		pkg := cell.FindStringSubmatch(cells[1])[1]
		r := row{pkg: pkg, any: strings.TrimSpace(cells[2]) == "any"}
		for _, m := range cell.FindAllStringSubmatch(cells[2], -1) {
			r.allowed = append(r.allowed, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 && sc.Err() == nil {
		return nil, fmt.Errorf("%s has no table under \"## Allowed imports\"", file)
	}
	return rows, sc.Err()
}

// match tells whether pattern (elements, or * for any one element) covers pkg, and what the
// stars stood for.
func match(pattern, pkg string) (stars []string, ok bool) {
	p, q := strings.Split(pattern, "/"), strings.Split(pkg, "/")
	if len(p) != len(q) {
		return nil, false
	}
	for i := range p {
		switch {
		case p[i] == "*":
			stars = append(stars, q[i])
		case p[i] != q[i]:
			return nil, false
		}
	}
	return stars, true
}

// rowFor is pkg's row: its own, else the pattern row with the fewest stars that covers it.
func rowFor(rows []row, pkg string) (row, []string, bool) {
	best, bestStars, found := row{}, []string(nil), false
	for _, r := range rows {
		stars, ok := match(r.pkg, pkg)
		if ok && (!found || len(stars) < len(bestStars)) {
			best, bestStars, found = r, stars, true
		}
	}
	return best, bestStars, found
}

// allows tells whether r lets a package whose stars are stars import imp (relative to internal/).
func (r row) allows(stars []string, imp string) bool {
	if r.any {
		return true
	}
	for _, a := range r.allowed {
		if len(stars) > 0 {
			a = strings.ReplaceAll(a, "*", stars[0])
		}
		if a == imp || (strings.HasSuffix(a, "/...") && (imp == strings.TrimSuffix(a, "/...") || strings.HasPrefix(imp, strings.TrimSuffix(a, "...")))) {
			return true
		}
	}
	return false
}

func (r row) String() string {
	if r.any {
		return fmt.Sprintf("%s may import any internal package", r.pkg)
	}
	if len(r.allowed) == 0 {
		return fmt.Sprintf("%s may import no internal package", r.pkg)
	}
	return fmt.Sprintf("%s may import only %s", r.pkg, strings.Join(r.allowed, ", "))
}

// check parses the imports of every non-test Go file below root's internal and cmd directories
// and returns a sentence for each import the table does not allow, and for each package without
// a row.
func check(root string, rows []row) ([]string, error) {
	var problems []string
	noRow := map[string]bool{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(file string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, file)
			rel = filepath.ToSlash(rel)
			pkg := strings.TrimPrefix(path.Dir(rel), "internal/")
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			r, stars, ok := rowFor(rows, pkg)
			if !ok {
				noRow[pkg] = true
				return nil
			}
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if !strings.HasPrefix(imp, internal) {
					continue
				}
				if target := strings.TrimPrefix(imp, internal); !r.allows(stars, target) {
					problems = append(problems, fmt.Sprintf("%s imports internal/%s, which %s's table of allowed imports forbids: %s",
						rel, target, doc, r))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for pkg := range noRow {
		problems = append(problems, fmt.Sprintf("package %s has no row in %s's table of allowed imports: add one saying what it may import", pkg, doc))
	}
	sort.Strings(problems)
	return problems, nil
}

// moduleRoot is the directory holding go.mod, above this test's.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestImportsFollowTheTable checks every internal import of every package's non-test files
// against docs/architecture.md's table of allowed imports.
func TestImportsFollowTheTable(t *testing.T) {
	root := moduleRoot(t)
	rows, err := readTable(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := check(root, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestAForbiddenImportFails: the check catches a forbidden import (the monitor importing the
// runner, which it once did), an import outside a workload's own subtree, and a package without
// a row, in a copy of a few files with the real table.
func TestAForbiddenImportFails(t *testing.T) {
	root := moduleRoot(t)
	rows, err := readTable(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(file string, imports ...string) {
		t.Helper()
		src := "package " + path.Base(path.Dir(file)) + "\n\nimport (\n"
		for _, imp := range imports {
			src += "\t_ \"" + module + "/" + imp + "\"\n"
		}
		src += ")\n"
		if err := os.MkdirAll(filepath.Join(dir, path.Dir(file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/monitor/host.go", "internal/hostproc", "internal/runner")
	write("internal/monitor/host_test.go", "internal/runner") // tests may import more
	write("internal/workload/insertbench/ibsql/ibsql.go", "internal/workload/insertbench", "internal/driver/wire", "internal/workload/linkbench")
	write("internal/workload/linkbench/lbsql/lbsql.go", "internal/workload/linkbench/lbkv")
	write("internal/newpkg/newpkg.go")
	write("cmd/dbperf/main.go", "internal/runner", "internal/monitor")
	problems, err := check(dir, rows)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"internal/monitor/host.go imports internal/runner, which docs/architecture.md's table of allowed imports forbids: monitor may import only archive, measure, hostproc, counters",
		"internal/workload/insertbench/ibsql/ibsql.go imports internal/workload/linkbench, which docs/architecture.md's table of allowed imports forbids: workload/*/* may import only archive, measure, runner, workload, workload/*/..., driver, driver/sqldriver, driver/kvdriver, driver/wire",
		"package newpkg has no row in docs/architecture.md's table of allowed imports: add one saying what it may import",
	}
	slices.Sort(want)
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

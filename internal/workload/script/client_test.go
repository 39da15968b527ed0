package script

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// fakeStore records what its connections run; fail, if set, decides a statement's error.
type fakeStore struct {
	dialect string
	sent    [][]string // per connection
	args    [][][]string
	results map[string][]Result // by statement text
	fail    func(conn int, text string) error
	inTx    bool
}

type fakeErr struct{ kind string }

func (e fakeErr) Error() string { return "fake " + e.kind }

func (f *fakeStore) Dialect() string { return f.dialect }
func (f *fakeStore) Placeholder(i int) string {
	if f.dialect == "postgres" {
		return "$" + strconv.Itoa(i)
	}
	return "?"
}
func (f *fakeStore) Outcome(err error) (string, bool) {
	var fe fakeErr
	if errors.As(err, &fe) {
		return fe.kind, fe.kind == "deadlock" || fe.kind == "serialization"
	}
	return "other", false
}
func (f *fakeStore) Connect(context.Context) (Conn, error) {
	f.sent = append(f.sent, nil)
	f.args = append(f.args, nil)
	return &fakeConn{f: f, n: len(f.sent) - 1}, nil
}
func (f *fakeStore) Exec(context.Context, ...string) error                 { return nil }
func (f *fakeStore) QueryRow(context.Context, string) ([]string, error)    { return []string{"0"}, nil }
func (f *fakeStore) Load(context.Context, string, []string, [][]any) error { return nil }

type fakeConn struct {
	f *fakeStore
	n int
}

func (c *fakeConn) Exec(_ context.Context, st *Stmt) ([]Result, error) {
	text := st.Text
	if st.Mode == ModeSimple {
		text = string(st.SQL)
	}
	c.f.sent[c.n] = append(c.f.sent[c.n], text)
	var args []string
	for _, a := range st.Params {
		if a == nil {
			args = append(args, "<NULL>")
		} else {
			args = append(args, string(a))
		}
	}
	c.f.args[c.n] = append(c.f.args[c.n], args)
	if c.f.fail != nil {
		if err := c.f.fail(c.n, text); err != nil {
			return nil, err
		}
	}
	return c.f.results[text], nil
}
func (c *fakeConn) Rollback(context.Context) error {
	c.f.sent[c.n] = append(c.f.sent[c.n], "ROLLBACK")
	return nil
}
func (c *fakeConn) InTransaction() bool { return c.f.inTx }
func (c *fakeConn) Close() error        { return nil }

// runClients runs each client's transactions in turn and returns the ops they reported.
func runClients(t *testing.T, b *Bench, txPerClient int) [][]measure.Op {
	t.Helper()
	clients, err := b.clients(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ops [][]measure.Op
	for _, c := range clients {
		var mine []measure.Op
		for c.st.Transactions+c.st.Failed < int64(txPerClient) {
			op, _, err := c.do(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			mine = append(mine, op)
		}
		ops = append(ops, mine)
	}
	return ops
}

func newBench(t *testing.T, f *fakeStore, cfg Config) *Bench {
	t.Helper()
	if cfg.Clients == 0 {
		cfg.Clients = 1
	}
	if cfg.MaxTries == 0 {
		cfg.MaxTries = 1
	}
	cfg.Transactions, cfg.Scale, cfg.Steps = 1, 1, []string{StepRun}
	b, err := New(cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pgbenchScript uses every random function and the automatic variables.
const pgbenchScript = `\set a random(1, 1000000)
\set z random_zipfian(1, 1000, 1.5)
\set e random_exponential(1, 1000, 2.5)
\set g random_gaussian(1, 1000, 2.5)
\set h hash(:a)
\set f hash_fnv1a(:a, 5)
\set p permute(:a, 1000)
\set d 7.0/3
SELECT :a, :z, :e, :g, :h, :f, :p, :default_seed, :random_seed, :d;
`

// TestMatchesPgbench: with the same seed, each client sends exactly what pgbench 15 sends. Each
// row's lines are what this printed (PG 15.18), one per client:
//
//	pgbench -n -t 1 -c N --random-seed=42 -d -f t1.sql   (t1.sql = the row's script)
func TestMatchesPgbench(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         [][]string
	}{
		{"random", pgbenchScript, [][]string{
			{"SELECT 668251, 1, 23, 641, -2846345704759875020, 8042475719041854027, 945, 4482733528210176216, 42, 2.33333333333333"},
			{"SELECT 844242, 2, 121, 440, 5343936370566475051, 203397801721678545, 346, 4482733528210176216, 42, 2.33333333333333"},
		}},
		// PostgreSQL's snprintf (src/port/snprintf.c, fmtfloat), not glibc's inf and nan
		{"infinity", "\\set a 1.0/0\n\\set b -1.0/0\n\\set c sqrt(-1.0)\n\\set d ln(0)\nSELECT :a, :b, :c, :d, 1e300*1e300;\n",
			[][]string{{"SELECT Infinity, -Infinity, NaN, -Infinity, 1e300*1e300"}}},
	} {
		f := &fakeStore{dialect: "postgres"}
		b := newBench(t, f, Config{Sources: []Source{{Name: "t1", Text: tc.script, Weight: 1}}, Clients: len(tc.want), Seed: 42})
		runClients(t, b, 1)
		if !reflect.DeepEqual(f.sent, tc.want) {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, f.sent, tc.want)
		}
	}
}

// TestMatchesPgbenchLive runs the installed pgbench beside the clients, 3 clients x 20
// transactions, and compares every statement: it needs pgbench on PATH and the test server.
func TestMatchesPgbenchLive(t *testing.T) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if _, err := exec.LookPath("pgbench"); err != nil || dsn == "" {
		t.Skip("needs pgbench on PATH and DBPERF_TEST_POSTGRES")
	}
	file := t.TempDir() + "/t1.sql"
	if err := os.WriteFile(file, []byte(pgbenchScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pgbench", "-n", "-t", "20", "-c", "3", "-j", "1", "--random-seed=7", "-d", "-f", file, dsn).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`client (\d) sending (SELECT .*);`)
	got := make([][]string, 3)
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		got[m[1][0]-'0'] = append(got[m[1][0]-'0'], m[2])
	}
	f := &fakeStore{dialect: "postgres"}
	b := newBench(t, f, Config{Sources: []Source{{Name: "t1", Text: pgbenchScript, Weight: 1}}, Clients: 3, Seed: 7})
	runClients(t, b, 20)
	if !reflect.DeepEqual(f.sent, got) {
		t.Errorf("dbperf sent\n%q\npgbench sent\n%q", f.sent, got)
	}
}

// TestQueryModes: simple writes values into the text (an unset variable stays as written);
// extended and prepared send placeholders and text arguments (an unset variable is NULL).
func TestQueryModes(t *testing.T) {
	text := "\\set x 3\nSELECT :x, :y, ':x', 1::int;"
	for _, tc := range []struct {
		mode     Mode
		dialect  string
		wantText string
		wantArgs []string
	}{
		{ModeSimple, "postgres", "SELECT 3, :y, '3', 1::int", nil},
		{ModeExtended, "postgres", "SELECT $1, $2, '$3', 1::int", []string{"3", "<NULL>", "3"}},
		{ModePrepared, "mysql", "SELECT ?, ?, '?', 1::int", []string{"3", "<NULL>", "3"}},
	} {
		f := &fakeStore{dialect: tc.dialect}
		b := newBench(t, f, Config{Sources: []Source{{Name: "m", Text: text, Weight: 1}}, Mode: tc.mode})
		runClients(t, b, 1)
		if f.sent[0][0] != tc.wantText || !reflect.DeepEqual(f.args[0][0], tc.wantArgs) {
			t.Errorf("%s: sent %q %q, want %q %q", tc.mode, f.sent[0][0], f.args[0][0], tc.wantText, tc.wantArgs)
		}
	}
}

// TestBranchesAndResults: \if chains, \gset (with prefix), \aset, -D definitions, \sleep.
func TestBranchesAndResults(t *testing.T) {
	text := `SELECT 2 AS n \gset p_
\if :p_n = 1
SELECT 'one';
\elif :p_n = 2
SELECT 'two';
\if :def > 5
SELECT 'big';
\else
SELECT 'small';
\endif
\else
SELECT 'other';
\endif
SELECT 1 AS a \; SELECT 2 AS b \aset
\sleep :a ms
SELECT :a + :b, :client_id, :scale;
`
	f := &fakeStore{dialect: "postgres", results: map[string][]Result{
		"SELECT 2 AS n":                 {{Cols: []string{"n"}, Rows: [][]string{{"2"}}}},
		"SELECT 1 AS a ; SELECT 2 AS b": {{Cols: []string{"a"}, Rows: [][]string{{"1"}}}, {Cols: []string{"b"}, Rows: [][]string{{"9"}, {"2"}}}},
	}}
	var slept []time.Duration
	cfg := Config{Sources: []Source{{Name: "s", Text: text, Weight: 1}}, Defines: []string{"def=3"},
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	b := newBench(t, f, cfg)
	runClients(t, b, 1)
	want := []string{"SELECT 2 AS n", "SELECT 'two'", "SELECT 'small'", "SELECT 1 AS a ; SELECT 2 AS b", "SELECT 1 + 2, 0, 1"}
	if !reflect.DeepEqual(f.sent[0], want) || !reflect.DeepEqual(slept, []time.Duration{time.Millisecond}) {
		t.Errorf("sent %q, slept %v; want %q, 1ms", f.sent[0], slept, want)
	}
}

// TestGsetNeedsOneRow: \gset of zero or two rows aborts (the step fails).
func TestGsetNeedsOneRow(t *testing.T) {
	f := &fakeStore{dialect: "postgres", results: map[string][]Result{"SELECT x": {{Cols: []string{"x"}, Rows: [][]string{{"1"}, {"2"}}}}}}
	b := newBench(t, f, Config{Sources: []Source{{Name: "g", Text: "SELECT x \\gset", Weight: 1}}})
	clients, _ := b.clients(context.Background())
	if _, _, err := clients[0].do(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "expects one row, got 2") {
		t.Errorf("got %v", err)
	}
}

// TestRetries: a serialization failure is rolled back and the transaction retried from its
// start with the same random values; after --max-tries it counts as failed and the client
// goes on; any other error fails.
func TestRetries(t *testing.T) {
	text := "\\set a random(1, 1000000)\nBEGIN;\nUPDATE t SET v = :a;\nEND;"
	calls := 0
	f := &fakeStore{dialect: "postgres", fail: func(_ int, q string) error {
		if strings.HasPrefix(q, "UPDATE") {
			calls++
			if calls <= 2 {
				return fakeErr{"serialization"}
			}
		}
		return nil
	}}
	b := newBench(t, f, Config{Sources: []Source{{Name: "r", Text: text, Weight: 1}}, MaxTries: 3})
	ops := runClients(t, b, 1)
	sent := f.sent[0]
	if len(sent) != 9 || sent[2] != "ROLLBACK" || sent[1] != sent[4] || sent[4] != sent[7] || ops[0][0] != 0 {
		t.Errorf("sent %q ops %v: want the same UPDATE three times with ROLLBACKs", sent, ops)
	}

	// Always failing: 2 tries, then the transaction counts as failed and the client goes on.
	f2 := &fakeStore{dialect: "postgres", fail: func(_ int, q string) error {
		if strings.HasPrefix(q, "UPDATE") {
			return fakeErr{"deadlock"}
		}
		return nil
	}}
	b2 := newBench(t, f2, Config{Sources: []Source{{Name: "r", Text: text, Weight: 1}}, MaxTries: 2})
	clients, _ := b2.clients(context.Background())
	op, units, err := clients[0].do(context.Background(), 0)
	if err != nil || op != b2.failed || units != 1 {
		t.Fatalf("got op %d units %d err %v; want the failed op", op, units, err)
	}
	if s := clients[0].st; s.Failed != 1 || s.Deadlock != 2 || s.Retries != 1 || s.Retried != 1 || s.Transactions != 0 {
		t.Errorf("stats %+v", s)
	}

	f3 := &fakeStore{dialect: "postgres", fail: func(_ int, q string) error { return fakeErr{"other"} }}
	b3 := newBench(t, f3, Config{Sources: []Source{{Name: "r", Text: text, Weight: 1}}, MaxTries: 5})
	clients3, _ := b3.clients(context.Background())
	if _, _, err := clients3[0].do(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a non-retryable error: got %v, want it with its line", err)
	}
}

// TestPerStatement: each SQL command is its own op type, one per call, meta-commands run with
// the command before them; a retry re-runs the transaction up to the failed command.
func TestPerStatement(t *testing.T) {
	text := "\\set a 1\nBEGIN;\nUPDATE t SET v = :a;\n\\set b 2\nEND;"
	failed := false
	f := &fakeStore{dialect: "postgres", fail: func(_ int, q string) error {
		if strings.HasPrefix(q, "UPDATE") && !failed {
			failed = true
			return fakeErr{"serialization"}
		}
		return nil
	}}
	b := newBench(t, f, Config{Sources: []Source{{Name: "p", Text: text, Weight: 1}}, PerStatement: true, MaxTries: 2})
	var names []string
	for _, o := range b.ops {
		names = append(names, o.Name)
	}
	if !reflect.DeepEqual(names, []string{"p.1", "p.2", "p.3", "failed"}) {
		t.Fatalf("ops %v", names)
	}
	ops := runClients(t, b, 1)
	if !reflect.DeepEqual(ops[0], []measure.Op{0, 1, 2}) {
		t.Errorf("ops %v, want one per statement", ops[0])
	}
	want := []string{"BEGIN", "UPDATE t SET v = 1", "ROLLBACK", "BEGIN", "UPDATE t SET v = 1", "END"}
	if !reflect.DeepEqual(f.sent[0], want) {
		t.Errorf("sent %q, want %q", f.sent[0], want)
	}
}

// TestWeights: scripts are drawn in proportion to their weights.
func TestWeights(t *testing.T) {
	f := &fakeStore{dialect: "postgres"}
	b := newBench(t, f, Config{Sources: []Source{{Name: "a", Text: "SELECT 1;", Weight: 3}, {Name: "b", Text: "SELECT 2;", Weight: 1}, {Name: "z", Text: "SELECT 3;", Weight: 0}}})
	ops := runClients(t, b, 4000)
	n := map[measure.Op]int{}
	for _, o := range ops[0] {
		n[o]++
	}
	if n[2] != 0 || n[0] < 2800 || n[0] > 3200 {
		t.Errorf("counts %v, want about 3000, 1000, 0", n)
	}
}

// TestEndInsideTransaction: a script that ends with its transaction open aborts, as pgbench.
func TestEndInsideTransaction(t *testing.T) {
	f := &fakeStore{dialect: "postgres", inTx: true}
	b := newBench(t, f, Config{Sources: []Source{{Name: "o", Text: "BEGIN;", Weight: 1}}})
	clients, _ := b.clients(context.Background())
	if _, _, err := clients[0].do(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "inside a transaction block") {
		t.Errorf("got %v", err)
	}
}

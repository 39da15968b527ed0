package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCompareWhy: a copy of a run whose l.i1 did half the inserts in the same time (so every
// counter per insert doubled, its rate a second the same) is explained for l.i1 only: its
// rate, the host's figures per op, then the counters per op, each marked "=/s" (steady: it
// moved per op only as the insert rate did) and none named; the steps that did not change are
// not explained.
func TestCompareWhy(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "run", "insert", "--target", "pebble", "--rows", "3000", "--l1-rows", "1000", "--steps", "l.i0,l.x,l.i1", "--out", "runs/a", "--quiet")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(dir, "runs/a"), filepath.Join(dir, "runs/b")).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	halveTotals(t, filepath.Join(dir, "runs/b/l.i1/intervals.csv"))
	halveSummary(t, filepath.Join(dir, "runs/b/l.i1/summary.json"))
	c := run(t, dir, "compare", "--base", "runs/a", "runs/b", "--why")
	if c.code != 0 {
		t.Fatalf("exit %d: %s", c.code, c.stderr)
	}
	why := c.stdout[strings.Index(c.stdout, "why runs/b differs from runs/a"):]
	for _, want := range []string{"l.i1: insert/s ", "(0.5x, ", "; no figure per op moved by 5% or more but as the main rate did: ",
		"cpu_us_per_op", "client_cpu_us_per_op", "client_user_us_per_op", "client_sys_us_per_op", "other_cpu_us_per_op",
		"\n  wal_bytes_per_op ", " 2x =/s\n"} {
		if !strings.Contains(why, want) {
			t.Errorf("--why lacks %q:\n%s", want, why)
		}
	}
	if strings.Contains(why, "l.i0:") || strings.Contains(why, "l.x:") {
		t.Errorf("--why explains a step that did not change:\n%s", why)
	}
	if c := run(t, dir, "compare", "--base", "runs/a", "runs/a", "--why"); c.code == 0 {
		t.Error("compare of a run with itself: exit 0")
	}
	// --defs: a user's definition is ranked with the vital signs; bad input is one sentence.
	os.WriteFile(filepath.Join(dir, "mine.conf"), []byte("[*]\nmy_cs_per_op = rate(host.cs) / ops  # mine\n"), 0o644)
	if c := run(t, dir, "compare", "--base", "runs/a", "runs/b", "--why", "--defs", "mine.conf"); c.code != 0 || !strings.Contains(c.stdout, "  my_cs_per_op ") {
		t.Errorf("--defs: exit %d, %s\n%s", c.code, c.stderr, c.stdout)
	}
	// A misspelt section or counter in --defs is one warning each on stderr, and still exit 0.
	os.WriteFile(filepath.Join(dir, "typo.conf"), []byte("[pebbel]\nx = rate(op.insert) / ops\n[pebble]\ny = rate(pebble.compact.countt) / ops\n"), 0o644)
	for _, cmd := range [][]string{{"compare", "--base", "runs/a", "runs/b", "--why"}, {"counters", "runs/a"}} {
		c := run(t, dir, append(cmd, "--defs", "typo.conf")...)
		lines := strings.Split(strings.TrimSpace(c.stderr), "\n")
		if c.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "warning: typo.conf: section [pebbel] names no target kind") ||
			!strings.HasPrefix(lines[1], "warning: typo.conf:4: y reads pebble.compact.countt, which matches no counter") {
			t.Errorf("%s --defs typo.conf: exit %d, stderr %q", cmd[0], c.code, c.stderr)
		}
	}
	if c := run(t, dir, "counters", "runs/a", "--defs", "mine.conf"); c.stderr != "" {
		t.Errorf("counters --defs mine.conf warns: %q", c.stderr)
	}
	for args, want := range map[string]string{
		"--defs mine.conf":       "--defs is read by --why: add --why, or drop --defs",
		"--why --defs nope.conf": "nope.conf: no such file",
		"--why --format json":    "--why prints text after the table: use --format text or markdown (got json)",
	} {
		c := run(t, dir, append([]string{"compare", "--base", "runs/a", "runs/b"}, strings.Fields(args)...)...)
		if c.code == 0 || !strings.Contains(c.stderr, want) {
			t.Errorf("%s: exit %d, %q; want %q", args, c.code, c.stderr, want)
		}
	}
}

// halveTotals halves every op type's running total and rate in an intervals.csv.
func halveTotals(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		for i, h := range rows[0] {
			if strings.HasSuffix(h, "_total") || strings.HasSuffix(h, "_per_sec") {
				v, _ := strconv.ParseFloat(row[i], 64)
				row[i] = strconv.FormatFloat(v/2, 'f', -1, 64)
			}
		}
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.WriteAll(rows)
	out.Close()
}

// halveSummary halves every op type's rate in a summary.json: the rate --why's line quotes.
func halveSummary(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, o := range sum["ops"].(map[string]any) {
		o := o.(map[string]any)
		o["per_sec"] = o["per_sec"].(float64) / 2
	}
	if b, err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWhyBufferPool: the same read-heavy step on a private MariaDB twice, with a buffer pool
// larger than the data (256M) and smaller (16M, the least dbperf allows), O_DIRECT in both so
// that a miss waits for the device: compare --why explains the slower step by the buffer
// pool's reads per op, among the first DBMS figures. YCSB's short scans (workload e, uniform)
// of 6000 records of 4000 bytes: about 35 MB of pages. About 40 s on a busy 2-core host.
func TestWhyBufferPool(t *testing.T) {
	if os.Getenv("DBPERF_TEST_MYSQL") == "" {
		if testing.Short() {
			t.Skip("no MariaDB with -short")
		}
		t.Fatal("DBPERF_TEST_MYSQL is not set: run scripts/test.sh (this test starts its own MariaDB)")
	}
	dir, parent := t.TempDir(), dataParent(t)
	const port = "13419"
	var configs []string
	for _, pool := range []string{"256M", "16M"} {
		f := filepath.Join(parent, "pool-"+pool+".cnf")
		os.WriteFile(f, []byte("innodb_buffer_pool_size = "+pool+"\ninnodb_flush_method = O_DIRECT\ninnodb_flush_log_at_trx_commit = 2\n"), 0o644)
		configs = append(configs, `"`+f+`"`)
	}
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"runs": [{"server": "mariadb", "engine": "innodb", "port": `+port+`, "datadir": "`+parent+`/mdb", "configs": [`+strings.Join(configs, ", ")+`]}]}`), 0o644)
	t.Cleanup(func() { run(t, dir, "server", "stop", "mariadb", "--datadir", parent+"/mdb") })
	r := run(t, dir, "run", "ycsb", "--plan", plan, "--workload", "e", "--request-distribution", "uniform", "--records", "6000",
		"--field-count", "1", "--field-length", "4000", "--step-seconds", "6", "--threads", "2", "--seed", "1", "--out", "runs/bp", "--quiet")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	c := run(t, dir, "compare", "--base", "runs/bp/mariadb-innodb-pool-256M.cnf", "runs/bp/mariadb-innodb-pool-16M.cnf", "--why")
	if c.code != 0 {
		t.Fatalf("compare: exit %d: %s", c.code, c.stderr)
	}
	_, why, _ := strings.Cut(c.stdout, "\nrun: scan/s ")
	line, table, _ := strings.Cut(why, "\n")
	if why == "" || strings.Contains(line, "not explained") {
		t.Fatalf("the run step with a 16M buffer pool is not explained:\n%s", c.stdout)
	}
	host := map[string]bool{"figure": true, "scan/s": true}
	for _, n := range []string{"cpu", "cpu_user", "cpu_sys", "client_cpu", "client_user", "client_sys", "dbms_cpu", "dbms_user", "dbms_sys"} {
		host[n+"_us_per_op"] = true
	}
	for _, n := range []string{"reads", "read_kb", "write_kb", "writes", "cs"} {
		host[n+"_per_op"] = true
	}
	rank, found := 0, false
	for _, row := range strings.Split(table, "\n") {
		f := strings.Fields(row)
		if len(f) < 4 || host[f[0]] {
			continue
		}
		if !strings.HasPrefix(row, "  ") {
			break // the table's end
		}
		rank++
		if f[0] == "buffer_pool_reads_per_op" {
			found = true
			b, _ := strconv.ParseFloat(f[1], 64)
			r, _ := strconv.ParseFloat(f[2], 64)
			if !(r > 2*b) {
				t.Errorf("buffer pool reads per op did not grow: %q", row)
			}
			break
		}
	}
	t.Logf("buffer_pool_reads_per_op: DBMS figure %d of the line %q", rank, line)
	if !found || rank > 8 {
		t.Errorf("buffer_pool_reads_per_op is not among the first 8 DBMS figures (rank %d):\n%s\n%s", rank, line, table)
	}
}

// TestWhyGolden: compare --why's text for archived real runs, against testdata/why/*.golden
// (DBPERF_UPDATE_GOLDEN=1 go test rewrites them after a deliberate change): a MariaDB pair
// from TestWhyBufferPool (256M vs 16M buffer pool; latency.hlog and dbms.csv left out, which
// --why does not read), and the same as two run groups of 3 repeats each (its load step
// explained, q = 0.018; its scan step not, q = 0.09). Only the text after compare's table is
// compared. The archives have host.csv's user and system CPU of the client and the DBMS, so the
// tables show CPU per op split for both, and the table's CPU rows are checked by name as well.
func TestWhyGolden(t *testing.T) {
	for name, args := range map[string][]string{
		"bufferpool": {"--base", "testdata/why/bp-256M", "testdata/why/bp-16M"},
		"groups":     {"--base", "testdata/why/g-256M", "testdata/why/g-16M"},
	} {
		t.Run(name, func(t *testing.T) {
			c := run(t, ".", append([]string{"compare", "--why"}, args...)...)
			if c.code != 0 {
				t.Fatalf("exit %d: %s", c.code, c.stderr)
			}
			i := strings.Index(c.stdout, "\nwhy ")
			if i < 0 {
				t.Fatalf("no explanation:\n%s", c.stdout)
			}
			got, path := c.stdout[i+1:], filepath.Join("testdata", "why", name+".golden")
			if os.Getenv("DBPERF_UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (DBPERF_UPDATE_GOLDEN=1 go test creates it)", err)
			}
			for _, row := range []string{"client_user_us_per_op", "client_sys_us_per_op", "dbms_user_us_per_op", "dbms_sys_us_per_op"} {
				if !strings.Contains(got, "\n  "+row+" ") {
					t.Errorf("--why has no %s row:\n%s", row, got)
				}
			}
			if got != string(want) {
				t.Errorf("--why differs from %s (DBPERF_UPDATE_GOLDEN=1 go test rewrites it after a deliberate change):\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

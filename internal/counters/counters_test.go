package counters

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// fakeRun writes a run of one step, "s", of 10 one-second intervals: 1000 queries a second;
// db.blks_read grows 2000 a second except 20000 in the 6th; a gauge dirty_pages goes 5, 6, 7, ...;
// the host's CPU is 50% of 2 cores, its context switches 3000 a second.
func fakeRun(t *testing.T, target archive.Target) string { return fakeRunAt(t, target, 0) }

// fakeRunAt is fakeRun with the counters' first tick (the step's start sample) at start.
func fakeRunAt(t *testing.T, target archive.Target, start float64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	meta := archive.Run{Name: "r", Target: target, Host: archive.Host{Cores: 2},
		Steps:   []archive.StepStatus{{Name: "s", Dir: "s", Complete: true}},
		Figures: archive.Figures{Ops: []measure.OpType{{Name: "insert"}, {Name: "query"}}}}
	d, err := archive.Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.StartStep("s", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := w.Counters()
	kind := func(n string) archive.CounterKind {
		if n == "dirty_pages" {
			return archive.KindGauge
		}
		return archive.KindCumulative
	}
	reads := 0.0
	for i := 0; i <= 10; i++ {
		if i > 0 {
			reads += 2000
		}
		if i == 6 {
			reads += 18000
		}
		at := float64(i)
		if i == 0 {
			at = start
		}
		c.Sample(at, 0, map[string]float64{"db.blks_read": reads, "dirty_pages": float64(5 + i), "db.xact_commit": 1000 * float64(i)}, false, kind)
	}
	if err := w.Finish(archive.Step{Step: "s", Complete: true}); err != nil {
		t.Fatal(err)
	}
	iv := "t_sec,unix_ms,interval_sec,insert_per_sec,insert_total,insert_errors,insert_p99_us,insert_max_us,query_per_sec,query_total,query_errors,query_p99_us,query_max_us\n"
	host := strings.Join(append([]string{}, "t_sec,unix_ms,interval_sec,cpu_user_pct,cpu_sys_pct,cpu_iowait_pct,cpu_idle_pct,cpu_busy_pct,cs_per_sec"), "") + "\n"
	for i := 1; i <= 10; i++ {
		iv += fmt.Sprintf("%d.000,0,1.000,10,%d,0,1,1,1000,%d,0,1,1\n", i, 10*i, 1000*i)
		host += fmt.Sprintf("%d.000,0,1.000,30,20,0,50,50,3000\n", i)
	}
	for name, data := range map[string]string{"intervals.csv": iv, "host.csv": host} {
		if err := os.WriteFile(filepath.Join(dir, "s", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t *testing.T, dir string) *Step {
	t.Helper()
	meta, _, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadStep(dir, meta, "s")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestRatesPerOp: a running total's rate and increase per op over the step, a gauge's mean,
// the main op (the one with the most units) and the host's CPU and context switches per op,
// all from the archived files.
func TestRatesPerOp(t *testing.T) {
	s := load(t, fakeRun(t, archive.Target{Kind: "postgres", Engine: "PostgreSQL"}))
	w := s.Whole()
	if s.MainOp != "query" || s.Seconds(w) != 10 || s.OpsRate(w) != 1000 {
		t.Fatalf("main op %q, %g s, %g ops/s", s.MainOp, s.Seconds(w), s.OpsRate(w))
	}
	figs := map[string]Figure{}
	for _, f := range s.Counters(w, false) {
		figs[f.Name] = f
	}
	if f := figs["db.blks_read"]; f.Value != 3800 || f.PerOp != 3.8 {
		t.Errorf("db.blks_read: %+v; want 3800/s, 3.8 per op", f)
	}
	if f := figs["dirty_pages"]; f.Value != 10.5 || f.Min != 6 || f.Max != 15 || f.Kind != archive.KindGauge {
		t.Errorf("dirty_pages: %+v; want mean 10.5 of 6..15", f)
	}
	vit := map[string]float64{}
	for _, f := range s.Defined(Vitals(), w) {
		vit[f.Name] = f.Value
	}
	// 50% busy of 2 cores = 1 CPU second a second, over 1000 queries: 1000 µs each.
	for name, want := range map[string]float64{"cpu_us_per_op": 1000, "cpu_user_us_per_op": 600, "cs_per_op": 3,
		"blks_read_per_op": 3.8, "commits_per_op": 1, "ops_per_sec": 1000} {
		if !near(vit[name], want) {
			t.Errorf("%s = %g, want %g", name, vit[name], want)
		}
	}
	if _, ok := vit["buffer_pool_reads_per_op"]; ok {
		t.Error("an InnoDB vital sign on PostgreSQL")
	}
	if _, ok := vit["wal_fpi_per_op"]; ok {
		t.Error("a sign whose counters the run lacks is shown")
	}
	// The monitor's first sample comes a little after the step's start: the ops done by the
	// first interval's end still count from that tick, over the seconds since it.
	s = load(t, fakeRunAt(t, archive.Target{Kind: "postgres"}, 0.002))
	if got, want := s.OpsRate(s.Whole()), 10000/9.998; !near(got, want) || s.Values["op.query"][0] != 0 {
		t.Errorf("ops rate %g, want %g", got, want)
	}
}

// TestMovers: the interval where db.blks_read jumped ranks it first, and the step's steady
// counters do not move. PostgreSQL's running totals are read a second past the window (its
// publishing delay, Late): 20,000/s in 5-6 s and 2,000/s in 6-7 s.
func TestMovers(t *testing.T) {
	s := load(t, fakeRun(t, archive.Target{Kind: "postgres"}))
	m := s.Movers(Window{5, 6}, 5, nil)
	if len(m) == 0 || m[0].Name != "db.blks_read" || m[0].Window != 11000 || m[0].Median != 2000 {
		t.Fatalf("movers %+v", m)
	}
	for _, x := range m {
		if x.Name == "db.xact_commit" || x.Name == "host.cs" {
			t.Errorf("%s moved: %+v", x.Name, x)
		}
	}
	st := &measure.Stalls{At: []float64{6, 7, 9}}
	if ws := s.StallWindows(st); len(ws) != 2 || ws[0] != (Window{5, 7}) || ws[1] != (Window{8, 9}) {
		t.Errorf("stall windows %v", ws)
	}
}

// TestExpressions: the grammar, precedence, undefined figures, user definitions that refer to
// others and replace shipped ones, sections, and the errors of bad files.
func TestExpressions(t *testing.T) {
	s := load(t, fakeRun(t, archive.Target{Kind: "mysql", Engine: "MariaDB", Settings: map[string]any{"engine": "ROCKSDB"}}))
	w := s.Whole()
	user := `
reads = rate(db.blks_read)                # per second
[myrocks]
per_commit = reads / rate(db.xact_commit)
neg = -2 * (1 + 2) - 6 / 3 + 1e3
both = delta(db.blks_read db.xact_commit) # a sum over names
glob = delta(db.*)
overlap = delta(db.* db.blks_read)        # a counter counts once
gone = rate(no.such) + 1
ratio0 = 1 / (rate(db.xact_commit) - rate(db.xact_commit))
level = max(dirty_pages) - min(dirty_pages)
gauge_rate = rate(dirty_pages)
[innodb]
hidden = 1
`
	defs, err := Parse("user.conf", strings.NewReader(user))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range s.Defined(defs, w) {
		got[f.Name] = f.Value
	}
	want := map[string]float64{"reads": 3800, "per_commit": 3.8, "neg": 992, "both": 48000, "glob": 48000, "overlap": 48000, "level": 9}
	for n, v := range want {
		if !near(got[n], v) {
			t.Errorf("%s = %g, want %g", n, got[n], v)
		}
	}
	for _, n := range []string{"gone", "ratio0", "hidden", "gauge_rate"} {
		if _, ok := got[n]; ok {
			t.Errorf("%s is shown: %g", n, got[n])
		}
	}
	for _, bad := range []string{"x = rate(a", "x = 1 +", "x = foo(a)", "= 1", "x = 1 2", "a = b\nb = a", "ops = 1", "[x"} {
		if _, err := Parse("bad.conf", strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	over, _ := Parse("u", strings.NewReader("[*]\nops_per_sec = 2 * ops  # doubled\n"))
	for _, f := range s.Defined(append(Vitals(), over...), w) {
		if f.Name == "ops_per_sec" && (f.Value != 2000 || f.Doc != "doubled") {
			t.Errorf("a user's definition does not replace the shipped one: %+v", f)
		}
	}
}

// TestVitalsParse: the shipped file parses, and every section has 8 to 20 signs.
func TestVitalsParse(t *testing.T) {
	per := map[string]int{}
	for _, d := range Vitals() {
		per[strings.Join(d.Sections, ",")]++
		if d.Doc == "" {
			t.Errorf("%s (%s) says not what it tells", d.Name, d.Where)
		}
	}
	for _, sec := range []string{"postgres", "innodb", "myrocks", "rocksdb", "pebble"} {
		if per[sec] < 10 || per[sec] > 20 {
			t.Errorf("[%s] has %d vital signs, want 10 to 20", sec, per[sec])
		}
	}
}

// TestOldRun: a run written before counters.csv.gz is read from dbms.csv, with a counter that
// went down taken for a gauge.
func TestOldRun(t *testing.T) {
	dir := fakeRun(t, archive.Target{Kind: "postgres"})
	os.Remove(filepath.Join(dir, "s", archive.CountersFile))
	os.WriteFile(filepath.Join(dir, "s", "dbms.csv"), []byte("t_sec,unix_ms,db.xact_commit,db.numbackends\n1.000,0,10,3\n2.000,0,20,2\n"), 0o644)
	s := load(t, dir)
	if s.Kinds["db.xact_commit"] != archive.KindCumulative || s.Kinds["db.numbackends"] != archive.KindGauge {
		t.Errorf("kinds %v", s.Kinds)
	}
}

// TestReset: an interval whose running total went down (a restarted server, a counter that
// went back) adds nothing, rather than the counter's whole new value.
func TestReset(t *testing.T) {
	s := &Step{TSec: []float64{0, 1, 2, 3}, Names: []string{"c"}, Kinds: map[string]archive.CounterKind{"c": archive.KindCumulative},
		Values: map[string][]float64{"c": {1e12, 1e12 + 100, 1e12 - 50, 1e12 + 50}}, matches: map[string][]string{}}
	if d, ok := s.Increase("c", s.Whole()); !ok || d != 200 {
		t.Errorf("increase %g, want 100 + 0 + 100", d)
	}
	if r := s.Rate("c", Window{1, 2}); r != 0 {
		t.Errorf("rate over the reset %g, want 0", r)
	}
}

// TestMoversNoise: a steady counter whose rate wobbles by 10% in the window is not named; one
// that halved is.
func TestMoversNoise(t *testing.T) {
	s := &Step{TSec: []float64{0, 1, 2, 3, 4, 5}, Names: []string{"halved", "wobble"},
		Kinds:   map[string]archive.CounterKind{"halved": archive.KindCumulative, "wobble": archive.KindCumulative},
		Values:  map[string][]float64{"wobble": {0, 1000, 2000, 3100, 4100, 5100}, "halved": {0, 1000, 2000, 2400, 3400, 4400}},
		matches: map[string][]string{}}
	m := s.Movers(Window{2, 3}, 5, nil)
	if len(m) != 1 || m[0].Name != "halved" {
		t.Errorf("movers %+v: want only halved", m)
	}
}

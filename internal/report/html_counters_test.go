package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// counterRun writes a PostgreSQL run of one 10-second step whose blocks read jump in its 6th
// second, a stall there.
func counterRun(t *testing.T) string { return counterRunOf(t, 10) }

// counterRunOf is counterRun's step lasting n seconds.
func counterRunOf(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	meta := archive.Run{Name: "r", Workload: "insert", Target: archive.Target{Kind: "postgres", Engine: "PostgreSQL"},
		Steps: []archive.StepStatus{{Name: "qr100", Dir: "qr100", Complete: true}}, Figures: archive.Figures{Ops: []measure.OpType{{Name: "query"}}}}
	d, err := archive.Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.StartStep("qr100", []measure.OpType{{Name: "query"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := w.Counters()
	reads := 0.0
	iv := "t_sec,unix_ms,interval_sec,query_per_sec,query_total,query_errors,query_p99_us,query_max_us\n"
	for i := 0; i <= n; i++ {
		reads += 2000
		if i == 6 {
			reads += 50000
		}
		n := float64(i)
		c.Sample(n, 0, map[string]float64{"db.blks_read": reads, "db.xact_commit": 1000 * n, "db.xact_rollback": 2 * n,
			"db.blks_hit": 30000 * n, "db.tup_returned": 5000 * n, "wal_bytes": 1e6 * n, "locks.waiting": float64(i % 3)}, false,
			func(name string) archive.CounterKind {
				if name == "locks.waiting" {
					return archive.KindGauge
				}
				return archive.KindCumulative
			})
		if i > 0 {
			iv += fmt.Sprintf("%d.000,0,1.000,1000,%d,0,1,1\n", i, 1000*i)
		}
	}
	if err := w.Finish(archive.Step{Step: "qr100", Complete: true, Seconds: float64(n), Stalls: &measure.Stalls{Count: 1, At: []float64{6}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qr100", "intervals.csv"), []byte(iv), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestVitalCharts: a step with counters gets a chart per vital sign of its DBMS that the run
// defines (all eight here, not a few), each on the step's time axis with the stall shaded:
// blocks read per op at 2 and 52 in the stalled second.
func TestVitalCharts(t *testing.T) {
	runs, err := Load([]string{counterRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := buildHTMLPage(runs, 0, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var data htmlData
	if err := json.Unmarshal([]byte(p.Data), &data); err != nil {
		t.Fatal(err)
	}
	vitals := map[string]htmlChart{}
	var throughput *htmlChart
	for _, c := range data.Charts {
		switch c.Kind {
		case "vital":
			vitals[c.Title] = c
		case "throughput":
			throughput = &c
		}
	}
	want := []string{"commits_per_op", "rollbacks_per_sec", "blks_read_per_op", "blks_hit_per_op", "buffer_hit_pct",
		"tuples_returned_per_op", "wal_bytes_per_op", "lock_waiters"}
	for _, n := range want {
		if _, ok := vitals[n]; !ok {
			t.Errorf("no chart of %s; charted: %v", n, keys(vitals))
		}
	}
	if len(p.Steps) != 1 || len(p.Steps[0].Vitals) != len(vitals) || len(vitals) < len(want) {
		t.Fatalf("the step lists %d vital charts of %d", len(p.Steps[0].Vitals), len(vitals))
	}
	c := vitals["blks_read_per_op"]
	if len(c.Shade) != 1 || c.Shade[0].From != 5 || c.Shade[0].To != 6 || c.XRange == nil || *c.XRange != [2]float64{0, 10} {
		t.Errorf("blks_read_per_op: shade %+v, axis %v; want the stall 5-6 s on 0-10 s", c.Shade, c.XRange)
	}
	if throughput == nil || throughput.XRange == nil || *throughput.XRange != *c.XRange {
		t.Errorf("the throughput chart's axis differs from the vital signs': %+v", throughput)
	}
	for i, x := range c.X {
		if y := c.Y[0][i]; y == nil || x == 6 && *y != 52 || x != 6 && *y != 2 {
			t.Errorf("blks_read_per_op at %v s: %v, want 2 (52 in the stall)", x, y)
		}
	}
	if c.Doc == "" || c.Scales["v"].Label != "per op" || vitals["buffer_hit_pct"].Scales["v"].Label != "%" {
		t.Errorf("doc %q, units %q, %q", c.Doc, c.Scales["v"].Label, vitals["buffer_hit_pct"].Scales["v"].Label)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestVitalChartsLongStep: a step of 1500 seconds is drawn in 500 windows of 3 s, each
// evaluated over its window: blocks read per op 2, and 18.67 in the window of the 52,000-block
// second (56,000 blocks over 3,000 queries).
func TestVitalChartsLongStep(t *testing.T) {
	runs, err := Load([]string{counterRunOf(t, 1500)})
	if err != nil {
		t.Fatal(err)
	}
	steps := counterSteps(runs, "qr100")
	charts, _ := vitalCharts("qr100", 0, []string{"r"}, runs, 0, steps)
	var c *htmlChart
	for _, ch := range charts {
		if ch.Title == "blks_read_per_op" {
			c = ch
		}
	}
	if c == nil || len(c.X) != 500 || c.X[0] != 3 || c.X[499] != 1500 {
		t.Fatalf("blks_read_per_op: %+v", c)
	}
	for i, x := range c.X {
		want := 2.0
		if x == 6 {
			want = 18.666667
		}
		if y := c.Y[0][i]; y == nil || *y != want {
			t.Errorf("window ending at %v s: %v, want %v", x, y, want)
		}
	}
}

package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// counterRun writes a PostgreSQL run of one 10-second step whose blocks read jump in its 6th
// second, a stall there.
func counterRun(t *testing.T) string {
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
	for i := 0; i <= 10; i++ {
		reads += 2000
		if i == 6 {
			reads += 50000
		}
		c.Sample(float64(i), 0, map[string]float64{"db.blks_read": reads, "db.xact_commit": 1000 * float64(i)}, false,
			func(string) archive.CounterKind { return archive.KindCumulative })
		if i > 0 {
			iv += fmt.Sprintf("%d.000,0,1.000,1000,%d,0,1,1\n", i, 1000*i)
		}
	}
	if err := w.Finish(archive.Step{Step: "qr100", Complete: true, Seconds: 10, Stalls: &measure.Stalls{Count: 1, At: []float64{6}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qr100", "intervals.csv"), []byte(iv), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCountersChart: a step with counters gets a chart of its DBMS's vital signs per second
// (blocks read per op, which varied), with the stall shaded.
func TestCountersChart(t *testing.T) {
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
	var chart *htmlChart
	for i := range data.Charts {
		if data.Charts[i].Kind == "counters" {
			chart = &data.Charts[i]
		}
	}
	if chart == nil {
		t.Fatalf("no counters chart: %d charts", len(data.Charts))
	}
	found := false
	for _, s := range chart.Series {
		found = found || strings.HasSuffix(s.Label, " blks_read_per_op")
	}
	if !found || len(chart.Shade) != 1 || chart.Shade[0].From != 5 || chart.Shade[0].To != 6 {
		t.Errorf("series %+v, shade %+v: want blks_read_per_op and the stall 5-6 s", chart.Series, chart.Shade)
	}
}

package counters_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/monitor"
)

// BenchmarkSamplingCost is the cost of one sample of every counter, as the monitor takes it
// each second: the query (or the engine's metrics), the kinds and the row written to
// counters.csv.gz. It reports the client's CPU µs per sample and the DBMS's processes' CPU µs
// per sample (less what they used idle for as long), and the counters read: at one sample a
// second, 10,000 µs is 1% of a core (docs/counters.md). The servers come from
// DBPERF_TEST_POSTGRES and DBPERF_TEST_MYSQL; a target without one is skipped.
//
//	go test -run x -bench SamplingCost -benchtime 200x ./internal/counters/
func BenchmarkSamplingCost(b *testing.B) {
	pg, my := os.Getenv("DBPERF_TEST_POSTGRES"), os.Getenv("DBPERF_TEST_MYSQL")
	targets := map[string]string{"pebble": "pebble:" + filepath.Join(b.TempDir(), "db")}
	if pg != "" {
		targets["postgres"] = pg
	}
	if my != "" {
		u, _ := url.Parse(my)
		q := u.Query()
		q.Set("engine", "rocksdb")
		u.RawQuery = q.Encode()
		targets["innodb"], targets["myrocks"] = my, u.String()
	}
	for _, name := range []string{"postgres", "innodb", "myrocks", "pebble"} {
		spec, ok := targets[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) { samplingCost(b, spec) })
	}
}

func samplingCost(b *testing.B, spec string) {
	ctx := context.Background()
	s, err := driver.Parse(spec)
	if err != nil {
		b.Fatal(err)
	}
	tg, err := driver.Open(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	cs := tg.(monitor.CounterSet)
	var host *monitor.HostSampler
	if p, ok := tg.(monitor.Processes); ok {
		if pids, embedded, err := p.DBMSProcesses(ctx); err == nil && len(pids) > 0 && !embedded {
			host = monitor.NewHostSampler("", pids[0], true)
		}
	}
	d, err := archive.Create(filepath.Join(b.TempDir(), "run"), archive.Run{Name: "r"})
	if err != nil {
		b.Fatal(err)
	}
	w, err := d.StartStep("s", []measure.OpType{{Name: "op"}}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	cw, err := w.Counters()
	if err != nil {
		b.Fatal(err)
	}
	dbmsCPU := func() (float64, time.Time) {
		if host == nil {
			return 0, time.Now()
		}
		h, _ := host.Sample()
		return h.DBMSCPU, time.Now()
	}
	// The DBMS's own idle use, to take off.
	c0, t0 := dbmsCPU()
	time.Sleep(time.Second)
	c1, t1 := dbmsCPU()
	idle := (c1 - c0) / t1.Sub(t0).Seconds()

	n := 0
	kind := func(string) archive.CounterKind { return archive.KindCumulative }
	cpu0 := hostproc.ProcessCPU()
	c0, t0 = dbmsCPU()
	b.ResetTimer()
	for i := range b.N {
		vals, err := cs.DBMSCounterSet(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n = len(vals)
		if err := cw.Sample(float64(i), 0, vals, false, kind); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	c1, t1 = dbmsCPU()
	client := hostproc.ProcessCPU().Sub(cpu0).Total().Seconds()
	b.ReportMetric(client*1e6/float64(b.N), "client-cpu-us/sample")
	if host != nil {
		b.ReportMetric(max(0, c1-c0-idle*t1.Sub(t0).Seconds())*1e6/float64(b.N), "dbms-cpu-us/sample")
	}
	b.ReportMetric(float64(n), "counters")
	w.Finish(archive.Step{Step: "s"})
}

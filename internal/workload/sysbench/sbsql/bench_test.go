package sbsql

import (
	"context"
	"os"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/testtargets"
	sb "github.com/dbperf/dbperf/internal/workload/sysbench"
)

// BenchmarkEvent is one client's own CPU and allocations per event of read_write and
// point_select on the test servers (the lean path, statements prepared), the client's share of
// dbperf's cost beside sysbench (docs/sysbench.md, "Beside sysbench"):
//
//	DBPERF_TEST_POSTGRES=postgres://... DBPERF_TEST_MYSQL=mysql://... \
//	  go test -run x -bench Event -benchmem -benchtime 3000x ./internal/workload/sysbench/sbsql/
func BenchmarkEvent(b *testing.B) {
	for name, env := range map[string]string{"postgres": "DBPERF_TEST_POSTGRES", "mysql": "DBPERF_TEST_MYSQL"} {
		dsn := os.Getenv(env)
		if dsn == "" {
			b.Logf("%s is not set: no %s", env, name)
			continue
		}
		target := testtargets.WithDatabase(dsn, "dbperf_sysbench_bench")
		prepared := false
		for _, test := range []string{"read_write", "point_select"} {
			b.Run(name+"/"+test, func(b *testing.B) {
				client := benchClient(b, target, test, !prepared)
				prepared = true
				ctx := context.Background()
				b.ResetTimer()
				cpu := hostproc.ProcessCPU()
				for range b.N {
					if err := client.Event(ctx); err != nil {
						b.Fatal(err)
					}
				}
				d := hostproc.ProcessCPU().Sub(cpu)
				b.ReportMetric(float64(d.User.Nanoseconds())/1e3/float64(b.N), "user-us/op")
				b.ReportMetric(float64(d.System.Nanoseconds())/1e3/float64(b.N), "sys-us/op")
			})
		}
	}
}

// benchClient opens target and returns a run step's client of test on 1 table of 10,000 rows,
// which it prepares first if load.
func benchClient(b *testing.B, target, test string, load bool) *sb.Client {
	ctx := context.Background()
	spec, err := driver.Parse(target)
	if err != nil {
		b.Fatal(err)
	}
	tg, err := driver.Open(ctx, spec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tg.Close() })
	cfg := sb.DefaultConfig()
	if err := cfg.SetTest(test); err != nil {
		b.Fatal(err)
	}
	cfg.Tables, cfg.TableSize, cfg.Seed, cfg.Steps = 1, 10000, 7, []string{sb.StepPrepare}
	store, err := For(tg, Options{QueryMode: cfg.QueryMode, Used: cfg.Event().Used(), Tables: cfg.Tables})
	if err != nil {
		b.Fatal(err)
	}
	bench, err := sb.New(cfg, store)
	if err != nil {
		b.Fatal(err)
	}
	if load {
		plan, err := bench.Plan(ctx, sb.StepPrepare)
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range plan.Step.Workers {
			for range w.Schedule.(runner.ClosedLoop).Limit {
				if _, _, err := w.Do(ctx, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		plan.Close()
	}
	conn, err := store.Connect(ctx, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return bench.NewClient(sb.StepRun, 0, conn)
}

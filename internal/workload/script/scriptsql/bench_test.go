package scriptsql_test

import (
	"context"
	"os"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
)

// BenchmarkSelectOnly is the client's own CPU per select-only transaction on PostgreSQL, with
// one client, through the script workload on each client path ("script/raw", "script/netconn":
// the lean path, wire.Postgres; "script/driver": pgconn) and through pgconn alone ("pgconn":
// the same prepared statement in a loop), so that the script layer's and the path's shares of
// dbperf's cost beside pgbench show:
//
//	DBPERF_TEST_POSTGRES=postgres://... go test -run x -bench SelectOnly -benchtime 20000x ./internal/workload/script/scriptsql/
func BenchmarkSelectOnly(b *testing.B) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		b.Skip("DBPERF_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	target := testtargets.WithDatabase(dsn, "dbperf_script_bench")
	cfg := script.DefaultConfig()
	cfg.Sources = []script.Source{{Builtin: "select-only", Weight: 1}}
	cfg.Steps, cfg.Mode, cfg.Transactions, cfg.NoVacuum = []string{script.StepInit, script.StepRun}, script.ModePrepared, 1, true
	for i, path := range clientPaths {
		tg, bench := benchTarget(b, target, path, cfg)
		if i == 0 {
			initPlan, err := bench.Plan(ctx, script.StepInit)
			if err != nil {
				b.Fatal(err)
			}
			for range 11 { // 10 batches of accounts, then the vacuum and primary keys
				if _, _, err := initPlan.Step.Workers[0].Do(ctx, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run("script/"+string(path), func(b *testing.B) {
			plan, err := bench.Plan(ctx, script.StepRun) // a closed loop: one worker per client
			if err != nil {
				b.Fatal(err)
			}
			defer plan.Close()
			do := plan.Step.Workers[0].Do
			measure(b, func() error { _, _, err := do(ctx, 0); return err })
		})
		if path != driver.ClientDriver {
			continue
		}
		b.Run("pgconn", func(b *testing.B) {
			c, err := tg.(*sqldriver.Postgres).Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(ctx)
			pc := c.PgConn()
			if _, err := pc.Prepare(ctx, "s", "SELECT abalance FROM pgbench_accounts WHERE aid = $1", nil); err != nil {
				b.Fatal(err)
			}
			measure(b, func() error {
				_, err := pc.ExecPrepared(ctx, "s", [][]byte{[]byte("12345")}, nil, nil).Close()
				return err
			})
		})
	}
}

// benchTarget opens target on path and binds cfg's scripts to it.
func benchTarget(b *testing.B, target string, path driver.ClientPath, cfg script.Config) (driver.Target, *script.Bench) {
	tg := testtargets.OpenPath(b, target, path)
	store, _ := scriptsql.For(tg)
	bench, err := script.New(cfg, store)
	if err != nil {
		b.Fatal(err)
	}
	return tg, bench
}

func measure(b *testing.B, op func() error) {
	b.ResetTimer()
	cpu := hostproc.ProcessCPU()
	for range b.N {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	d := hostproc.ProcessCPU().Sub(cpu)
	b.ReportMetric(float64(d.User.Nanoseconds())/1e3/float64(b.N), "user-us/op")
	b.ReportMetric(float64(d.System.Nanoseconds())/1e3/float64(b.N), "sys-us/op")
}

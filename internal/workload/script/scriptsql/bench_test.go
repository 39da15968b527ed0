package scriptsql_test

import (
	"context"
	"os"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/testtargets"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/script/scriptsql"
)

// BenchmarkSelectOnly is the client's own CPU per select-only transaction on PostgreSQL, with
// one client, through the script workload ("script": its expression, statement and pgconn
// path) and through pgconn alone ("pgconn": the same prepared statement in a loop), so that the
// script layer's share of dbperf's cost beside pgbench shows:
//
//	DBPERF_TEST_POSTGRES=postgres://... go test -run x -bench SelectOnly -benchtime 20000x ./internal/workload/script/scriptsql/
func BenchmarkSelectOnly(b *testing.B) {
	dsn := os.Getenv("DBPERF_TEST_POSTGRES")
	if dsn == "" {
		b.Skip("DBPERF_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	tg := testtargets.Open(b, testtargets.WithDatabase(dsn, "dbperf_script_bench"))
	store, _ := scriptsql.For(tg)
	cfg := script.DefaultConfig()
	cfg.Sources = []script.Source{{Builtin: "select-only", Weight: 1}}
	cfg.Steps, cfg.Mode, cfg.Transactions, cfg.NoVacuum = []string{script.StepInit, script.StepRun}, script.ModePrepared, 1, true
	bench, err := script.New(cfg, store)
	if err != nil {
		b.Fatal(err)
	}
	initPlan, err := bench.Plan(ctx, script.StepInit)
	if err != nil {
		b.Fatal(err)
	}
	for range 11 { // 10 batches of accounts, then the vacuum and primary keys
		if _, _, err := initPlan.Step.Workers[0].Do(ctx, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("script", func(b *testing.B) {
		plan, err := bench.Plan(ctx, script.StepRun) // a closed loop: one worker per client
		if err != nil {
			b.Fatal(err)
		}
		defer plan.Close()
		do := plan.Step.Workers[0].Do
		measure(b, func() error { _, _, err := do(ctx, 0); return err })
	})
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
		i := 0
		measure(b, func() error {
			i++
			_, err := pc.ExecPrepared(ctx, "s", [][]byte{[]byte("12345")}, nil, nil).Close()
			return err
		})
	})
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

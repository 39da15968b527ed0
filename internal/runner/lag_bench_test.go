package runner_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// BenchmarkPoolLag measures the open-loop schedule's own accuracy on a no-op target: each
// operation does nothing, so its response time (from its intended start) is the schedule's lag:
// the dispatcher's wake-up, the hand-off to a worker and the worker's wake-up. One 2-second step
// per rate, 4 workers; it reports the lag's p50, p99 and p99.9 in µs and the arrivals dropped.
//
//	go test -run x -bench PoolLag -benchtime 1x ./internal/runner/
func BenchmarkPoolLag(b *testing.B) {
	for _, rate := range []float64{1_000, 10_000, 50_000, 100_000, 200_000, 500_000, 1_000_000} {
		b.Run(fmt.Sprintf("rate=%.0f", rate), func(b *testing.B) {
			nop := runner.Single(opQuery, func(context.Context, int) (int64, error) { return 1, nil })
			for b.Loop() {
				res := runner.Run(context.Background(), runner.Step{Ops: allOps, Pools: []runner.Pool{{
					Name: "nop", Primary: true, Limit: int64(2 * rate), Arrivals: &runner.Constant{PerSec: rate},
					Do: []runner.DoFunc{nop, nop, nop, nop},
				}}})
				h := res.Total.Ops[opQuery].Hist
				b.ReportMetric(measure.Micros(h.ValueAtPercentile(50)), "lag_p50_us")
				b.ReportMetric(measure.Micros(h.ValueAtPercentile(99)), "lag_p99_us")
				b.ReportMetric(measure.Micros(h.ValueAtPercentile(99.9)), "lag_p99.9_us")
				b.ReportMetric(float64(res.Dropped), "dropped")
				b.ReportMetric(float64(h.TotalCount())/res.End.Sub(res.Start).Seconds(), "done/s")
				_ = time.Second
			}
		})
	}
}

// BenchmarkConstantRateLag is the lag of one worker's own constant-rate schedule (the key-value
// steps' writer held to --writer-mbps), with and without the last millisecond in nanosleep.
//
//	go test -run x -bench ConstantRateLag -benchtime 1x ./internal/runner/
func BenchmarkConstantRateLag(b *testing.B) {
	for _, precise := range []bool{false, true} {
		sleep := runner.CoarseSleep
		if precise {
			sleep = runner.PreciseSleep
		}
		b.Run(fmt.Sprintf("precise=%v", precise), func(b *testing.B) {
			nop := runner.Single(opInsert, func(context.Context, int) (int64, error) { return 1, nil })
			for b.Loop() {
				res := runner.Run(context.Background(), runner.Step{Ops: allOps, Sleep: sleep, Workers: []runner.Worker{{
					Name: "paced", Primary: true, Schedule: runner.ConstantRate{PerSec: 5000, Limit: 10000}, Do: nop}}})
				h := res.Total.Ops[opInsert].Hist
				b.ReportMetric(measure.Micros(h.ValueAtPercentile(50)), "lag_p50_us")
				b.ReportMetric(measure.Micros(h.ValueAtPercentile(99)), "lag_p99_us")
			}
		})
	}
}

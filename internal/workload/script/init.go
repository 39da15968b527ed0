package script

import (
	"context"
	"fmt"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// initBatch is the accounts rows one operation of the init step loads.
const initBatch = 10000

// planInit is pgbench -i with its default steps dtgvp (pgbench.c:5224-5301): drop and create
// the tables and write the branches and tellers before the step starts; the step loads the
// accounts in batches (COPY on PostgreSQL), then vacuums and adds the primary keys (MySQL and
// SQLite have them from the start) as its last operation.
func (b *Bench) planInit(ctx context.Context) (*workload.StepPlan, error) {
	d, scale := b.store.Dialect(), int64(b.cfg.Scale)
	if !b.cfg.first() { // shard 0 initializes; this shard waits for it at the next barrier
		return &workload.StepPlan{Step: runner.Step{Name: StepInit, Ops: initOps}, Main: 0, Write: 0, Read: workload.None,
			Close: func() error { return nil }}, nil
	}
	if err := b.store.Exec(ctx, createSQL(d, b.cfg.Scale)...); err != nil {
		return nil, fmt.Errorf("creating pgbench's tables: %w", err)
	}
	var branches, tellers [][]any
	for i := int64(1); i <= scale; i++ {
		branches = append(branches, []any{i, 0})
	}
	for i := int64(1); i <= scale*tellersPerBranch; i++ {
		tellers = append(tellers, []any{i, (i-1)/tellersPerBranch + 1, 0})
	}
	if err := b.store.Load(ctx, "pgbench_branches", []string{"bid", "bbalance"}, branches); err != nil {
		return nil, err
	}
	if err := b.store.Load(ctx, "pgbench_tellers", []string{"tid", "bid", "tbalance"}, tellers); err != nil {
		return nil, err
	}
	total := scale * accountsPerBranch
	batches := (total + initBatch - 1) / initBatch
	plan := &workload.StepPlan{Progress: 0, Total: total, Main: 0, Write: 0, Read: workload.None}
	s := &plan.Step
	s.Name, s.Ops = StepInit, initOps
	next := int64(1)
	rows := make([][]any, 0, initBatch)
	do := func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		if next > total {
			return 1, 1, b.store.Exec(ctx, finishSQL(d)...)
		}
		rows = rows[:0]
		for aid := next; aid < next+initBatch && aid <= total; aid++ {
			rows = append(rows, []any{aid, (aid-1)/accountsPerBranch + 1, 0, ""})
		}
		if err := b.store.Load(ctx, "pgbench_accounts", []string{"aid", "bid", "abalance", "filler"}, rows); err != nil {
			return 0, 0, err
		}
		next += int64(len(rows))
		return 0, int64(len(rows)), nil
	}
	s.Workers = []runner.Worker{{Name: "init", Primary: true, Schedule: runner.ClosedLoop{Limit: batches + 1}, Do: do}}
	plan.Close = func() error { return nil }
	plan.Extra = func(runner.Result) (map[string]any, []string) {
		return map[string]any{"scale": scale, "accounts": total, "branches": scale, "tellers": scale * tellersPerBranch}, nil
	}
	return plan, nil
}

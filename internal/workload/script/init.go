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

// The init step's op types: pgbench_accounts rows loaded (g's batches, G's whole load), then
// one op type per other letter of --init-steps, each timed as pgbench times its steps
// (runInitSteps, pgbench.c:5244-5321).
const (
	opLoad measure.Op = iota
	opDrop
	opCreate
	opGenerate
	opVacuum
	opPrimaryKeys
	opForeignKeys
)

// initOps are the init step's op types, indexed by the op constants above.
var initOps = []measure.OpType{
	{Name: "load_accounts", Unit: "rows", Abbrev: "la"},
	{Name: "drop_tables", Unit: "steps", Abbrev: "drop"},
	{Name: "create_tables", Unit: "steps", Abbrev: "crt"},
	{Name: "generate", Unit: "steps", Abbrev: "gen"},
	{Name: "vacuum", Unit: "steps", Abbrev: "vac"},
	{Name: "primary_keys", Unit: "steps", Abbrev: "pk"},
	{Name: "foreign_keys", Unit: "steps", Abbrev: "fk"},
}

// initTask is one operation of the init step.
type initTask func(ctx context.Context) (measure.Op, int64, error)

// planInit is pgbench -i: the letters of --init-steps (default dtgvp) in their order, each an
// operation, but g, whose accounts load in batches of initBatch rows (COPY on PostgreSQL) after
// one operation that empties the tables and writes the branches and tellers.
func (b *Bench) planInit(_ context.Context) (*workload.StepPlan, error) {
	if !b.cfg.first() { // shard 0 initializes; this shard waits for it at the next barrier
		return &workload.StepPlan{Step: runner.Step{Name: StepInit, Ops: initOps}, Main: 0, Write: 0, Read: workload.None,
			Close: func() error { return nil }}, nil
	}
	tasks, rows := b.initTasks()
	if len(tasks) == 0 {
		return nil, fmt.Errorf("--init-steps %q does nothing on %s: the primary keys come with the tables (t)", b.cfg.Init.Steps, b.store.Dialect())
	}
	plan := &workload.StepPlan{Progress: opLoad, Total: rows, Main: opLoad, Write: opLoad, Read: workload.None}
	s := &plan.Step
	s.Name, s.Ops = StepInit, initOps
	next := 0
	do := func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		t := tasks[next]
		next++
		return t(ctx)
	}
	s.Workers = []runner.Worker{{Name: "init", Primary: true, Schedule: runner.ClosedLoop{Limit: int64(len(tasks))}, Do: do}}
	plan.Close = func() error { return nil }
	scale := int64(b.cfg.Scale)
	plan.Extra = func(runner.Result) (map[string]any, []string) {
		return map[string]any{"scale": scale, "accounts": scale * accountsPerBranch, "branches": scale, "tellers": scale * tellersPerBranch,
			"init_steps": b.cfg.Init.steps()}, nil
	}
	return plan, nil
}

// initTasks are the init step's operations and the accounts rows they load.
func (b *Bench) initTasks() (tasks []initTask, rows int64) {
	d, scale := b.store.Dialect(), int64(b.cfg.Scale)
	exec := func(op measure.Op, letter rune, sql []string) initTask {
		return func(ctx context.Context) (measure.Op, int64, error) {
			if err := b.store.Exec(ctx, sql...); err != nil {
				return op, 0, fmt.Errorf("init step %c (%s): %w", letter, initOps[op].Name, err)
			}
			return op, 1, nil
		}
	}
	for _, r := range b.cfg.Init.steps() {
		switch r {
		case 'd':
			tasks = append(tasks, exec(opDrop, r, dropSQL(d)))
		case 't':
			tasks = append(tasks, exec(opCreate, r, createSQL(d, b.cfg.Scale, b.cfg.Init)))
		case 'g':
			tasks = append(tasks, b.generateTasks()...)
			rows += scale * accountsPerBranch
		case 'G':
			load := exec(opLoad, r, serverGenerateSQL(scale))
			tasks = append(tasks, func(ctx context.Context) (measure.Op, int64, error) {
				op, _, err := load(ctx)
				return op, scale * accountsPerBranch, err
			})
			rows += scale * accountsPerBranch
		case 'v':
			tasks = append(tasks, exec(opVacuum, r, vacuumSQL(d)))
		case 'p':
			if sql := primaryKeySQL(d); sql != nil { // MySQL, SQLite: the keys came with t
				tasks = append(tasks, exec(opPrimaryKeys, r, sql))
			}
		case 'f':
			tasks = append(tasks, exec(opForeignKeys, r, foreignKeySQL))
		}
	}
	return tasks, rows
}

// generateTasks is the g step (initGenerateDataClientSide, pgbench.c:4944-5092): empty the
// tables and write the branches and tellers, then load the accounts in batches, each a
// transaction of its own (pgbench's is one COPY in one transaction).
func (b *Bench) generateTasks() []initTask {
	d, scale := b.store.Dialect(), int64(b.cfg.Scale)
	first := func(ctx context.Context) (measure.Op, int64, error) {
		if err := b.store.Exec(ctx, truncateSQL(d)...); err != nil {
			return opGenerate, 0, fmt.Errorf("init step g: %w", err)
		}
		var branches, tellers [][]any
		for i := int64(1); i <= scale; i++ {
			branches = append(branches, []any{i, 0})
		}
		for i := int64(1); i <= scale*tellersPerBranch; i++ {
			tellers = append(tellers, []any{i, (i-1)/tellersPerBranch + 1, 0})
		}
		if err := b.store.Load(ctx, "pgbench_branches", []string{"bid", "bbalance"}, branches); err != nil {
			return opGenerate, 0, err
		}
		return opGenerate, 1, b.store.Load(ctx, "pgbench_tellers", []string{"tid", "bid", "tbalance"}, tellers)
	}
	total := scale * accountsPerBranch
	next := int64(1)
	rows := make([][]any, 0, initBatch)
	batch := func(ctx context.Context) (measure.Op, int64, error) {
		rows = rows[:0]
		for aid := next; aid < next+initBatch && aid <= total; aid++ {
			rows = append(rows, []any{aid, (aid-1)/accountsPerBranch + 1, 0, ""})
		}
		if err := b.store.Load(ctx, "pgbench_accounts", []string{"aid", "bid", "abalance", "filler"}, rows); err != nil {
			return opLoad, 0, err
		}
		next += int64(len(rows))
		return opLoad, int64(len(rows)), nil
	}
	tasks := []initTask{first}
	for range (total + initBatch - 1) / initBatch {
		tasks = append(tasks, batch)
	}
	return tasks
}

package script

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// Bench is pgbench's scripts bound to a store.
type Bench struct {
	cfg     Config
	store   Store
	syms    *Symbols
	scripts []*Script
	ops     []measure.OpType
	stmtOp  [][]measure.Op // per script, per SQL command: its op type (per-statement mode)
	failed  measure.Op     // transactions that failed after their last try
	connect measure.Op     // with ConnectEach in a closed loop: each transaction's new connection

	runs     int // run steps planned so far: each gets its own random streams
	scale    int64
	mu       sync.Mutex
	stats    Stats // of the last run step
	before   []int64
	builtins map[string]bool
}

var _ workload.Workload = (*Bench)(nil)

// New parses the scripts (a parse error names the script and line) and binds them to store.
func New(cfg Config, store Store) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Init.forDialect(store.Dialect()); err != nil {
		return nil, err
	}
	if cfg.ConnectEach && store.Dialect() != "postgres" {
		return nil, fmt.Errorf("--connect-per-transaction runs on PostgreSQL only: %s connections come from database/sql's pool, which may hand back one already open rather than a new one", store.Dialect())
	}
	b := &Bench{cfg: cfg, store: store, syms: NewSymbols(), builtins: map[string]bool{}, scale: int64(cfg.Scale)}
	for _, src := range cfg.Sources {
		text, name := src.Text, src.Name
		if src.Builtin != "" {
			full, t, err := BuiltinText(src.Builtin, store.Dialect())
			if err != nil {
				return nil, err
			}
			text, b.builtins[full] = t, true
			if name == "" {
				name = full
			}
		}
		s, err := Parse(name, text, b.syms)
		if err != nil {
			return nil, err
		}
		if err := checkCompound(s, store.Dialect()); err != nil {
			return nil, err
		}
		s.Weight = src.Weight
		b.scripts = append(b.scripts, s)
	}
	for _, d := range cfg.Defines {
		n, _, _ := strings.Cut(d, "=")
		b.syms.Slot(n)
	}
	b.ops, b.stmtOp, b.failed = Ops(b.scripts, cfg.PerStatement, cfg.ConnectEach)
	b.connect = b.failed + 1
	return b, nil
}

// Ops are the op types: one per script (or per SQL command with perStatement, named
// SCRIPT.N from 1), then "failed", then with connect (pgbench -C) "connect".
func Ops(scripts []*Script, perStatement, connect bool) (ops []measure.OpType, stmtOp [][]measure.Op, failed measure.Op) {
	for _, s := range scripts {
		var per []measure.Op
		if !perStatement {
			ops = append(ops, measure.OpType{Name: s.Name, Unit: "transactions"})
		} else {
			for n := range s.NSQL {
				per = append(per, measure.Op(len(ops)))
				ops = append(ops, measure.OpType{Name: s.Name + "." + strconv.Itoa(n+1), Unit: "statements"})
			}
		}
		stmtOp = append(stmtOp, per)
	}
	ops = append(ops, measure.OpType{Name: FailedOp, Unit: "transactions", Abbrev: "fail"})
	failed = measure.Op(len(ops) - 1)
	if connect {
		ops = append(ops, measure.OpType{Name: ConnectOp, Unit: "connections", Abbrev: "conn"})
	}
	return ops, stmtOp, failed
}

// checkCompound refuses a \; compound statement off PostgreSQL, before any work: MySQL and
// MariaDB refuse several statements in one query unless the connection asked for them at its
// handshake (error 1064), and database/sql's SQLite driver returns only the last statement's
// rows, so \aset would miss the others' variables.
func checkCompound(s *Script, dialect string) error {
	if dialect == "postgres" {
		return nil
	}
	for _, c := range s.Cmds {
		if c.Kind == CmdSQL && c.Compound {
			return fmt.Errorf("%s:%d: \\; joins SQL commands into one compound statement, which dbperf runs on PostgreSQL only, not %s: end each command with ; instead (and \\gset each result you need)", s.Name, c.Line, dialect)
		}
	}
	return nil
}

// FailedOp is the op type of transactions that failed after their last try.
const FailedOp = "failed"

// ConnectOp is the op type of the connections --connect-per-transaction opens in a closed loop.
const ConnectOp = "connect"

// Steps implements workload.Workload.
func (b *Bench) Steps() []string { return b.cfg.Steps }

// Settings implements workload.Workload.
func (b *Bench) Settings() map[string]any {
	var scripts []map[string]any
	for i, s := range b.scripts {
		m := map[string]any{"name": s.Name, "weight": s.Weight, "commands": len(s.Cmds)}
		if src := b.cfg.Sources[i]; src.Builtin != "" {
			m["builtin"] = s.Name
		} else {
			m["text"] = src.Text
		}
		scripts = append(scripts, m)
	}
	return map[string]any{
		"scripts": scripts, "clients": b.cfg.Clients, "transactions": b.cfg.Transactions,
		"step_seconds": b.cfg.Duration.Seconds(), "query_mode": b.cfg.Mode.String(),
		"per_statement": b.cfg.PerStatement, "max_tries": b.cfg.MaxTries, "scale": b.cfg.Scale,
		"defines": b.cfg.Defines, "no_vacuum": b.cfg.NoVacuum, "steps": b.cfg.Steps,
		"arrival": b.cfg.Arrival.String(), "random_seed": b.cfg.Seed,
		"connect_per_transaction": b.cfg.ConnectEach, "init_steps": b.cfg.Init.steps(),
		"fillfactor": b.cfg.Init.Fillfactor, "partitions": b.cfg.Init.Partitions, "partition_method": b.cfg.Init.method(),
	}
}

// Plan implements workload.Workload.
func (b *Bench) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	switch step {
	case StepInit:
		return b.planInit(ctx)
	case StepRun:
		return b.planRun(ctx)
	}
	return nil, fmt.Errorf("unknown step %q: the steps are init and run", step)
}

// scaleOf is :scale: with a built-in script, the rows of pgbench_branches (pgbench.c:
// 5337-5359), else --scale.
func (b *Bench) scaleOf(ctx context.Context) (int64, error) {
	if !b.cfg.Builtin() {
		return int64(b.cfg.Scale), nil
	}
	row, err := b.store.QueryRow(ctx, "SELECT count(*) FROM pgbench_branches")
	if err != nil {
		return 0, fmt.Errorf("reading the scale from pgbench_branches (run the init step first): %w", err)
	}
	n, _ := strconv.ParseInt(row[0], 10, 64)
	if n < 1 {
		return 0, errors.New("pgbench_branches is empty: run the init step first")
	}
	return n, nil
}

func (b *Bench) planRun(ctx context.Context) (*workload.StepPlan, error) {
	scale, err := b.scaleOf(ctx)
	if err != nil {
		return nil, err
	}
	b.scale = scale
	if b.cfg.Builtin() && !b.cfg.NoVacuum && b.cfg.first() { // once, before every shard's barrier
		if err := b.store.Exec(ctx, beforeRunSQL(b.store.Dialect())...); err != nil {
			return nil, fmt.Errorf("before the run (vacuum, truncate pgbench_history; --no-vacuum skips it): %w", err)
		}
	}
	if b.before, err = b.balances(ctx); err != nil {
		return nil, err
	}
	plan := &workload.StepPlan{Main: 0, Progress: 0, Write: workload.None, Read: workload.None}
	for o := range b.ops[:b.failed] {
		plan.PerOp = append(plan.PerOp, measure.Op(o))
	}
	s := &plan.Step
	s.Name, s.Ops, s.Duration, s.Classify = StepRun, b.ops, b.cfg.Duration, func(err error) string { k, _ := b.store.Outcome(err); return k }
	clients, err := b.clients(ctx)
	closeAll := func() error {
		var errs []error
		for _, c := range clients {
			if c.conn != nil {
				errs = append(errs, c.conn.Close())
			}
		}
		return errors.Join(errs...)
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	warm := newWarmAside(clients)
	if err := b.addClients(s, clients, warm); err != nil {
		closeAll()
		return nil, err
	}
	plan.Close = closeAll
	plan.Extra = func(res runner.Result) (map[string]any, []string) { return b.runFigures(clients, warm, res) }
	plan.WarmupEnd = warm.mark.End
	return plan, nil
}

// SetArrival implements workload.Tunable.
func (b *Bench) SetArrival(a workload.Arrival) { b.cfg.Arrival = a }

// SetStepSeconds implements workload.Tunable: the next run steps last this long.
func (b *Bench) SetStepSeconds(s float64) {
	b.cfg.Duration = time.Duration(s * float64(time.Second))
	b.cfg.Transactions = 0
}

// KeepsSize implements workload.Tunable: a run adds history rows and changes balances but
// keeps every table's size that a script reads by key, so a search does not load again.
func (b *Bench) KeepsSize(step string) bool { return step == StepRun }

// RateOps implements workload.Tunable: the run step's stream is every script.
func (b *Bench) RateOps(step string) []string {
	if step != StepRun {
		return nil
	}
	var names []string
	for _, o := range b.ops[:b.failed] {
		names = append(names, o.Name)
	}
	return names
}

// SetClients implements workload.ClientTunable.
func (b *Bench) SetClients(n int) { b.cfg.Clients = n }

// Stats are the last run step's transaction counts.
func (b *Bench) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

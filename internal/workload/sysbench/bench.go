// Package sysbench is sysbench 1.0.20's OLTP tests (oltp_*.lua and oltp_common.lua): the
// sbtest tables, their prepare step (a bulk load, then the k index), and each test's event (a
// transaction of point selects, ranges, updates and a delete+insert, or one statement), with
// sysbench's random types for ids and k. docs/sysbench.md cites the source of each part.
package sysbench

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// Stmt is one of oltp_common.lua's statements (stmt_defs, oltp_common.lua:243-280).
type Stmt int

// The statements, in stmt_defs' order, then BEGIN and COMMIT.
const (
	PointSelect Stmt = iota
	SimpleRange
	SumRange
	OrderRange
	DistinctRange
	IndexUpdate
	NonIndexUpdate
	Delete
	Insert
	Begin
	Commit
	NumStmts
)

var stmtText = [...]string{
	"SELECT c FROM sbtest%d WHERE id=?",
	"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
	"SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
	"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	"SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	"UPDATE sbtest%d SET k=k+1 WHERE id=?",
	"UPDATE sbtest%d SET c=? WHERE id=?",
	"DELETE FROM sbtest%d WHERE id=?",
	"INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
	"BEGIN",
	"COMMIT",
}

// SQL is a statement's text for table (1-based) with sysbench's '?' placeholders.
func SQL(s Stmt, table int) string {
	if s >= Begin {
		return stmtText[s]
	}
	return fmt.Sprintf(stmtText[s], table)
}

// Result is what a statement did, as sysbench's drivers count it: a result set is a read, a
// change of at least one row a write, anything else (BEGIN, COMMIT, an UPDATE or DELETE that
// matched nothing) other (drv_pgsql.c:496-507).
type Result struct {
	Rows     bool  // it returned a result set
	Affected int64 // rows changed
}

// Store is a target's sbtest tables.
type Store interface {
	// Dialect is postgres, mysql or sqlite: the schema and oltp_insert's statement follow it.
	Dialect() string
	// Exec runs DDL or a statement without arguments on a connection of its own.
	Exec(ctx context.Context, q string) error
	// Connect opens a client's connection, with the run's statements prepared if stmts.
	Connect(ctx context.Context, stmts bool) (Conn, error)
	// Count is a table's rows and distinct ids.
	Count(ctx context.Context, table int) (rows, ids int64, err error)
	// Ignorable says whether sysbench ignores err and restarts the event: PostgreSQL's
	// deadlocks, serialization failures and unique violations; MySQL's --mysql-ignore-errors.
	Ignorable(err error) bool
	// QueryMode is how statements with arguments are sent: prepared or simple.
	QueryMode() string
}

// Arg is a statement's argument: a string (its bytes, Str not nil) or an integer. Typed rather
// than boxed in an interface, so that a statement's arguments cost no allocation.
type Arg struct {
	Int int64
	Str []byte
}

// Int is an integer argument.
func Int(v int64) Arg { return Arg{Int: v} }

// Str is a string argument; b must not be nil.
func Str(b []byte) Arg { return Arg{Str: b} }

// Conn is one client's connection.
type Conn interface {
	// Exec runs a statement of table with its arguments, reading every row. args and their
	// bytes are the client's, reused by its next statement: Exec must not keep them.
	Exec(ctx context.Context, s Stmt, table int, args []Arg) (Result, error)
	// Text runs q as text, unprepared (the bulk load, oltp_insert's INSERT).
	Text(ctx context.Context, q []byte) (Result, error)
	// Rollback ends a failed transaction.
	Rollback(ctx context.Context) error
	Close() error
}

// The op types: the event (sysbench's "transaction") and the prepare step's rows. Each step
// lists only its own (runOps, prepareOps), so that its op table has no row of the other's,
// and an op is its index in its step's list.
const (
	OpTrx  measure.Op = 0 // in runOps
	OpLoad measure.Op = 0 // in prepareOps
)

// Ops are the op types of both steps, as the figures declare them.
var Ops = []measure.OpType{
	{Name: "trx", Unit: "transactions", Abbrev: "trx"},
	{Name: "load", Unit: "rows", Abbrev: "ins"},
}

// runOps and prepareOps are each step's op types.
var runOps, prepareOps = Ops[:1], Ops[1:]

// Bench is a sysbench OLTP test bound to a store.
type Bench struct {
	cfg     Config
	store   Store
	ev      Counts
	mu      sync.Mutex
	unique  *Unique   // oltp_insert's ids with --auto-inc off, shared as sysbench's
	clients []*Client // the last run step's
	mark    *workload.Mark
	loaded  bool
}

var _ workload.Workload = (*Bench)(nil)

// New validates cfg and binds the test to store.
func New(cfg Config, store Store) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg, store: store, ev: cfg.Event()}
	b.unique = NewUnique(b.rng("unique", 0))
	return b, nil
}

// Steps implements workload.Workload.
func (b *Bench) Steps() []string { return b.cfg.Steps }

// Settings implements workload.Workload: the options by sysbench's names.
func (b *Bench) Settings() map[string]any {
	c := b.cfg
	ignore := make([]string, len(c.IgnoreErrors))
	for i, n := range c.IgnoreErrors {
		ignore[i] = strconv.Itoa(int(n))
	}
	if c.IgnoreAll {
		ignore = []string{"all"}
	}
	return map[string]any{"test": "oltp_" + c.Test, "tables": c.Tables, "table_size": c.TableSize,
		"range_size": c.RangeSize, "point_selects": c.PointSelects, "simple_ranges": c.SimpleRanges,
		"sum_ranges": c.SumRanges, "order_ranges": c.OrderRanges, "distinct_ranges": c.DistinctRanges,
		"index_updates": c.IndexUpdates, "non_index_updates": c.NonIndexUpdates, "delete_inserts": c.DeleteInserts,
		"range_selects": c.RangeSelects, "auto_inc": c.AutoInc, "skip_trx": c.SkipTrx,
		"create_secondary": c.CreateSecondary, "rand_type": c.Rand.Type, "rand_spec_iter": c.Rand.SpecIter,
		"rand_spec_pct": c.Rand.SpecPct, "rand_spec_res": c.Rand.SpecRes, "rand_pareto_h": c.Rand.ParetoH,
		"threads": c.Threads, "events": c.Events, "time": c.Duration.Seconds(), "query_mode": b.store.QueryMode(),
		"mysql_ignore_errors": ignore, "statements_per_event": b.ev.Statements(), "steps": c.Steps,
		"arrival": c.Arrival.String(), "seed": c.Seed}
}

// rng is one client's random stream in one step.
func (b *Bench) rng(step string, client int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "sysbench/%s/%d", step, client)
	return rand.New(rand.NewPCG(b.cfg.Seed, h.Sum64()))
}

// Plan implements workload.Workload.
func (b *Bench) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	n := len(b.threads(step))
	var conns []Conn
	closeAll := func() error {
		var errs []error
		for _, c := range conns {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	for range n {
		c, err := b.store.Connect(ctx, step == StepRun)
		if err != nil {
			closeAll()
			return nil, err
		}
		conns = append(conns, c)
	}
	var plan *workload.StepPlan
	var err error
	switch step {
	case StepPrepare:
		plan, err = b.planPrepare(ctx, conns)
	case StepRun:
		plan, err = b.planRun(conns)
	default:
		err = fmt.Errorf("unknown step %q: the steps are prepare and run", step)
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	plan.Close = closeAll
	return plan, nil
}

func (b *Bench) planRun(conns []Conn) (*workload.StepPlan, error) {
	plan := &workload.StepPlan{Progress: OpTrx, Total: b.cfg.Events, Main: OpTrx, Write: workload.None, Read: workload.None}
	s := &plan.Step
	s.Name, s.Ops, s.Duration = StepRun, runOps, b.cfg.Duration
	b.clients = b.clients[:0]
	b.mark = new(workload.Mark)
	plan.WarmupEnd = b.mark.End
	dos := make([]runner.DoFunc, len(conns))
	for i, conn := range conns {
		c := b.NewClient(StepRun, b.threads(StepRun)[i], conn)
		b.clients = append(b.clients, c)
		dos[i] = c.do
	}
	if err := b.cfg.Arrival.Apply(s, workload.Stream{Name: "thread", Do: dos, Primary: true, Limit: b.cfg.Events}); err != nil {
		return nil, err
	}
	plan.Extra = func(res runner.Result) (map[string]any, []string) { return b.figures(res), nil }
	return plan, nil
}

// threads are the global numbers of the threads this process runs in a step: all of them, or a
// shard's (--shard: [ThreadFrom, ThreadTo)); prepare's are min(threads, tables), thread t
// loading tables t+1, t+1+n, ... (oltp_common.lua:85-88).
func (b *Bench) threads(step string) []int {
	n := b.cfg.Threads
	if step == StepPrepare {
		n = min(n, b.cfg.Tables)
	}
	from, to := 0, n
	if b.cfg.ThreadTo > 0 {
		from, to = b.cfg.ThreadFrom, min(b.cfg.ThreadTo, n)
	}
	var out []int
	for t := from; t < to; t++ {
		out = append(out, t)
	}
	return out
}

// Totals adds up the clients' counts.
func (b *Bench) totals() Tally {
	var t Tally
	for _, c := range b.clients {
		t.add(c.Tally)
	}
	return t
}

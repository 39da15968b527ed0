// Package insertbench is the Insert Benchmark (iibench): load in primary key order, build three
// secondary indexes, insert random with respect to them while deleting the oldest rows (a FIFO
// queue of fixed size), then range and point queries while inserts run at a fixed rate.
//
// It follows ../shared/reference/insert-benchmark.md; docs/insert-benchmark.md lists every
// deliberate deviation.
package insertbench

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// table is the client's own account of one table: which ids exist. The client assigns ids, so
// it knows the FIFO head and tail without asking the database.
type table struct {
	name      string
	producers int          // inserters (and deleters) using this table
	nextID    atomic.Int64 // next transactionid to assign
	committed atomic.Int64 // highest id known committed
	head      int64        // lowest id not deleted, at the start of the current step
	indexed   bool

	backlog *runner.Backlog // current step's rows inserted and not yet claimed for deletion
}

// currentHead is the lowest id not yet claimed for deletion.
func (t *table) currentHead() int64 {
	if t.backlog == nil {
		return t.head
	}
	return t.head + t.backlog.Claimed()
}

func (t *table) markCommitted(id int64) {
	for {
		c := t.committed.Load()
		if id <= c || t.committed.CompareAndSwap(c, id) {
			return
		}
	}
}

// Bench is the Insert Benchmark bound to a store.
type Bench struct {
	cfg    Config
	store  Store
	tables []*table
	loaded bool          // the client's table accounts are known (after l.i0, or read from the database)
	warmup time.Duration // a q step's warm-up, which its inserts' schedule runs through (warmup.go)
}

var _ workload.Workload = (*Bench)(nil)

// New validates cfg and binds the benchmark to store.
func New(cfg Config, store Store) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bench{cfg: cfg, store: store}
	if sm, ok := store.(StatementMode); ok {
		sm.SetStatementMode(cfg.Prepared, cfg.SharedTable)
	}
	lo, n := cfg.clientRange() // a shard's tables are named by its clients' global numbers
	if cfg.SharedTable {
		lo, n = 0, 1
	}
	for i := lo; i < n; i++ {
		t := &table{name: fmt.Sprintf("pi%d", i+1), producers: 1}
		if cfg.SharedTable {
			t.producers = cfg.Clients
		}
		b.tables = append(b.tables, t)
	}
	return b, nil
}

// Steps implements workload.Workload.
func (b *Bench) Steps() []string { return b.cfg.Steps }

// Settings implements workload.Workload.
func (b *Bench) Settings() map[string]any {
	mode := "per-client"
	if b.cfg.SharedTable {
		mode = "shared"
	}
	return map[string]any{
		"clients":         b.cfg.Clients,
		"tables":          mode,
		"rows":            b.cfg.Rows,
		"l1_rows":         b.cfg.L1Rows,
		"l2_rows":         b.cfg.L1Rows / 4,
		"q_seconds":       b.cfg.QSeconds,
		"data_min":        b.cfg.Data.Min,
		"data_max":        b.cfg.Data.Max,
		"data_random_pct": b.cfg.Data.RandomPct,
		"settle_wait_sec": b.cfg.settleWait().Seconds(),
		"settle_scale":    b.cfg.SettleScale,
		"step_seconds":    b.cfg.StepSeconds,
		"retries":         b.cfg.Retries,
		"steps":           b.cfg.Steps,
		"arrival":         b.cfg.Arrival.String(),
		"checks":          b.checksSetting(),
		"statements":      b.statementsSetting(),
		"query_mode":      map[bool]string{false: "simple", true: "prepared"}[b.cfg.Prepared], // --query-mode; statements says what each mode sends
	}
}

func (b *Bench) tableOf(client int) *table {
	if b.cfg.SharedTable {
		return b.tables[0]
	}
	lo, _ := b.cfg.clientRange()
	return b.tables[client-lo]
}

func (b *Bench) tableNames() []string {
	names := make([]string, len(b.tables))
	for i, t := range b.tables {
		names[i] = t.name
	}
	return names
}

// rng returns the random stream of one role of one client in one step: never the same stream
// twice within a run, and different in every run with a different seed.
func (b *Bench) rng(step, role string, client int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", step, role, client)
	return rand.New(rand.NewPCG(b.cfg.Seed, h.Sum64()))
}

// CheckStart checks, before a run starts, that its first step finds the tables it needs in the
// database named where: a run that does not start with l.i0 reads where each table's FIFO queue
// starts and ends; one that does may only replace tables dbperf created (or any, with --drop).
func (b *Bench) CheckStart(ctx context.Context, where string) error {
	if g, ok := b.store.(TableGuard); ok && slices.Contains(b.cfg.Steps, "l.i0") && !b.cfg.Drop {
		foreign, err := g.ForeignTables(ctx, b.tableNames())
		if err != nil {
			return fmt.Errorf("checking for existing tables: %w", err)
		}
		if len(foreign) > 0 {
			return fmt.Errorf("%s has tables %s that dbperf did not create: l.i0 would drop them; pass --drop to replace them, or use another database",
				where, strings.Join(foreign, ", "))
		}
	}
	todo := b.cfg.NeedsData()
	if todo == "" {
		return nil
	}
	if err := b.loadAccounts(ctx); err != nil {
		return fmt.Errorf("--steps starts with %s, which needs the Insert Benchmark's tables, but in %s %s: %s or give a database that has the tables",
			b.cfg.Steps[0], where, err, todo)
	}
	return nil
}

// loadAccounts reads the tables' state from the database when a run starts after l.i0.
func (b *Bench) loadAccounts(ctx context.Context) error {
	for _, t := range b.tables {
		st, err := b.store.Stats(ctx, t.name)
		if err != nil {
			return fmt.Errorf("table %s cannot be read (%w)", t.name, err)
		}
		if st.Rows == 0 {
			return fmt.Errorf("table %s is empty", t.name)
		}
		t.head = st.MinID
		t.nextID.Store(st.MaxID + 1)
		t.committed.Store(st.MaxID)
		t.indexed = st.IndexRows != nil
	}
	b.loaded = true
	return nil
}

// Plan implements workload.Workload.
func (b *Bench) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	info, err := parseStep(step)
	if err != nil {
		return nil, err
	}
	if info.kind == kindLoad {
		if err := b.store.CreateTables(ctx, b.tableNames()); err != nil {
			return nil, fmt.Errorf("creating tables: %w", err)
		}
		for _, t := range b.tables {
			t.head = 1
			t.nextID.Store(1)
			t.committed.Store(0)
			t.indexed = false
		}
		b.loaded = true
	} else if !b.loaded && info.kind != kindCleanup {
		if err := b.loadAccounts(ctx); err != nil {
			return nil, err
		}
	}
	for _, t := range b.tables {
		t.head = t.currentHead() // the previous step's deletes are done
		t.backlog = nil
	}
	var before string
	if ss, ok := b.store.(StepStarter); ok {
		before = ss.BeforeStep(ctx)
	}
	p := &planner{b: b, step: step, info: info, client1: newRateCounter()}
	plan, err := p.build(ctx)
	if err != nil {
		p.close()
		return nil, err
	}
	plan.Close = p.close
	// Say what the reference's per-step preparation did and which check follows the step.
	extra, check := plan.Extra, b.checkOf(step)
	plan.Extra = func(res runner.Result) (map[string]any, []string) {
		var figs map[string]any
		var warn []string
		if extra != nil {
			figs, warn = extra(res)
		}
		if figs == nil {
			figs = map[string]any{}
		}
		if before != "" {
			figs["before_step"] = before
		}
		figs["check"] = check
		p.figures(figs, res)
		if w := b.cacheWarning(info.kind); w != "" {
			warn = append(warn, w)
		}
		return figs, warn
	}
	return plan, nil
}

// planner builds one step's workers and holds their connections.
type planner struct {
	b     *Bench
	step  string
	info  stepInfo
	conns []Conn
	// client1 counts client 1's units of the step's main op for the reference's p50/p99.
	client1 *rateCounter
	// deleteWait is how long claimed deletes waited for their deleter (sum and max, ns).
	deleteWaitSum, deleteWaitMax atomic.Int64
	deletes                      atomic.Int64
}

func (p *planner) connect(ctx context.Context) (Conn, error) {
	c, err := p.b.store.Connect(ctx)
	if err != nil {
		return nil, err
	}
	p.conns = append(p.conns, c)
	return c, nil
}

func (p *planner) close() error {
	var errs []error
	for _, c := range p.conns {
		errs = append(errs, c.Close())
	}
	p.conns = nil
	return errors.Join(errs...)
}

// Op indexes within a step's declared op types: insert steps declare insert, then delete when
// they delete, then query for q steps; l.x and settle declare their one op type.
const (
	stepInsert measure.Op = iota
	stepDelete
	stepQuery
)

func (p *planner) build(ctx context.Context) (*workload.StepPlan, error) {
	b := p.b
	plan := &workload.StepPlan{Main: 0, Progress: 0, Write: workload.None, Read: workload.None}
	s := &plan.Step
	s.Name, s.Retries = p.step, b.cfg.Retries
	switch p.info.kind {
	case kindIndex:
		return p.index(ctx, plan)
	case kindCleanup:
		return p.cleanup(plan), nil
	case kindSettle:
		return p.settle(plan), nil
	}

	// Insert steps: l.i0, l.i1, l.i2 and the q steps.
	deletes := p.info.kind != kindLoad
	rowsPerClient := b.cfg.Rows
	switch {
	case p.step == "l.i1":
		rowsPerClient = b.cfg.L1Rows
	case p.step == "l.i2":
		rowsPerClient = b.cfg.L1Rows / 4
	case p.info.kind == kindQuery:
		rowsPerClient = int64(math.Round(p.info.rate * (b.cfg.QSeconds + b.warmup.Seconds())))
	}
	s.Ops = []measure.OpType{opInsert}
	if deletes {
		s.Ops = append(s.Ops, opDelete)
		for _, t := range b.tables {
			t.backlog = runner.NewBacklog(t.producers)
		}
	}
	if p.info.kind == kindQuery {
		s.Ops = append(s.Ops, opQuery)
	}
	plan.Progress, plan.Main, plan.Write, plan.Total = stepInsert, stepInsert, stepInsert, rowsPerClient*int64(b.cfg.shardClients())
	if p.info.kind != kindQuery && b.cfg.StepSeconds > 0 { // a time limit beside the row count
		s.Duration = time.Duration(b.cfg.StepSeconds * float64(time.Second))
	}

	var queriers []runner.DoFunc
	lo, hi := b.cfg.clientRange()
	for c := lo; c < hi; c++ {
		t := b.tableOf(c)
		conn, err := p.connect(ctx)
		if err != nil {
			return nil, err
		}
		p.inserter(s, c, t, conn, rowsPerClient, deletes)
		if deletes {
			dconn, err := p.connect(ctx)
			if err != nil {
				return nil, err
			}
			s.Workers = append(s.Workers, p.deleter(c, t, dconn))
		}
		if p.info.kind == kindQuery {
			qconn, err := p.connect(ctx)
			if err != nil {
				return nil, err
			}
			queriers = append(queriers, p.querier(c, t, qconn))
		}
	}
	if p.info.kind == kindQuery {
		// The queriers run until the inserts are done, closed loop as the reference's, or at
		// the run's open-loop arrival rate.
		if err := b.cfg.Arrival.Apply(s, workload.Stream{Name: "querier", Do: queriers}); err != nil {
			return nil, err
		}
		plan.Main, plan.Read = stepQuery, stepQuery
		// The gate judges the measured part, which follows the warm-up's share of the schedule.
		plan.Extra = insertGate(p.info.rate*float64(b.cfg.shardClients()), float64(rowsPerClient)/p.info.rate-b.warmup.Seconds())
	}
	return plan, nil
}

// insertGate judges a q step's inserts against 95% of their target (rows a second, all
// clients), over the seconds that ran. Each statement stands for 1/rate of the schedule, so a
// complete step's schedule lasts scheduled seconds even though its last statement starts before
// that: its rate divides by the longer of the two, and can never exceed the target because of the
// fence post. An interrupted step divides by the seconds it ran: dividing by the whole schedule
// read 45/s for inserts that ran at 208/s until the interrupt.
func insertGate(target, scheduled float64) func(runner.Result) (map[string]any, []string) {
	return func(res runner.Result) (map[string]any, []string) {
		secs := res.End.Sub(res.Start).Seconds()
		if res.Complete {
			secs = max(secs, scheduled)
		}
		var achieved float64
		if secs > 0 {
			achieved = float64(res.Total.Ops[stepInsert].Units) / secs
		}
		met := achieved >= 0.95*target
		var warnings []string
		if !met {
			warnings = append(warnings, "the insert rate is below 95% of the target: query figures of this step are not comparable")
		}
		return map[string]any{
			keyTarget:   target,
			keyAchieved: measure.Round(achieved, 3),
			keyMet:      met,
		}, warnings
	}
}

// lxRows are the rows l.x inserts before it creates the indexes, shared by the tables' clients
// (iq.sh:230: np.sh 100 ... with rows per statement 100).
const lxRows = 100

// figures adds the step's reference figures: p50 and p99 of client 1's per-second rates (see
// rates.go) and the deletes' queue wait.
func (p *planner) figures(figs map[string]any, res runner.Result) {
	if p.info.kind == kindIndex || p.info.kind == kindSettle {
		return
	}
	rates := p.client1.Rates(res.Start, res.End)
	if v, ok := refPercentile(rates, 50); ok {
		figs["p50"] = v
	}
	if v, ok := refPercentile(rates, 99); ok {
		figs["p99"] = v
	}
	if n := p.deletes.Load(); n > 0 {
		figs["delete_queue_wait_avg_ms"] = measure.Round(float64(p.deleteWaitSum.Load())/float64(n)/1e6, 3)
		figs["delete_queue_wait_max_ms"] = measure.Round(float64(p.deleteWaitMax.Load())/1e6, 3)
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// settleRuleText says where the settle's length came from.
func (b *Bench) settleRuleText() string {
	if b.cfg.SettleWait > 0 {
		return fmt.Sprintf("--settle-wait %s instead of the reference's rule", b.cfg.SettleWait)
	}
	rule := SettleRule(b.cfg.Rows * int64(b.cfg.Clients))
	if b.cfg.SettleScale == 1 {
		return fmt.Sprintf("the reference's rule: 60 s + 1 s per million rows loaded, at most 1200 s = %s", rule)
	}
	return fmt.Sprintf("the reference's rule, %s, scaled by --settle-scale %g", rule, b.cfg.SettleScale)
}

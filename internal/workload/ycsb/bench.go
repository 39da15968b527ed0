// Package ycsb is YCSB's core workloads A-F (CoreWorkload, brianfrankcooper/YCSB 0.17.0): a
// load phase that inserts recordcount records of fieldcount fields, and a run phase of reads,
// updates, inserts, scans and read-modify-writes with YCSB's key choosers (scrambled zipfian,
// latest, uniform, hotspot) and hashed insert order. It follows
// ../shared/reference/standard-workloads.md §3; docs/ycsb.md cites the source for each part.
package ycsb

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync/atomic"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// Store is a target's usertable: key-value engines directly, SQL targets as YCSB's JDBC
// binding lays it out (ycsbdb).
type Store interface {
	// Create makes the table for fieldcount fields: dropped first when drop is set (a whole
	// load), else created only if missing, keeping its records (a part of a split load).
	Create(ctx context.Context, fields int, drop bool) error
	// Connect opens a client's connection to a table of fields fields.
	Connect(ctx context.Context, fields int) (Conn, error)
	// Count is the table's records.
	Count(ctx context.Context) (int64, error)
	// CountKeys is how many of keys the table holds.
	CountKeys(ctx context.Context, keys []string) (int64, error)
}

// Conn is one client's connection.
type Conn interface {
	Insert(ctx context.Context, key string, values [][]byte) error
	// Read reads a record: every field, or only field (>= 0); found is false for no record.
	Read(ctx context.Context, key string, field int) (found bool, err error)
	// Update writes the given fields' values.
	Update(ctx context.Context, key string, fields []int, values [][]byte) error
	// Scan reads up to n records from start in key order, returning how many it read.
	Scan(ctx context.Context, start string, n int) (int, error)
	Close() error
}

// The op types, with YCSB's names in the comments.
const (
	opInsert measure.Op = iota // INSERT
	opRead                     // READ
	opUpdate                   // UPDATE
	opScan                     // SCAN
	opRMW                      // READ-MODIFY-WRITE
)

// Ops are the op types of both phases.
var Ops = []measure.OpType{
	{Name: "insert", Unit: "operations", Abbrev: "ins"},
	{Name: "read", Unit: "operations", Abbrev: "rd"},
	{Name: "update", Unit: "operations", Abbrev: "upd"},
	{Name: "scan", Unit: "operations", Abbrev: "scan"},
	{Name: "read-modify-write", Unit: "operations", Abbrev: "rmw"},
}

// Bench is YCSB bound to a store.
type Bench struct {
	cfg      Config
	store    Store
	inserts  *Acknowledged // the run phase's insert keys (transactioninsertkeysequence)
	loaded   bool
	notFound atomic.Int64
	inserted atomic.Int64
	// the counts when the run step's warm-up ended, which its figures leave out (warmup.go)
	warmNotFound, warmInserted int64
	// earlier is what the run steps before this one inserted since the load (a search's
	// warm-ups and trials follow one load): the check counts them too
	earlier int64
	// base is the records the run step's check starts from: insertcount after a whole load,
	// the table's count after a part of a split load (the other parts' records too)
	base int64
	zipf *Zipfian // computed once, cloned per client
	// seqCounter is the sequential key chooser's one counter, shared by the clients.
	seqCounter *atomic.Int64
}

var _ workload.Workload = (*Bench)(nil)

// New validates cfg and binds YCSB to store.
func New(cfg Config, store Store) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Bench{cfg: cfg, store: store, inserts: NewAcknowledged(cfg.RecordCount)}, nil
}

// Steps implements workload.Workload.
func (b *Bench) Steps() []string { return b.cfg.Steps }

// Settings implements workload.Workload: the properties, by YCSB's names.
func (b *Bench) Settings() map[string]any {
	c := b.cfg
	return map[string]any{"workload": c.Workload, "recordcount": c.RecordCount, "operationcount": c.OperationCount,
		"fieldcount": c.FieldCount, "fieldlength": c.FieldLength, "readallfields": c.ReadAllFields,
		"writeallfields": c.WriteAllFields, "readproportion": c.Read, "updateproportion": c.Update,
		"insertproportion": c.Insert, "scanproportion": c.Scan, "readmodifywriteproportion": c.RMW,
		"requestdistribution": c.Distribution, "minscanlength": c.MinScan, "maxscanlength": c.MaxScan,
		"insertorder": c.InsertOrder, "zeropadding": c.ZeroPadding, "insertstart": c.InsertStart,
		"insertcount": c.Count(), "hotspotdatafraction": c.HotData, "hotspotopnfraction": c.HotOpn,
		"threadcount": c.Clients, "maxexecutiontime": c.Duration.Seconds(), "steps": c.Steps,
		"arrival": c.Arrival.String(), "seed": c.Seed, "query_mode": b.queryMode()}
}

// queryMode is how the store sends statements: its own account (SQL targets, whose default is
// prepared), else "" (key-value targets run no SQL).
func (b *Bench) queryMode() string {
	if s, ok := b.store.(interface{ QueryMode() string }); ok {
		return s.QueryMode()
	}
	return b.cfg.QueryMode
}

// rng is one client's random stream in one step.
func (b *Bench) rng(step string, client int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", step, client)
	return rand.New(rand.NewPCG(b.cfg.Seed, h.Sum64()))
}

// Plan implements workload.Workload.
func (b *Bench) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	var conns []Conn
	closeAll := func() error {
		var errs []error
		for _, c := range conns {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	lo, hi := b.cfg.ClientRange() // sharded: this shard's clients (shard.go)
	for range hi - lo {
		c, err := b.store.Connect(ctx, b.cfg.FieldCount)
		if err != nil {
			closeAll()
			return nil, err
		}
		conns = append(conns, c)
	}
	var plan *workload.StepPlan
	var err error
	switch step {
	case StepLoad:
		plan, err = b.planLoad(ctx, conns)
	case StepRun:
		plan, err = b.planRun(conns)
	default:
		err = fmt.Errorf("unknown step %q: the steps are load and run", step)
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	plan.Close = closeAll
	return plan, nil
}

// planLoad is the load phase (CoreWorkload.doInsert): keynums insertstart, insertstart+1, ...
// handed out in order to the clients, every record with all its fields. A whole load
// (docs/ycsb.md, "Splitting a load") starts from an empty usertable; a part keeps the table's
// records, as YCSB's loaders that share one table do.
func (b *Bench) planLoad(ctx context.Context, conns []Conn) (*workload.StepPlan, error) {
	if !b.cfg.first() {
		// created by shard 0, whose plan ends before the step's barrier
	} else if err := b.store.Create(ctx, b.cfg.FieldCount, b.cfg.WholeLoad()); err != nil {
		return nil, fmt.Errorf("creating usertable: %w", err)
	}
	b.earlier, b.inserts = 0, NewAcknowledged(b.cfg.RecordCount) // a new table: run inserts start over
	b.base = b.cfg.Count()
	b.inserted.Store(0)
	from, to := b.cfg.LoadRange()
	total := to - from
	plan := &workload.StepPlan{Progress: opInsert, Total: total, Main: opInsert, Write: opInsert, Read: workload.None}
	s := &plan.Step
	s.Name, s.Ops = StepLoad, Ops
	var next atomic.Int64
	next.Store(from)
	lo, _ := b.cfg.ClientRange()
	for i, conn := range conns {
		c := b.newClient(StepLoad, lo+i, conn)
		limit := total / int64(len(conns))
		if int64(i) < total%int64(len(conns)) {
			limit++
		}
		if limit == 0 {
			continue
		}
		do := func(ctx context.Context, attempt int) (measure.Op, int64, error) {
			if attempt == 0 {
				c.key = b.cfg.KeyName(next.Add(1) - 1)
				c.fill(c.values)
			}
			return opInsert, 1, c.conn.Insert(ctx, c.key, c.values)
		}
		s.Workers = append(s.Workers, runner.Worker{Name: fmt.Sprintf("loader %d", lo+i+1), Primary: true,
			Schedule: runner.ClosedLoop{Limit: limit}, Do: do})
	}
	b.loaded = true
	plan.Extra = func(res runner.Result) (map[string]any, []string) { return b.figures(res), nil }
	return plan, nil
}

func (b *Bench) planRun(conns []Conn) (*workload.StepPlan, error) {
	plan := &workload.StepPlan{Progress: opRead, Main: b.mainOp(), Write: workload.None, Read: workload.None}
	for o := range Ops {
		plan.PerOp = append(plan.PerOp, measure.Op(o))
	}
	s := &plan.Step
	s.Name, s.Ops, s.Duration = StepRun, Ops, b.cfg.Duration
	b.earlier += b.inserted.Load()
	b.notFound.Store(0)
	b.inserted.Store(0)
	b.warmNotFound, b.warmInserted = 0, 0
	dos := make([]runner.DoFunc, len(conns))
	lo, _ := b.cfg.ClientRange()
	for i, conn := range conns {
		dos[i] = b.newClient(StepRun, lo+i, conn).do // global client numbers: a whole run's streams
	}
	if err := b.cfg.Arrival.Apply(s, workload.Stream{Name: "client", Do: dos, Primary: true, Limit: b.cfg.OperationShare(),
		Timed: b.cfg.Duration > 0}); err != nil {
		return nil, err
	}
	plan.Extra = func(res runner.Result) (map[string]any, []string) { return b.figures(res), nil }
	plan.WarmupEnd = b.warmupEnd
	return plan, nil
}

// mainOp is the run phase's most frequent op type.
func (b *Bench) mainOp() measure.Op {
	c := b.cfg
	best, op := c.Read, opRead
	for o, p := range map[measure.Op]float64{opUpdate: c.Update, opInsert: c.Insert, opScan: c.Scan, opRMW: c.RMW} {
		if p > best || p == best && o < op {
			best, op = p, o
		}
	}
	return op
}

// figures are YCSB's [OVERALL] throughput and dbperf's counts.
func (b *Bench) figures(res runner.Result) map[string]any {
	var ops int64
	for o := range Ops {
		ops += res.Total.Ops[o].Units
	}
	secs := max(res.End.Sub(res.Start).Seconds(), 1e-9)
	return map[string]any{keyThroughput: measure.Round(float64(ops)/secs, 1), "operations": ops,
		"not_found": b.notFound.Load() - b.warmNotFound, "inserted": b.inserted.Load() - b.warmInserted}
}

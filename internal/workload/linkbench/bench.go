// Package linkbench is LinkBench (Facebook, SIGMOD 2013): a social graph of nodes and typed
// links loaded with the out-degrees of Facebook's graph, then requested with the production
// mix of link and node reads and writes. It follows ../shared/reference/linkbench.md; each
// behaviour cites the original's source, and docs/linkbench.md lists every deliberate
// deviation and every bug of the original that dbperf fixes.
package linkbench

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// Bench is LinkBench bound to a store.
type Bench struct {
	cfg     Config
	store   Store
	mix     *Mix
	degrees *Degrees
	access  *Access

	// What the database should hold: links (visible or not) and nodes, known after a load in
	// this run or read from the database when a run starts with the request step.
	known    bool
	links    int64
	nodes    int64
	nextNode atomic.Int64 // the next node id ADD_NODE assigns
	// Link inserts and node deletes whose reply a lost connection took (lbsql/redial.go): the
	// checks allow that many links more, nodes fewer.
	doubtLinks, doubtNodes int64

	requesters []*requester   // of the last request step, for its checks
	lastSum    uint64         // hash of every result the last request step read
	mark       *workload.Mark // the last request step's warm-up end (warmup.go)
}

var _ workload.Workload = (*Bench)(nil)

// New validates cfg and binds LinkBench to store.
func New(cfg Config, store Store) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bench{cfg: cfg, store: store, mix: mixes[cfg.Mix]}
	var err error
	if b.degrees, err = NewDegrees(b.mix.Data, cfg.StartID, cfg.MaxID); err != nil {
		return nil, err
	}
	b.degrees.Cap = cfg.EffectiveMaxDegree()
	b.access = NewAccess(cfg.StartID, cfg.MaxID)
	return b, nil
}

// Steps implements workload.Workload.
func (b *Bench) Steps() []string { return b.cfg.Steps }

// Settings implements workload.Workload.
func (b *Bench) Settings() map[string]any {
	return map[string]any{
		"startid1": b.cfg.StartID, "maxid1": b.cfg.MaxID, "max_degree": b.cfg.EffectiveMaxDegree(), "loaders": b.cfg.Loaders,
		"loader_chunk_size": b.cfg.ChunkIDs, "batch": b.cfg.Batch, "requesters": b.cfg.Requesters,
		"requests": b.cfg.Requests, "requests_seconds": b.cfg.RequestTime.Seconds(), "mix": b.cfg.Mix,
		"partitions": b.cfg.Partitions, "retries": b.cfg.Retries, "steps": b.cfg.Steps,
		"arrival": b.cfg.Arrival.String(), "query_mode": b.queryMode(),
	}
}

// queryMode is how the store sends statements with arguments: its own account (SQL targets),
// else the configured mode ("" on key-value targets, which run no SQL).
func (b *Bench) queryMode() string {
	if s, ok := b.store.(interface{ QueryMode() string }); ok {
		return s.QueryMode()
	}
	return b.cfg.QueryMode
}

func (b *Bench) now() time.Time { return b.cfg.Now() }

// rng is the random stream of one role of one client in one step: never the same twice in a
// run, and different with every seed.
func (b *Bench) rng(step, role string, client int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", step, role, client)
	return rand.New(rand.NewPCG(b.cfg.Seed, h.Sum64()))
}

// Expected returns the links (over all types) and count rows a load of the configured ids
// writes: the sums of the per-type out-degrees.
func (b *Bench) Expected() (links, countRows int64) {
	for id := b.cfg.StartID; id < b.cfg.MaxID; id++ {
		tot := b.degrees.Total(id)
		links += tot
		for t := range int64(LinkTypes) {
			if splitDegree(tot, t) > 0 {
				countRows++
			}
		}
	}
	return links, countRows
}

// Plan implements workload.Workload.
func (b *Bench) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	var conns []Conn
	closeAll := func() error {
		var errs []error
		for _, c := range conns {
			errs = append(errs, c.Close())
		}
		conns = nil
		return errors.Join(errs...)
	}
	connect := func() (Conn, error) {
		c, err := b.store.Connect(ctx)
		if err == nil {
			conns = append(conns, c)
		}
		return c, err
	}
	var plan *workload.StepPlan
	var err error
	switch step {
	case StepLoad:
		plan, err = b.planLoad(ctx, step, connect)
	case StepRequest:
		plan, err = b.planRequest(ctx, step, connect)
	default:
		err = fmt.Errorf("unknown step %q: the steps are load and request", step)
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	plan.Close = closeAll
	return plan, nil
}

func (b *Bench) planLoad(ctx context.Context, step string, connect func() (Conn, error)) (*workload.StepPlan, error) {
	if b.cfg.first() { // sharded: shard 0 creates the tables (shard.go)
		if err := b.store.CreateTables(ctx); err != nil {
			return nil, fmt.Errorf("creating the tables: %w", err)
		}
	}
	links, countRows := b.Expected()
	plan := &workload.StepPlan{Progress: loadLinks, Total: links, Main: loadLinks, Write: loadLinks, Read: workload.None}
	s := &plan.Step
	s.Name, s.Ops, s.Retries = step, loadOps, b.cfg.Retries
	ch := b.shardChunks(newChunks(b.cfg.StartID, b.cfg.MaxID, b.cfg.ChunkIDs))
	now := b.now().UnixMilli()
	for i := range b.cfg.Loaders {
		c, err := connect()
		if err != nil {
			return nil, err
		}
		l := &linkLoader{b: b, step: step, conn: c, chunks: ch, now: now}
		s.Workers = append(s.Workers, runner.Worker{Name: fmt.Sprintf("link loader %d", i+1), Primary: true,
			Schedule: prepSchedule{l.prepare}, Do: l.do})
	}
	if b.cfg.first() { // sharded: shard 0 loads the nodes
		c, err := connect()
		if err != nil {
			return nil, err
		}
		nl := &nodeLoader{b: b, conn: c, rng: b.rng(step, "nodes", 0), gen: nodeMotif(), next: b.cfg.StartID}
		s.Workers = append(s.Workers, runner.Worker{Name: "node loader", Primary: true, Schedule: prepSchedule{nl.prepare}, Do: nl.do})
	}
	b.known, b.links, b.nodes = true, links, b.cfg.MaxID-b.cfg.StartID
	b.nextNode.Store(b.cfg.MaxID + int64(b.cfg.Shard))
	plan.Extra = func(res runner.Result) (map[string]any, []string) {
		return map[string]any{"ids": b.cfg.MaxID - b.cfg.StartID, "links": links, "count_rows": countRows,
			"links_per_id": measure.Round(float64(links)/float64(b.cfg.MaxID-b.cfg.StartID), 4)}, nil
	}
	return plan, nil
}

// readState reads what a request step needs of a database loaded by an earlier run: the
// number of links and nodes and the highest node id (graphSize, once).
func (b *Bench) readState(ctx context.Context) error {
	links, nodes, maxNode, err := graphSize(ctx, b.store)
	if err != nil {
		return fmt.Errorf("reading linktable and nodetable (run the load step first): %w", err)
	}
	if links == 0 || nodes == 0 {
		return errors.New("the database holds no graph: run the load step first")
	}
	b.known, b.links, b.nodes = true, links, nodes
	b.nextNode.Store(max(maxNode+1, b.cfg.MaxID) + int64(b.cfg.Shard))
	return nil
}

// CheckStart checks, before a run starts, that a run beginning with the request step finds a
// loaded graph.
func (b *Bench) CheckStart(ctx context.Context) error {
	if b.cfg.Steps[0] != StepRequest || b.known {
		return nil
	}
	return b.readState(ctx)
}

func (b *Bench) planRequest(ctx context.Context, step string, connect func() (Conn, error)) (*workload.StepPlan, error) {
	if !b.known {
		if err := b.readState(ctx); err != nil {
			return nil, err
		}
	}
	main := measure.Op(b.mix.main())
	// The live line's progress counts one op type's units, so no op type measures the progress
	// of a mix: Total 0 (unknown) with the main op.
	plan := &workload.StepPlan{Progress: main, Main: main, Write: workload.None, Read: workload.None}
	for o := range requestOps { // per-request costs divide by every request, not the main type's
		plan.PerOp = append(plan.PerOp, measure.Op(o))
	}
	s := &plan.Step
	s.Name, s.Ops, s.Retries, s.Duration = step, requestOps[:], b.cfg.Retries, b.cfg.RequestTime
	b.requesters = nil
	var dos []runner.DoFunc
	lo, hi := b.cfg.RequesterRange() // sharded: global requester numbers (shard.go)
	for i := lo; i < hi; i++ {
		c, err := connect()
		if err != nil {
			return nil, err
		}
		r := newRequester(b, c, b.rng(step, "requester", i))
		b.requesters = append(b.requesters, r)
		dos = append(dos, b.afterWarmup(r))
	}
	limit := b.cfg.Requests * int64(hi-lo)
	if err := b.cfg.Arrival.Apply(s, workload.Stream{Name: "requester", Do: dos, Primary: true, Limit: limit}); err != nil {
		return nil, err
	}
	plan.Extra = func(res runner.Result) (map[string]any, []string) { return b.requestFigures(res) }
	b.mark = &workload.Mark{}
	plan.WarmupEnd = b.mark.End
	return plan, nil
}

// requestFigures sums the requesters' counts into the step's figures, and the database's new
// expected sizes.
func (b *Bench) requestFigures(res runner.Result) (map[string]any, []string) {
	var st reqStats
	h := fnv.New64a()
	for _, r := range b.requesters {
		st.historyQueries += r.stats.historyQueries
		st.listRows += r.stats.listRows
		st.multigetAsked += r.stats.multigetAsked
		st.multigetFound += r.stats.multigetFound
		st.linksInserted += r.stats.linksInserted
		st.nodesAdded += r.stats.nodesAdded
		st.nodesDeleted += r.stats.nodesDeleted
		if r.sum != nil {
			h.Write(r.sum.Sum(nil))
		}
	}
	b.lastSum = h.Sum64()
	for _, r := range b.requesters {
		if d, ok := r.conn.(interface{ InDoubt() (int64, int64) }); ok {
			links, nodes := d.InDoubt()
			b.doubtLinks, b.doubtNodes = b.doubtLinks+links, b.doubtNodes+nodes
		}
	}
	b.links += st.linksInserted
	b.nodes += st.nodesAdded - st.nodesDeleted
	var requests int64
	for o := range numReqOps {
		requests += res.Total.Ops[o].Units
	}
	st = b.measured(st) // the figures leave the warm-up out; the accounts above keep it
	secs := res.End.Sub(res.Start).Seconds()
	f := map[string]any{
		"requests":        requests,
		keyRequestsPerSec: measure.Round(float64(requests)/max(secs, 1e-9), 1),
		"history_queries": st.historyQueries,
		"multiget_asked":  st.multigetAsked,
		"multiget_found":  st.multigetFound,
		"links_inserted":  st.linksInserted,
		"nodes_added":     st.nodesAdded,
		"nodes_deleted":   st.nodesDeleted,
	}
	if b.doubtLinks+b.doubtNodes > 0 {
		f["in_doubt_links"], f["in_doubt_nodes"] = b.doubtLinks, b.doubtNodes
	}
	if n := res.Total.Ops[opGetLinkList].Units; n > 0 {
		f["link_list_mean_rows"] = measure.Round(float64(st.listRows)/float64(n), 2)
	}
	return f, nil
}

// ResultSum is a hash of every result the last request step read, in each requester's order:
// with one requester, the same seed and a fixed clock, every target must give the same. Only
// with Config.SumResults; otherwise the hash of nothing.
func (b *Bench) ResultSum() uint64 { return b.lastSum }

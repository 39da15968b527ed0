package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/shard"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/dbperf/dbperf/internal/workload/script"
	"github.com/dbperf/dbperf/internal/workload/ycsb"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// shardFlags are --shard, --rendezvous, --start-at, --rendezvous-timeout and --run-id: one
// process's share of a sharded run and how the shards meet (docs/scale-out.md).
type shardFlags struct {
	spec, rendezvous, startAt, runID string
	timeout                          time.Duration

	parsed shard.Spec
	at     time.Time
	rv     *shard.Rendezvous
	prov   *archive.Shard // run.json's "shard", updated at every barrier
	// conns are the connections the whole run opens at most, for the connection-limit check.
	conns int
	// settings overrides run.json's settings with the whole run's (the arrival rate).
	settings map[string]any
	// checksFirst: the checks after a step need the whole database, so shard 0 runs them once
	// every shard has finished the step (LinkBench); otherwise each shard checks its own tables.
	checksFirst bool
	warn        io.Writer
	// reps counts the runs this process has bound: with --repeat, each repeat is a sharded
	// run of its own (repeatRendezvous).
	reps int
}

// sharding is the process's one set of shard flags.
var sharding = &shardFlags{warn: os.Stderr}

func (s *shardFlags) add(f *pflag.FlagSet) {
	f.StringVar(&s.spec, "shard", "", "run share i of N of the run (i/N), or auto/N: i from $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); sizes, clients and rates stay the whole run's; needs --seed")
	f.StringVar(&s.rendezvous, "rendezvous", "target", "how the shards meet before each step: target (a table dbperf creates on the target DBMS and removes) or start-at (only at --start-at)")
	f.StringVar(&s.startAt, "start-at", "", "sharded: the instant every shard starts at (RFC 3339, e.g. 2026-11-26T10:00:00Z); needs synchronized clocks; implies --rendezvous start-at")
	f.DurationVar(&s.timeout, "rendezvous-timeout", 10*time.Minute, "sharded: how long a shard waits for the others at a barrier before the run fails on every shard")
	f.StringVar(&s.runID, "run-id", "", "sharded: the run's name at the rendezvous, the same on every shard (default WORKLOAD-SEED-N)")
}

// check parses the flags; every shard of one run must be given the same seed.
func (s *shardFlags) check(c *cobra.Command, workloadName string, seed uint64) error {
	var err error
	if s.parsed, err = shard.Parse(s.spec, nil); err != nil || !s.parsed.Sharded() {
		return err
	}
	if !c.Flags().Changed("seed") {
		return fmt.Errorf("--shard needs --seed: every shard of a run must draw from the same seed")
	}
	if targets, _ := c.Flags().GetStringArray("target"); len(targets) > 1 || c.Flags().Changed("plan") {
		return fmt.Errorf("--shard runs one target: give one --target (and no --plan)")
	}
	if s.startAt != "" {
		if s.at, err = time.Parse(time.RFC3339Nano, s.startAt); err != nil {
			return fmt.Errorf("--start-at %q is not an RFC 3339 instant (e.g. 2026-11-26T10:00:00Z)", s.startAt)
		}
		s.rendezvous = "start-at"
	}
	switch s.rendezvous {
	case "target":
	case "start-at":
		if s.at.IsZero() {
			return fmt.Errorf("--rendezvous start-at needs --start-at TIME")
		}
	default:
		return fmt.Errorf("--rendezvous must be target or start-at (got %q)", s.rendezvous)
	}
	if s.runID == "" {
		s.runID = fmt.Sprintf("%s-%d-%d", workloadName, seed, s.parsed.Count)
	}
	s.rv = &shard.Rendezvous{Spec: s.parsed, RunID: s.runID, StartAt: s.at, Timeout: s.timeout, Warn: s.warn}
	s.rv.Host, _ = os.Hostname()
	s.prov = &archive.Shard{Index: s.parsed.Index, Count: s.parsed.Count, RunID: s.runID, Rendezvous: s.rendezvous}
	return nil
}

// share checks the flags of a workload whose client count is the flag clientsFlag; false
// (with no error) is a whole run, which takes no share.
func (s *shardFlags) share(c *cobra.Command, name string, seed uint64, clientsFlag string, clients int) (bool, error) {
	if err := s.check(c, name, seed); err != nil || !s.parsed.Sharded() {
		return false, err
	}
	return true, s.parsed.CheckClients(clientsFlag, clients)
}

// took records the shard's work in run.json's provenance and the whole run's arrival setting
// in its settings, gives the workload its share of an open-loop rate, and notes the whole
// run's connections and whether the checks need the whole database (shard 0 runs them once
// every shard is done).
func (s *shardFlags) took(work map[string][2]int64, a *workload.Arrival, conns int, checksFirst bool) {
	s.prov.Work = work
	s.settings = map[string]any{"arrival": a.String()}
	*a = s.arrivalShare(*a)
	s.conns, s.checksFirst = conns, checksFirst
}

// forInsert gives the Insert Benchmark this shard's clients; each shard checks its own tables.
func (s *shardFlags) forInsert(c *cobra.Command, cfg *insertbench.Config) error {
	if ok, err := s.share(c, "insert", cfg.Seed, "clients", cfg.Clients); !ok || err != nil {
		return err
	}
	lo, hi := s.parsed.Range(int64(cfg.Clients))
	cfg.ClientFrom, cfg.ClientTo, cfg.NotFirstShard = int(lo), int(hi), !s.parsed.First()
	// inserter, deleter, querier a client; admin, monitor, rendezvous a shard
	s.took(map[string][2]int64{"clients": {lo, hi}}, &cfg.Arrival, 3*cfg.Clients+3*s.parsed.Count, false)
	return nil
}

// forLinkBench gives LinkBench this shard's share: its link chunks of the load, its requesters.
func (s *shardFlags) forLinkBench(c *cobra.Command, cfg *linkbench.Config) error {
	if ok, err := s.share(c, linkbench.Name, cfg.Seed, "requesters", cfg.Requesters); !ok || err != nil {
		return err
	}
	cfg.Shard, cfg.Shards = s.parsed.Index, s.parsed.Count
	rlo, rhi := cfg.RequesterRange()
	clo, chi := cfg.ChunkRange()
	// loaders and the node loader, admin, monitor, rendezvous a shard
	s.took(map[string][2]int64{"requesters": {int64(rlo), int64(rhi)}, "chunks": {clo, chi}}, &cfg.Arrival,
		cfg.Requesters+(cfg.Loaders+4)*s.parsed.Count, true)
	return nil
}

// forScript gives the script workload this shard's clients, by their global numbers; shard 0
// runs init.
func (s *shardFlags) forScript(c *cobra.Command, cfg *script.Config) error {
	if ok, err := s.share(c, script.Name, cfg.Seed, "clients", cfg.Clients); !ok || err != nil {
		return err
	}
	cfg.Shard, cfg.Shards = s.parsed.Index, s.parsed.Count
	lo, hi := cfg.ClientRange()
	s.took(map[string][2]int64{"clients": {int64(lo), int64(hi)}}, &cfg.Arrival, cfg.Clients+3*s.parsed.Count, true)
	return nil
}

// forYCSB gives YCSB this shard's share: its clients, its share of the load's key range (as
// YCSB's insertstart and insertcount) and of the run's operations.
func (s *shardFlags) forYCSB(c *cobra.Command, cfg *ycsb.Config) error {
	if ok, err := s.share(c, ycsb.Name, cfg.Seed, "threads", cfg.Clients); !ok || err != nil {
		return err
	}
	cfg.Shard, cfg.Shards = s.parsed.Index, s.parsed.Count
	if err := cfg.Validate(); err != nil { // what a shard cannot do (a run that inserts)
		return err
	}
	lo, hi := cfg.ClientRange()
	klo, khi := cfg.LoadRange()
	s.took(map[string][2]int64{"clients": {int64(lo), int64(hi)}, "keys": {klo, khi}}, &cfg.Arrival, cfg.Clients+3*s.parsed.Count, true)
	return nil
}

// arrivalShare is this shard's open-loop arrivals: R/N of a whole-run rate (a per-client rate
// is already its clients' share), from a Poisson stream of its own.
func (s *shardFlags) arrivalShare(a workload.Arrival) workload.Arrival {
	if !a.Open() {
		return a
	}
	if !a.PerClient {
		a.Rate = s.parsed.Rate(a.Rate)
	}
	a.Seed = shard.Seed(a.Seed, "", "arrivals", s.parsed.Index)
	return a
}

// wrap binds the workload and, for a shard, puts it behind the rendezvous: the target must be
// a server whose connection limit covers every shard's connections. The rendezvous is set up
// first, so that a shard whose bind or checks fail leaves its abort mark and the others stop
// at their first barrier with one sentence, not at the timeout.
func (s *shardFlags) wrap(bind func(driver.Target) (workload.Workload, error)) func(driver.Target) (workload.Workload, error) {
	return func(t driver.Target) (workload.Workload, error) {
		if !s.parsed.Sharded() {
			return bind(t)
		}
		ctx := context.Background()
		s.repeatRendezvous(ctx)
		if err := s.checkLimit(ctx, t); err != nil {
			return nil, err // the same on every shard: each one says it
		}
		if err := s.connect(ctx, t); err != nil {
			return nil, err
		}
		if err := s.rv.Setup(ctx); err != nil {
			return nil, err // its rows of an earlier run, or no table: no mark can be left
		}
		wl, err := bind(t)
		if err != nil {
			s.finish(err)
			return nil, err
		}
		sw := &shardWorkload{Workload: wl, s: s}
		if ref, ok := wl.(workload.ReferenceLines); ok {
			return shardWorkloadRef{sw, ref}, nil
		}
		return sw, nil
	}
}

// repeatRendezvous readies the rendezvous for a repeat of a run group (--repeat): each repeat
// is a sharded run of its own, under the run id RUN-rep-K, so that one repeat's barriers never
// count another's rows (a fast shard starting repeat 2 while a slow one still has repeat 1's
// rows), with no barrier passed yet and a fresh provenance. --start-at's instant is the first
// repeat's; later repeats start when each shard is ready, as later steps do.
func (s *shardFlags) repeatRendezvous(ctx context.Context) {
	s.reps++
	if output.repeat <= 1 {
		return
	}
	if db, ok := s.rv.DB.(shard.PgxDB); ok {
		db.Conn.Close(ctx) // the previous repeat's
	}
	s.rv.DB = nil
	if s.reps > 1 {
		s.rv.StartAt = time.Time{}
	}
	s.rv.RunID, s.rv.Barriers = fmt.Sprintf("%s-rep-%d", s.runID, s.reps), nil
	p := *s.prov
	p.RunID, p.Barriers, p.ClockOffsetMs = s.rv.RunID, nil, 0
	s.prov = &p
}

// checkLimit checks the server's connection limit against the whole run's connections.
func (s *shardFlags) checkLimit(ctx context.Context, t driver.Target) error {
	info := t.Info(ctx)
	if limit, err := strconv.Atoi(fmt.Sprint(info.Settings["max_connections"])); err == nil && s.conns > limit {
		return fmt.Errorf("the %d shards open up to %d connections in all, and %s allows %d (max_connections): raise it or run fewer clients", s.parsed.Count, s.conns, info.Engine, limit)
	}
	return nil
}

// connect gives the rendezvous its own connection to a server target.
func (s *shardFlags) connect(ctx context.Context, t driver.Target) error {
	if s.rendezvous != "target" {
		return nil
	}
	switch tg := t.(type) {
	case *sqldriver.Postgres:
		c, err := tg.Connect(ctx)
		if err != nil {
			return fmt.Errorf("the rendezvous's connection: %w", err)
		}
		s.rv.DB, s.rv.Dialect = shard.PgxDB{Conn: c}, shard.PostgresDialect
	case *sqldriver.MySQL:
		s.rv.DB, s.rv.Dialect = shard.SQLDB{DB: tg.DB()}, shard.MySQLDialect
	default:
		return fmt.Errorf("--rendezvous target needs a PostgreSQL or MySQL target (got %s): give --start-at TIME instead", t.Info(ctx).Kind)
	}
	return nil
}

// provenance is run.json's "shard" for a shard, nil for a whole run.
func (s *shardFlags) provenance() *archive.Shard {
	if !s.parsed.Sharded() {
		return nil
	}
	return s.prov
}

// barrier meets the other shards and records it in run.json's provenance.
func (s *shardFlags) barrier(ctx context.Context, name string) error {
	if err := s.rv.Wait(ctx, name); err != nil {
		return err
	}
	s.prov.Barriers = s.prov.Barriers[:0]
	for _, b := range s.rv.Barriers {
		s.prov.Barriers = append(s.prov.Barriers, archive.Barrier{Name: b.Name, At: b.At,
			WaitedMs: float64(b.Waited.Microseconds()) / 1e3, ClockOffsetMs: float64(b.Offset.Microseconds()) / 1e3})
	}
	s.prov.ClockOffsetMs = float64(s.rv.MaxOffset().Microseconds()) / 1e3 // Wait warns above shard.ClockWarn
	return nil
}

// finish ends a shard's part: a failed shard tells the others, every shard removes its rows.
func (s *shardFlags) finish(err error) {
	if !s.parsed.Sharded() || s.rv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err != nil && !errors.Is(err, shard.ErrTimeout) {
		s.rv.Fail(ctx, err)
	}
	if err == nil || s.rv.DB != nil {
		s.rv.Close(ctx)
	}
}

// shardWorkload is a shard's workload: every step starts at a barrier, after its connections
// are open; the run ends at one, after the last step's check.
type shardWorkload struct {
	workload.Workload
	s *shardFlags
}

func (w *shardWorkload) Plan(ctx context.Context, step string) (*workload.StepPlan, error) {
	if len(w.s.rv.Barriers) == 0 {
		if err := w.s.barrier(ctx, "start"); err != nil {
			return nil, err
		}
	}
	plan, err := w.Workload.Plan(ctx, step)
	if err != nil {
		return nil, err
	}
	if err := w.s.barrier(ctx, "step "+step); err != nil {
		plan.Close()
		return nil, err
	}
	return plan, nil
}

func (w *shardWorkload) Verify(ctx context.Context, step string) ([]string, error) {
	var problems []string
	var err error
	if !w.s.checksFirst {
		problems, err = w.Workload.Verify(ctx, step)
	} else if err = w.s.barrier(ctx, "checks "+step); err == nil && w.s.parsed.First() {
		problems, err = w.Workload.Verify(ctx, step) // the whole database, once every shard is done
	}
	if steps := w.Steps(); err == nil && len(steps) > 0 && steps[len(steps)-1] == step {
		err = w.s.barrier(ctx, "end")
	}
	return problems, err
}

// Settings are the workload's, with the whole run's arrival rate rather than this shard's share.
func (w *shardWorkload) Settings() map[string]any {
	m := w.Workload.Settings()
	for k, v := range w.s.settings {
		m[k] = v
	}
	return m
}

// shardWorkloadRef keeps the workload's reference lines.
type shardWorkloadRef struct {
	*shardWorkload
	ref workload.ReferenceLines
}

func (w shardWorkloadRef) ReferenceLines(ops []measure.OpType) workload.LineFormatter {
	return w.ref.ReferenceLines(ops)
}

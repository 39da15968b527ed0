package shard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"
)

// DB is what the rendezvous needs of the target DBMS: statements with ? placeholders (the
// command's adapter rewrites them for PostgreSQL), and one row of integers back.
type DB interface {
	Exec(ctx context.Context, query string, args ...any) error
	// QueryInts runs a query returning one row of n integer columns (NULL reads as 0).
	QueryInts(ctx context.Context, n int, query string, args ...any) ([]int64, error)
	// Ints runs a query returning rows of one integer column.
	Ints(ctx context.Context, query string, args ...any) ([]int64, error)
}

// Table is the rendezvous's table on the target. dbperf creates it when the first shard
// arrives, each shard deletes its rows at the end, and the last one out drops it.
const Table = "dbperf_rendezvous"

// Dialect is the SQL the rendezvous needs that PostgreSQL and MySQL spell differently.
type Dialect struct {
	Name string
	// NowMicros is the server's clock in µs since the epoch: the rendezvous's clock.
	NowMicros string
}

// The dialects of the rendezvous.
var (
	PostgresDialect = Dialect{Name: "postgres", NowMicros: "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"}
	MySQLDialect    = Dialect{Name: "mysql", NowMicros: "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)"}
)

// Rendezvous is the shards' meeting point: barriers through a table on the target DBMS, or a
// start instant (--start-at) and no later barrier. It records every barrier it passed, with
// the clock offset measured there, for run.json.
type Rendezvous struct {
	Spec    Spec
	RunID   string
	Host    string
	DB      DB // nil for --start-at
	Dialect Dialect
	// StartAt is --start-at's instant; zero with a target rendezvous.
	StartAt time.Time
	// Timeout is how long a shard waits for the others at a barrier: long enough for pods that
	// are scheduled one after another, and images pulled.
	Timeout time.Duration
	// Poll is how often a waiting shard looks (default 50 ms); Lead is how far after the last
	// arrival, on the rendezvous's clock, every shard starts (default 200 ms), so that all
	// start together whatever their polls' phase.
	Poll, Lead time.Duration
	// Barriers are the barriers passed so far.
	Barriers []Barrier
	// Warn, if set, gets one warning, at the first barrier whose clock offset is above
	// ClockWarn: a clock can drift past the bound after the start.
	Warn   io.Writer
	warned bool
}

// Barrier is a barrier passed: when, after how long a wait, and this host's clock offset there.
type Barrier struct {
	Name   string
	At     time.Time
	Waited time.Duration
	Offset time.Duration // this host's clock minus the rendezvous's
}

// ClockWarn is the clock offset above which a shard warns: the merge aligns each shard's seconds
// by its start instant corrected by the offset measured at the barrier, but a clock that drifts
// during a step moves its seconds; keep hosts synchronized (chrony, NTP) well within this.
const ClockWarn = 50 * time.Millisecond

// ErrTimeout is returned, wrapped, when a shard did not arrive in time.
var ErrTimeout = errors.New("rendezvous timeout")

// Setup creates the table if it is missing and refuses rows this shard left with the same run
// id (an earlier run with the same seed that did not finish): its barriers would pass at once.
func (r *Rendezvous) Setup(ctx context.Context) error {
	if r.DB == nil {
		return nil
	}
	err := r.DB.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+Table+` (run_id VARCHAR(100) NOT NULL, barrier VARCHAR(200) NOT NULL,
		shard INT NOT NULL, arrived BIGINT NOT NULL, note VARCHAR(1000), PRIMARY KEY (run_id, barrier, shard))`)
	if err != nil {
		// Two shards creating it at once: PostgreSQL's IF NOT EXISTS can still fail on its
		// catalog's unique index. Then the other one made it.
		if _, e := r.DB.QueryInts(ctx, 1, "SELECT COUNT(*) FROM "+Table); e == nil {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("creating the rendezvous table %s on the target: %w", Table, err)
	}
	// A failed earlier run of the same id may have left its abort marks: that run is over. A
	// mark younger than the timeout is this run's (a shard that failed before this one got
	// here: deleting it would leave this shard waiting for the timeout), and is kept.
	if err := r.DB.Exec(ctx, "DELETE FROM "+Table+" WHERE run_id = ? AND barrier IN (?, ?) AND arrived < "+r.Dialect.NowMicros+" - ?",
		r.RunID, abortBarrier, abortSeen, r.Timeout.Microseconds()); err != nil {
		return err
	}
	n, err := r.DB.QueryInts(ctx, 1, "SELECT COUNT(*) FROM "+Table+" WHERE run_id = ? AND shard = ?", r.RunID, r.Spec.Index)
	if err != nil {
		return err
	}
	if n[0] > 0 {
		return fmt.Errorf("the target's %s already holds shard %d's rows of run %s (an earlier run that did not finish): give another --run-id, or delete them (DELETE FROM %s WHERE run_id = '%s')",
			Table, r.Spec.Index, r.RunID, Table, r.RunID)
	}
	return nil
}

// offset measures this host's clock minus the rendezvous's: the best of three round trips,
// taking the server's reading as made at the middle of the shortest one.
func (r *Rendezvous) offset(ctx context.Context) (time.Duration, error) {
	best, off := time.Duration(math.MaxInt64), time.Duration(0)
	for range 3 {
		t0 := time.Now()
		v, err := r.DB.QueryInts(ctx, 1, "SELECT "+r.Dialect.NowMicros)
		t1 := time.Now()
		if err != nil {
			return 0, fmt.Errorf("reading the target's clock: %w", err)
		}
		if rtt := t1.Sub(t0); rtt < best {
			best = rtt
			mid := t0.Add(rtt / 2)
			off = mid.Sub(time.UnixMicro(v[0]))
		}
	}
	return off, nil
}

// Wait is one barrier: this shard arrives, waits until every shard has, and returns at the same
// instant as the others (the last arrival plus Lead, on the rendezvous's clock). With --start-at
// the start barrier waits for the instant and every later barrier passes at once.
func (r *Rendezvous) Wait(ctx context.Context, name string) error {
	if !r.Spec.Sharded() {
		return nil
	}
	t0 := time.Now()
	if r.DB == nil {
		if name == "start" && !r.StartAt.IsZero() {
			if err := WaitUntil(r.StartAt, 0); err != nil {
				return err
			}
			r.Barriers = append(r.Barriers, Barrier{Name: name, At: time.Now(), Waited: time.Since(t0)})
		}
		return nil
	}
	off, err := r.offset(ctx)
	if err != nil {
		return err
	}
	err = r.DB.Exec(ctx, "INSERT INTO "+Table+" (run_id, barrier, shard, arrived, note) VALUES (?, ?, ?, "+r.Dialect.NowMicros+", ?)",
		r.RunID, name, r.Spec.Index, r.Host)
	if err != nil {
		return fmt.Errorf("arriving at barrier %s: %w", name, err)
	}
	release, err := r.waitAll(ctx, name, t0)
	if err != nil {
		return err
	}
	at := release.Add(off) // the release instant on this host's clock
	if d := time.Until(at); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.Barriers = append(r.Barriers, Barrier{Name: name, At: time.Now(), Waited: time.Since(t0), Offset: off})
	if off.Abs() > ClockWarn && !r.warned && r.Warn != nil {
		r.warned = true
		fmt.Fprintf(r.Warn, "warning: this host's clock is %s off the target's at barrier %s (more than %s): synchronize the hosts' clocks (chrony or NTP); the merge corrects the offset measured at each barrier, not a drift within a step\n",
			off.Round(time.Millisecond), name, ClockWarn)
	}
	return nil
}

// waitAll polls until every shard has arrived at the barrier, a shard has failed, or the
// timeout passes; it returns the release instant on the rendezvous's clock.
func (r *Rendezvous) waitAll(ctx context.Context, name string, t0 time.Time) (time.Time, error) {
	poll, lead, timeout := cmp0(r.Poll, 50*time.Millisecond), cmp0(r.Lead, 200*time.Millisecond), cmp0(r.Timeout, 10*time.Minute)
	for {
		if err := r.failed(ctx); err != nil {
			return time.Time{}, err
		}
		v, err := r.DB.QueryInts(ctx, 2, "SELECT COUNT(*), MAX(arrived) FROM "+Table+" WHERE run_id = ? AND barrier = ?", r.RunID, name)
		if err != nil {
			return time.Time{}, fmt.Errorf("waiting at barrier %s: %w", name, err)
		}
		if int(v[0]) >= r.Spec.Count {
			return time.UnixMicro(v[1]).Add(lead), nil
		}
		if time.Since(t0) > timeout {
			missing, _ := r.missing(ctx, name)
			return time.Time{}, fmt.Errorf("%w: shard %s of run %s did not reach barrier %s within %s: the run stops on every shard",
				ErrTimeout, missing, r.RunID, name, timeout)
		}
		select {
		case <-time.After(poll):
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// missing names the shards that have not arrived at a barrier.
func (r *Rendezvous) missing(ctx context.Context, name string) (string, error) {
	got, err := r.DB.Ints(ctx, "SELECT shard FROM "+Table+" WHERE run_id = ? AND barrier = ?", r.RunID, name)
	if err != nil {
		return "?", err
	}
	here := map[int64]bool{}
	for _, s := range got {
		here[s] = true
	}
	var out []string
	for i := range r.Spec.Count {
		if !here[int64(i)] {
			out = append(out, fmt.Sprint(i))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", "), nil
}

// abortBarrier is the barrier name under which a failing shard leaves its reason; abortSeen
// the one under which each other shard says it saw it, so that the last one can remove them.
const (
	abortBarrier = "abort"
	abortSeen    = "abort seen"
)

// Fail tells the other shards that this one failed, so that they stop at their next barrier
// with its reason instead of waiting for the timeout. Best effort: the target may be what failed.
func (r *Rendezvous) Fail(ctx context.Context, cause error) {
	if r.DB == nil || !r.Spec.Sharded() || cause == nil {
		return
	}
	msg := cause.Error()
	if len(msg) > 900 {
		msg = msg[:900]
	}
	r.DB.Exec(ctx, "INSERT INTO "+Table+" (run_id, barrier, shard, arrived, note) VALUES (?, ?, ?, "+r.Dialect.NowMicros+", ?)",
		r.RunID, abortBarrier, r.Spec.Index, msg)
}

// failed returns an error naming a shard that failed, if one did.
func (r *Rendezvous) failed(ctx context.Context) error {
	v, err := r.DB.Ints(ctx, "SELECT shard FROM "+Table+" WHERE run_id = ? AND barrier = ? AND shard <> ?", r.RunID, abortBarrier, r.Spec.Index)
	if err != nil || len(v) == 0 {
		return err
	}
	r.DB.Exec(ctx, "INSERT INTO "+Table+" (run_id, barrier, shard, arrived, note) VALUES (?, ?, ?, "+r.Dialect.NowMicros+", ?)",
		r.RunID, abortSeen, r.Spec.Index, r.Host)
	return fmt.Errorf("shard %d of run %s failed (its output and run.json say why): the run stops on every shard", v[0], r.RunID)
}

// Close ends the rendezvous after the last barrier: each shard deletes its own rows, and the
// table is dropped once no run has rows in it (the last shard out drops it).
func (r *Rendezvous) Close(ctx context.Context) error {
	if r.DB == nil || !r.Spec.Sharded() {
		return nil
	}
	// A failed shard's mark stays until every shard has seen it; then the last one removes the
	// marks with its own rows.
	if err := r.DB.Exec(ctx, "DELETE FROM "+Table+" WHERE run_id = ? AND shard = ? AND barrier NOT IN (?, ?)", r.RunID, r.Spec.Index, abortBarrier, abortSeen); err != nil {
		return err
	}
	if seen, err := r.DB.QueryInts(ctx, 1, "SELECT COUNT(DISTINCT shard) FROM "+Table+" WHERE run_id = ? AND barrier IN (?, ?)", r.RunID, abortBarrier, abortSeen); err == nil && int(seen[0]) >= r.Spec.Count {
		r.DB.Exec(ctx, "DELETE FROM "+Table+" WHERE run_id = ?", r.RunID)
	}
	n, err := r.DB.QueryInts(ctx, 1, "SELECT COUNT(*) FROM "+Table)
	if err == nil && n[0] == 0 {
		r.DB.Exec(ctx, "DROP TABLE IF EXISTS "+Table) // another shard may have dropped it first
	}
	return nil
}

// MaxOffset is the largest clock offset measured, in absolute value.
func (r *Rendezvous) MaxOffset() time.Duration {
	var m time.Duration
	for _, b := range r.Barriers {
		if b.Offset.Abs() > m.Abs() {
			m = b.Offset
		}
	}
	return m
}

func cmp0(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

package insertbench

// The insert and query steps' clients: each one's inserter, deleter and querier, and the
// schedules that pace them.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

// maxPendingStatements bounds how far an inserter may run ahead of its deleter, in statements per
// inserter: like the reference's queue of 8 statements, it keeps the table at its size.
const maxPendingStatements = 8

// inserter adds one client's inserter to s: a closed loop on load steps, or on q steps an
// open-loop pool of one worker whose statements arrive at the client's rate (the reference's
// rate-limited insert thread: latency counts from each statement's arrival, so waiting behind a
// slow statement or for the deleter counts).
func (p *planner) inserter(s *runner.Step, client int, t *table, conn Conn, rows int64, deletes bool) {
	batch := int64(p.info.batch)
	statements := (rows + batch - 1) / batch
	limit := maxPendingStatements * batch * int64(t.producers)
	gen := NewGenerator(p.b.rng(p.step, "insert", client), p.b.cfg.Data)
	buf := make([]Row, batch)
	var cur []Row
	remaining := rows
	done := sync.OnceFunc(func() {
		if deletes {
			t.backlog.ProducerDone()
		}
	})
	var timer sync.Once
	insert := func(ctx context.Context, attempt int) (int64, error) {
		if p.info.kind != kindQuery && p.b.cfg.StepSeconds > 0 {
			// The runner's time limit stops the inserter without ending its schedule: tell the
			// deleter then, so that it deletes what is left and ends too.
			timer.Do(func() { time.AfterFunc(time.Duration(p.b.cfg.StepSeconds*float64(time.Second)), done) })
		}
		if attempt == 0 {
			n := min(batch, remaining)
			first := t.nextID.Add(n) - n
			cur = buf[:n]
			gen.Fill(cur, first, p.b.cfg.Now().Unix())
		}
		if err := conn.Insert(ctx, t.name, cur); err != nil {
			return 0, err
		}
		n := int64(len(cur))
		remaining -= n
		t.markCommitted(cur[n-1].ID)
		if client == 0 && p.info.kind != kindQuery {
			p.client1.add(n)
		}
		if deletes {
			t.backlog.Add(n)
		}
		return n, nil
	}
	name := fmt.Sprintf("inserter %d (table %s)", client+1, t.name)
	if p.info.kind == kindQuery {
		// Each statement arrives in the middle of its 1/rate slot and the stream lasts its whole
		// schedule, rows/rate: every second holds exactly the target's rows, so per-second and
		// per-step insert rates are the rate done in that time (no fence post at either end).
		perSec := p.info.rate / float64(batch)
		s.Pools = append(s.Pools, runner.Pool{
			Name: name, Primary: true, Limit: statements, Done: done,
			Until:    time.Duration(float64(rows) / p.info.rate * float64(time.Second)),
			Arrivals: &runner.Constant{PerSec: perSec, Phase: 0.5},
			Do: []runner.DoFunc{runner.Single(stepInsert, func(ctx context.Context, attempt int) (int64, error) {
				if attempt == 0 && deletes && !t.backlog.WaitBelow(ctx, limit) {
					return 0, ctx.Err()
				}
				return insert(ctx, attempt)
			})},
		})
		return
	}
	var sched runner.Schedule = runner.ClosedLoop{Limit: statements}
	if p.b.cfg.StepSeconds > 0 {
		sched = untilStop{sched}
	}
	if deletes {
		sched = runner.Gated{Schedule: sched, Wait: func(ctx context.Context) bool { return t.backlog.WaitBelow(ctx, limit) }}
	}
	s.Workers = append(s.Workers, runner.Worker{
		Name: name, Primary: true, Schedule: runner.OnDone{Schedule: sched, Done: done},
		Do: runner.Single(stepInsert, insert),
	})
}

// untilStop ends a schedule when the step's time limit closes Tick.Stop: the runner's ClosedLoop
// with a Limit does not look at Stop (runner/schedule.go), so --step-seconds needs this.
type untilStop struct{ runner.Schedule }

func (u untilStop) Next(ctx context.Context, t runner.Tick) (time.Time, bool) {
	select {
	case <-t.Stop:
		return time.Time{}, false
	default:
		return u.Schedule.Next(ctx, t)
	}
}

// deleteSchedule claims the next statement's worth of the backlog; the claim says which ids to
// delete, and is due when the inserts it answers were committed.
type deleteSchedule struct {
	t     *table
	batch int64
	claim runner.Claim
	wait  func(time.Duration) // records the claim's queue wait
}

// Next returns when the deleter takes the claim, not when the claim was due: as the reference
// (ibp:1303-1308), a delete's latency counts from its start; the wait since the inserts it
// answers were committed is the separate delete_queue_wait figure.
func (d *deleteSchedule) Next(ctx context.Context, _ runner.Tick) (time.Time, bool) {
	c, ok := d.t.backlog.Take(ctx, d.batch)
	d.claim = c
	now := time.Now()
	if ok && d.wait != nil {
		d.wait(now.Sub(c.Due))
	}
	return now, ok
}

func (p *planner) deleter(client int, t *table, conn Conn) runner.Worker {
	ds := &deleteSchedule{t: t, batch: int64(p.info.batch), wait: func(w time.Duration) {
		w = max(w, 0)
		p.deletes.Add(1)
		p.deleteWaitSum.Add(int64(w))
		for {
			m := p.deleteWaitMax.Load()
			if int64(w) <= m || p.deleteWaitMax.CompareAndSwap(m, int64(w)) {
				return
			}
		}
	}}
	return runner.Worker{
		Name:     fmt.Sprintf("deleter %d (table %s)", client+1, t.name),
		Schedule: ds,
		Do: runner.Single(stepDelete, func(ctx context.Context, _ int) (int64, error) {
			from := t.head + ds.claim.First
			to := from + ds.claim.N
			n, err := conn.DeleteOldest(ctx, t.name, from, to)
			if err != nil {
				return 0, err
			}
			if n != ds.claim.N {
				return 0, fmt.Errorf("deleted %d rows with ids in [%d, %d) of table %s, expected %d: the table is not the FIFO queue the client tracks",
					n, from, to, t.name, ds.claim.N)
			}
			return n, nil
		}),
	}
}

func (p *planner) querier(client int, t *table, conn Conn) runner.DoFunc {
	gen := NewGenerator(p.b.rng(p.step, "query", client), p.b.cfg.Data)
	var out []IndexRow
	var pout []PointRow
	ids := make([]int64, RowsPerQuery)
	do := func(ctx context.Context, _ int) (int64, error) {
		idx := gen.PickIndex()
		var err error
		out, err = conn.RangeQuery(ctx, t.name, idx, gen.RangeStart(idx), out[:0])
		return 1, err
	}
	if p.info.pointOnly {
		do = func(ctx context.Context, _ int) (int64, error) {
			gen.PointIDs(ids, t.currentHead(), t.committed.Load())
			var err error
			pout, err = conn.PointQuery(ctx, t.name, ids, pout[:0])
			return 1, err
		}
	}
	if client == 0 {
		inner := do
		do = func(ctx context.Context, attempt int) (int64, error) {
			n, err := inner(ctx, attempt)
			if err == nil {
				p.client1.add(n)
			}
			return n, err
		}
	}
	return runner.Single(stepQuery, do)
}

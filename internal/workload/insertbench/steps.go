package insertbench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// The steps that are not inserts: l.x, settle and cleanup.

// index plans l.x.
func (p *planner) index(ctx context.Context, plan *workload.StepPlan) (*workload.StepPlan, error) {
	b, s := p.b, &plan.Step
	// As the reference's l.x (iq.sh:230, ibp:1593-1597): each table's client first inserts
	// its share of 100 rows in one statement, then creates the table's indexes; the rows
	// indexed per second (the 100 and those already there) are the reference's l.x ips
	// (np.sh:345-350), so they are the step's write op.
	s.Ops = []measure.OpType{opIndex, opInsert}
	plan.Write = 0
	for i, t := range b.tables {
		conn, err := p.connect(ctx)
		if err != nil {
			return nil, err
		}
		share := int64(lxRows / b.cfg.tablesInRun()) // sharded: every shard's tables share the 100
		plan.Total += t.nextID.Load() - t.head + share
		gen := NewGenerator(b.rng(p.step, "insert", b.cfg.tableNumber(i)), b.cfg.Data)
		rows := make([]Row, share)
		inserted, calls := false, int64(2)
		if share == 0 { // more tables than rows: nothing to insert
			calls = 1
		}
		s.Workers = append(s.Workers, runner.Worker{
			Name: "index builder " + t.name, Primary: true,
			Schedule: runner.ClosedLoop{Limit: calls},
			Do: func(ctx context.Context, attempt int) (measure.Op, int64, error) {
				if !inserted && share > 0 {
					if attempt == 0 {
						gen.Fill(rows, t.nextID.Add(share)-share, b.cfg.Now().Unix())
					}
					if err := conn.Insert(ctx, t.name, rows); err != nil {
						return 1, 0, err
					}
					t.markCommitted(rows[share-1].ID)
					inserted = true
					return 1, share, nil
				}
				if err := b.store.CreateIndexes(ctx, t.name); err != nil {
					return 0, 0, err
				}
				t.indexed = true
				return 0, t.nextID.Load() - t.head, nil
			},
		})
	}
	return plan, nil
}

// settle plans the settle step: the target's own settle (the reference's vac_pg / vac_my), then
// the rest of the wait counted from the settle's start.
func (p *planner) settle(plan *workload.StepPlan) *workload.StepPlan {
	b, s := p.b, &plan.Step
	s.Ops = []measure.OpType{opSettle}
	plan.Total = int64(len(b.tables))
	plan.Wait = b.cfg.settleWait() // the live line shows seconds waited of it
	var actions string
	s.Workers = []runner.Worker{{
		Name: "settle", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
		Do: runner.Single(0, func(ctx context.Context, _ int) (int64, error) {
			start := time.Now()
			until := start.Add(b.cfg.settleWait())
			actions = "nothing to settle on this target"
			if b.cfg.NotFirstShard { // sharded: shard 0 settles the DBMS, this one waits
				actions = "shard 0 settles the DBMS; this shard waits"
			} else if st, ok := b.store.(Settler); ok {
				a, err := st.Settle(ctx, b.allTableNames(), until, b.cfg.SettleScale)
				if err != nil {
					return 0, fmt.Errorf("settle: %s: %w", a, err)
				}
				actions = a
			}
			if d := time.Until(until); d > 0 { // targets that do not wait themselves
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return 0, ctx.Err()
				}
			}
			actions += fmt.Sprintf("; settle lasted %s from its start (%s)", since(start), b.settleRuleText())
			return int64(len(b.tables)), nil
		}),
	}}
	plan.Extra = func(runner.Result) (map[string]any, []string) {
		return map[string]any{"settle_actions": actions}, nil
	}
	return plan
}

// cleanup drops the tables dbperf created (and only those: another's table of the same name is
// kept and named), so that a run leaves nothing behind when asked.
func (p *planner) cleanup(plan *workload.StepPlan) *workload.StepPlan {
	b := p.b
	s := &plan.Step
	s.Ops = []measure.OpType{opSettle}
	plan.Total = int64(len(b.tables))
	figs := map[string]any{}
	s.Workers = []runner.Worker{{
		Name: "cleanup", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
		Do: runner.Single(0, func(ctx context.Context, _ int) (int64, error) {
			g, ok := b.store.(TableGuard)
			if !ok {
				figs["cleanup"] = "nothing dropped: this target cannot tell dbperf's tables from another's; remove its file or directory"
				return 0, nil
			}
			dropped, kept, err := g.DropTables(ctx, b.tableNames())
			if err != nil {
				return 0, err
			}
			figs["dropped_tables"], figs["kept_tables"] = append([]string{}, dropped...), append([]string{}, kept...)
			for _, t := range b.tables {
				t.indexed = false
			}
			b.loaded = false
			return int64(len(dropped)), nil
		}),
	}}
	plan.Extra = func(runner.Result) (map[string]any, []string) {
		var warn []string
		if kept, _ := figs["kept_tables"].([]string); len(kept) > 0 {
			warn = append(warn, "kept tables dbperf did not create: "+strings.Join(kept, ", "))
		}
		return figs, warn
	}
	return plan
}

// statementsSetting is run.json's account of how statements are sent.
func (b *Bench) statementsSetting() string {
	if b.cfg.Prepared {
		return "prepared (--prepared): range and point queries and deletes prepared on every SQL target; inserts literal text on MySQL and PostgreSQL"
	}
	return "the reference's: MySQL/MariaDB range and point queries and deletes as SQL text with the values written out; PostgreSQL queries prepared, deletes text; inserts literal text; SQLite prepared (no reference path)"
}

// cacheWarning says when a cached-by-OS run is not one: after the load and q steps, the
// database is not larger than the DBMS's cache, so reads never reach the OS page cache.
func (b *Bench) cacheWarning(kind stepKind) string {
	c, ok := b.store.(CacheChecker)
	if !ok || kind == kindSettle || kind == kindCleanup || kind == kindIndex {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	config, cache, db, err := c.CacheCheck(ctx)
	if err != nil || !strings.HasPrefix(config, "cached-by-os") || db > cache {
		return ""
	}
	return fmt.Sprintf("the database (%.0f MB) is not larger than the DBMS's cache (%.0f MB) of config %s: this is not a cached-by-OS run; load more rows or give a smaller cache (--config cached-by-os:SIZE)",
		float64(db)/(1<<20), float64(cache)/(1<<20), config)
}

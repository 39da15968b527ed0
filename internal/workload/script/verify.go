package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/workload"
)

// Verify implements workload.Workload: after init, the tables hold pgbench's rows; after a run,
// the built-in scripts' money adds up (what the run added to the accounts, and with tpcb-like
// to the tellers and branches, equals the history's deltas, one history row per successful
// writing transaction), and every --check holds.
func (b *Bench) Verify(ctx context.Context, step string) ([]string, error) {
	switch step {
	case StepInit:
		return b.verifyInit(ctx)
	case StepRun:
		if b.before == nil && len(b.cfg.Checks) == 0 {
			return nil, fmt.Errorf("%w: a script of your own is checked by --check 'SQL = VALUE'", workload.ErrNothingToCheck)
		}
		probs, err := b.verifyBalances(ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range b.cfg.Checks {
			row, err := b.store.QueryRow(ctx, c.SQL)
			if err != nil {
				return nil, fmt.Errorf("--check %s: %w", c.SQL, err)
			}
			got := "(no row)"
			if row != nil && len(row) > 0 {
				got = row[0]
			}
			if got != c.Want {
				probs = append(probs, fmt.Sprintf("--check %s = %s: got %s", c.SQL, c.Want, got))
			}
		}
		return probs, nil
	}
	return nil, nil
}

// verifyInit checks what the last of the init steps' d, t, g and G left: pgbench's rows for the
// scale (g, G), empty tables (t), and on PostgreSQL, after t, the fillfactor of each table that
// takes it and the partitions of pgbench_accounts.
func (b *Bench) verifyInit(ctx context.Context) ([]string, error) {
	steps := b.cfg.Init.steps()
	last := strings.LastIndexAny(steps, "dtgG")
	if last < 0 || steps[last] == 'd' {
		return nil, fmt.Errorf("%w: the init steps %q leave no tables of pgbench's to count", workload.ErrNothingToCheck, steps)
	}
	scale := int64(b.cfg.Scale)
	want := map[string]int64{"pgbench_branches": scale, "pgbench_tellers": scale * tellersPerBranch,
		"pgbench_accounts": scale * accountsPerBranch, "pgbench_history": 0}
	if steps[last] == 't' {
		want = map[string]int64{}
	}
	var probs []string
	for _, t := range []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"} {
		row, err := b.store.QueryRow(ctx, "SELECT count(*), coalesce(sum(0), 0) FROM "+t)
		if err != nil {
			return nil, err
		}
		if row[0] != fmt.Sprint(want[t]) {
			probs = append(probs, fmt.Sprintf("%s has %s rows, not %d", t, row[0], want[t]))
		}
	}
	if b.store.Dialect() == "postgres" && strings.Contains(steps, "t") {
		p, err := b.verifyStorage(ctx)
		if err != nil {
			return nil, err
		}
		probs = append(probs, p...)
	}
	return probs, nil
}

// verifyStorage checks PostgreSQL's catalog: the tables with --fillfactor (tellers, branches,
// and accounts or each of its partitions) and the count of pgbench_accounts' partitions.
func (b *Bench) verifyStorage(ctx context.Context) ([]string, error) {
	o := b.cfg.Init
	var probs []string
	row, err := b.store.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench\_%%' AND relkind = 'r' AND reloptions @> ARRAY['fillfactor=%d']`, o.Fillfactor))
	if err != nil {
		return nil, err
	}
	if want := fmt.Sprint(2 + max(o.Partitions, 1)); row[0] != want {
		probs = append(probs, fmt.Sprintf("%s of pgbench's tables have fillfactor=%d, not %s", row[0], o.Fillfactor, want))
	}
	row, err = b.store.QueryRow(ctx, `SELECT count(*), coalesce(max(p.partstrat), '') FROM pg_inherits i LEFT JOIN pg_partitioned_table p ON p.partrelid = i.inhparent WHERE i.inhparent = 'pgbench_accounts'::regclass`)
	if err != nil {
		return nil, err
	}
	if row[0] != fmt.Sprint(o.Partitions) || o.Partitions > 0 && row[1] != o.method()[:1] {
		probs = append(probs, fmt.Sprintf("pgbench_accounts has %s partitions (strategy %q), not %d (%s)", row[0], row[1], o.Partitions, o.method()))
	}
	return probs, nil
}

// verifyBalances compares the sums after the run with those before it.
func (b *Bench) verifyBalances(ctx context.Context) ([]string, error) {
	if b.before == nil {
		return nil, nil
	}
	after, err := b.balances(ctx)
	if err != nil {
		return nil, err
	}
	d := make([]int64, len(after))
	for i := range after {
		d[i] = after[i] - b.before[i]
	}
	accounts, tellers, branches, history, rows := d[0], d[1], d[2], d[3], d[4]
	var probs []string
	if accounts != history {
		probs = append(probs, fmt.Sprintf("the accounts' balances changed by %d, the history's deltas add up to %d", accounts, history))
	}
	if b.builtins["tpcb-like"] && len(b.builtins) == 1 && (tellers != history || branches != history) {
		probs = append(probs, fmt.Sprintf("tellers changed by %d and branches by %d, the history's deltas by %d", tellers, branches, history))
	}
	var writers int64
	b.mu.Lock()
	if len(b.builtins) == len(b.scripts) && !b.builtins["select-only"] && !b.cfg.sharded() { // a shard knows its own only
		writers = b.stats.Transactions
	} else {
		writers = -1 // a mix with other scripts: not known per script
	}
	b.mu.Unlock()
	if writers >= 0 && rows != writers {
		probs = append(probs, fmt.Sprintf("pgbench_history gained %d rows for %d transactions", rows, writers))
	}
	if len(probs) > 0 {
		return []string{"the balances do not add up: " + strings.Join(probs, "; ")}, nil
	}
	return nil, nil
}

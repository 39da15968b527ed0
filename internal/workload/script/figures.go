package script

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// The run step's figures in summary.json's workload map, named as pgbench prints them.
const (
	keyTPS    = "tps"
	keyFailed = "failed"
	keyConnMS = "connection_time_ms"
)

// Figures implements workload.Workload: the scripts' op types (which depend on the scripts, so
// the declaration is in run.json, not registered by name), the load's, and the columns.
func (b *Bench) Figures() archive.Figures {
	f := Declaration(b.ops)
	f.InsertPatterns = initInsertPatterns(b.cfg.Steps, b.store.Dialect(), b.cfg.Init.steps())
	return f
}

// InsertPatterns are the insert patterns dbperf knows of the steps on a dialect (docs/script.md,
// "Insert patterns"): the init step's one loader writes pgbench_accounts in aid order, into its
// primary key on MySQL and SQLite, which create it with the table, while PostgreSQL adds the key
// after the load as pgbench does. The run step declares none: the built-in scripts insert only
// into pgbench_history, which has no index, and a user's script inserts what it says.
func InsertPatterns(steps []string, dialect string) []archive.InsertPattern {
	return initInsertPatterns(steps, dialect, DefaultInitSteps)
}

// initInsertPatterns is InsertPatterns for --init-steps: rows are loaded only by g or G, and
// on PostgreSQL into the key only when p comes before the first of them (e.g. dtpgv).
func initInsertPatterns(steps []string, dialect, initSteps string) []archive.InsertPattern {
	load := strings.IndexAny(initSteps, "gG")
	if !slices.Contains(steps, StepInit) || load < 0 || dialect == "postgres" && !strings.Contains(initSteps[:load], "p") {
		return nil
	}
	return []archive.InsertPattern{archive.NewInsertPattern(StepInit, "pgbench_accounts", "pk", archive.Ascending(1, true))}
}

// Declaration is the workload's declaration for the given run-step op types: the run step's
// headline is tps (successful transactions of every script a second, pgbench's figure), each
// script's rate and p99, and the failed transactions.
func Declaration(ops []measure.OpType) archive.Figures {
	const hi, lo = archive.HigherIsBetter, archive.LowerIsBetter
	f := archive.Figures{Ops: append(append([]measure.OpType(nil), initOps...), ops...)}
	f.Columns = append(f.Columns,
		archive.Column{Name: "tps", Key: keyTPS, Format: "%.1f", Better: hi, Summary: true, Compare: true, Headline: true,
			Help: "successful transactions a second, all scripts and clients (pgbench's tps)"},
		archive.Column{Name: "laps", Op: initOps[0].Name, Stat: archive.StatPerSec, Better: hi, Summary: true, Compare: true,
			Help: "pgbench_accounts rows loaded a second by the init step"})
	for _, o := range ops {
		if o.Name == ConnectOp {
			f.Columns = append(f.Columns, archive.Column{Name: "conn_ms", Key: keyConnMS, Format: "%.3f", Better: lo, Summary: true, Compare: true,
				Help: "average ms to close a transaction's connection and open the next (--connect-per-transaction; pgbench's average connection time)"})
			continue
		}
		if o.Name == FailedOp {
			f.Columns = append(f.Columns, archive.Column{Name: "failed", Key: keyFailed, Better: lo, Summary: true, Compare: true, Headline: true,
				Help: "transactions that failed after their last try (serialization or deadlock)"})
			continue
		}
		f.Columns = append(f.Columns,
			archive.Column{Name: o.Name + "_ps", Op: o.Name, Stat: archive.StatPerSec, Format: "%.1f", Better: hi, Compare: true},
			archive.Column{Name: o.Name + "_p99", Op: o.Name, Stat: archive.StatP99, Better: lo, Summary: true, Compare: true, Headline: true},
			archive.Column{Name: o.Name + "_p99.9", Op: o.Name, Stat: archive.StatP999, Better: lo, Compare: true})
	}
	// What the clients did, which a sharded run's merge adds up (tps too: each shard's is its share).
	f.Sums = []string{keyTPS, "transactions", keyFailed, "serialization_failures", "deadlock_failures", "retried", "retries", "connections"}
	return f
}

// runFigures are pgbench's summary counts for the step.
func (b *Bench) runFigures(clients []*client, warm *warmAside, res runner.Result) (map[string]any, []string) {
	var whole Stats
	for _, c := range clients {
		whole.add(c.st)
	}
	b.mu.Lock()
	b.stats = whole // the check counts every transaction, the warm-up's too
	b.mu.Unlock()
	st := warm.measured(clients)
	secs := max(res.End.Sub(res.Start).Seconds(), 1e-9)
	f := map[string]any{
		keyTPS: measure.Round(float64(st.Transactions)/secs, 1), "transactions": st.Transactions,
		keyFailed: st.Failed, "serialization_failures": st.Serialization, "deadlock_failures": st.Deadlock,
		"retried": st.Retried, "retries": st.Retries, "scale": b.scale, "query_mode": b.cfg.Mode.String(),
	}
	if b.cfg.ConnectEach { // pgbench's "average connection time" (pgbench.c:6480-6483)
		f["connections"] = st.Connections
		f[keyConnMS] = measure.Round(st.ConnectTime.Seconds()*1e3/float64(max(st.Connections, 1)), 3)
	}
	var warn []string
	if tot := st.Transactions + st.Failed; st.Failed > 0 && tot > 0 {
		warn = append(warn, fmt.Sprintf("number of failed transactions: %d (%.3f%%)", st.Failed, 100*float64(st.Failed)/float64(tot)))
	}
	return f, warn
}

// balanceSQL are the sums the built-in scripts' check compares.
var balanceSQL = []string{
	"SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts",
	"SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers",
	"SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches",
	"SELECT coalesce(sum(delta), 0) FROM pgbench_history",
	"SELECT count(*) FROM pgbench_history",
}

// balances reads the sums, when a built-in script runs.
func (b *Bench) balances(ctx context.Context) ([]int64, error) {
	if !b.cfg.Builtin() {
		return nil, nil
	}
	out := make([]int64, len(balanceSQL))
	for i, q := range balanceSQL {
		row, err := b.store.QueryRow(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("checking the balances: %w", err)
		}
		if out[i], err = strconv.ParseInt(row[0], 10, 64); err != nil {
			return nil, fmt.Errorf("checking the balances: %q from %s", row[0], q)
		}
	}
	return out, nil
}

package sysbench

import (
	"context"
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// Keys of summary.json's workload map: sysbench's final report (db_driver.c:1017-1050,
// sysbench.c:248-306) under its names.
const (
	KeyTPS     = "tps"               // transactions: N (X per sec.)
	KeyQPS     = "qps"               // queries: N (X per sec.)
	KeyErrors  = "ignored_errors"    // ignored errors: N
	KeyP95     = "latency_p95_ms"    // Latency (ms): 95th percentile
	KeyAvg     = "latency_avg_ms"    // Latency (ms): avg
	KeyReads   = "queries_read"      // queries performed: read
	KeyWrites  = "queries_write"     // write
	KeyOther   = "queries_other"     // other
	KeyQueries = "queries_total"     // total
	KeyErrPS   = "ignored_errors_ps" // err/s
)

func init() { archive.Declare(Name, Declaration()) }

// Figures implements workload.Workload: Declaration and the configured steps' insert patterns.
func (b *Bench) Figures() archive.Figures {
	f := Declaration()
	f.InsertPatterns = b.cfg.InsertPatterns()
	return f
}

// Declaration: sysbench's transactions/s and queries/s are the headline, then its 95th
// percentile latency (its default --percentile) and dbperf's p99 and p99.9 of the event.
func Declaration() archive.Figures {
	const hi, lo = archive.HigherIsBetter, archive.LowerIsBetter
	// A sharded run's merge adds these up over the shards (each counted its own threads); the
	// latency figures come from the merged histogram instead.
	sums := []string{KeyTPS, KeyQPS, KeyReads, KeyWrites, KeyOther, KeyQueries, KeyErrors, KeyErrPS, "transactions", "inserted", "deleted"}
	return archive.Figures{Ops: Ops, Sums: sums, Columns: []archive.Column{
		{Name: "tps", Key: KeyTPS, Format: "%.2f", Better: hi, Summary: true, Compare: true, Headline: true,
			Help: "events (sysbench's transactions) a second, every thread: sysbench's transactions (X per sec.)"},
		{Name: "qps", Key: KeyQPS, Format: "%.2f", Better: hi, Summary: true, Compare: true, Headline: true,
			Help: "statements a second, reads, writes and other (BEGIN, COMMIT, changes of no row) as sysbench counts them"},
		{Name: "lat_p95_ms", Key: KeyP95, Format: "%.2f", Better: lo, Summary: true, Compare: true, Headline: true,
			Help: "the event's 95th percentile latency in ms, restarts included: sysbench's Latency (ms) 95th percentile"},
		{Name: "trx_p99", Op: "trx", Stat: archive.StatP99, Better: lo, Summary: true, Compare: true},
		{Name: "trx_p99.9", Op: "trx", Stat: archive.StatP999, Better: lo, Compare: true},
		{Name: "err_ps", Key: KeyErrPS, Format: "%.2f", Better: lo, Compare: true,
			Help: "ignored errors a second (deadlocks and the like, each restarting its event): sysbench's err/s"},
		{Name: "insps", Op: "load", Stat: archive.StatPerSec, Better: hi, Compare: true,
			Help: "rows a second loaded by the prepare step"},
	}}
}

// figures are sysbench's SQL statistics and latency for a run step. The transactions and the
// queries are the clients' counts, cut at the same event after a warm-up (Client.do); the
// latencies are the trx op's, whose cut is the runner's (an event that ends right at the
// warm-up's end may fall on the other side of it: docs/sysbench.md, "Figures").
func (b *Bench) figures(res runner.Result) map[string]any {
	t := b.measured()
	secs := max(res.End.Sub(res.Start).Seconds(), 1e-9)
	trx := res.Total.Ops[OpTrx]
	m := map[string]any{
		KeyTPS: measure.Round(float64(t.Events)/secs, 2), KeyQPS: measure.Round(float64(t.Queries())/secs, 2),
		KeyReads: t.Reads, KeyWrites: t.Writes, KeyOther: t.Other, KeyQueries: t.Queries(),
		KeyErrors: t.Ignored, KeyErrPS: measure.Round(float64(t.Ignored)/secs, 2), "transactions": t.Events,
		"inserted": t.Inserted, "deleted": t.Deleted,
	}
	if trx.Statements > 0 && trx.Hist != nil {
		m[KeyP95] = measure.Round(float64(trx.Hist.ValueAtPercentile(95))/1e6, 2)
		m[KeyAvg] = measure.Round(trx.Hist.Mean()/1e6, 2)
	}
	return m
}

// Totals are the last run step's counts, every client added up.
func (b *Bench) Totals() Tally { return b.totals() }

// Verify implements workload.Workload: every table's ids are distinct (the primary key holds)
// and, after prepare and after a run of a test that keeps them so, it holds --table-size rows;
// after oltp_insert, those plus the rows inserted; after oltp_delete, those less the rows deleted.
func (b *Bench) Verify(ctx context.Context, step string) ([]string, error) {
	var probs []string
	var rows int64
	for t := 1; t <= b.cfg.Tables; t++ {
		n, ids, err := b.store.Count(ctx, t)
		if err != nil {
			return nil, err
		}
		if n != ids {
			probs = append(probs, fmt.Sprintf("sbtest%d holds %d rows but %d distinct ids", t, n, ids))
		}
		if step == StepPrepare || b.cfg.KeepsRows() {
			if n != b.cfg.LoadRows() && b.loaded {
				probs = append(probs, fmt.Sprintf("sbtest%d holds %d rows, not --table-size %d", t, n, b.cfg.LoadRows()))
			}
		}
		rows += n
	}
	if step == StepRun && !b.cfg.KeepsRows() && b.loaded && !b.cfg.Sharded {
		tl := b.totals()
		if want := b.cfg.LoadRows()*int64(b.cfg.Tables) + tl.Inserted - tl.Deleted; rows != want {
			probs = append(probs, fmt.Sprintf("the tables hold %d rows, not the %d loaded plus %d inserted less %d deleted", rows, b.cfg.LoadRows()*int64(b.cfg.Tables), tl.Inserted, tl.Deleted))
		}
	}
	return probs, nil
}

// CheckStart fails a run that starts with the run step on missing tables.
func (b *Bench) CheckStart(ctx context.Context) error {
	if b.cfg.Steps[0] != StepRun {
		return nil
	}
	for t := 1; t <= b.cfg.Tables; t++ {
		if _, _, err := b.store.Count(ctx, t); err != nil {
			return fmt.Errorf("sbtest%d is missing (%v): run the prepare step first (--steps prepare,run)", t, err)
		}
	}
	return nil
}

// SetArrival implements workload.Tunable.
func (b *Bench) SetArrival(a workload.Arrival) { b.cfg.Arrival = a }

// SetStepSeconds implements workload.Tunable: the next run steps last this long.
func (b *Bench) SetStepSeconds(s float64) {
	b.cfg.Duration = time.Duration(s * float64(time.Second))
	b.cfg.Events = 0
}

// KeepsSize implements workload.Tunable.
func (b *Bench) KeepsSize(step string) bool { return step == StepRun && b.cfg.KeepsRows() }

// RateOps implements workload.Tunable.
func (b *Bench) RateOps(step string) []string {
	if step != StepRun {
		return nil
	}
	return []string{"trx"}
}

// SetClients implements workload.ClientTunable.
func (b *Bench) SetClients(n int) { b.cfg.Threads = n }

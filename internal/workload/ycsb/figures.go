package ycsb

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/workload"
)

// keyThroughput is YCSB's [OVERALL] Throughput(ops/sec) in summary.json's workload map.
const keyThroughput = "throughput_ops_sec"

func init() { archive.Declare(Name, Declaration()) }

// Figures implements workload.Workload: Declaration and the configured steps' insert patterns.
func (b *Bench) Figures() archive.Figures {
	f := Declaration()
	f.InsertPatterns = b.cfg.InsertPatterns()
	return f
}

// InsertPatterns are how the configured steps insert into usertable's key (docs/ycsb.md, "Insert
// patterns"). Every client takes its keynums from one counter (the load's keysequence, the run's
// transactioninsertkeysequence), so together they are one stream. With insertorder=hashed the
// keys are hashes of the keynums: random. With ordered they ascend as strings, which is the
// keynums' order while their digits (zero-padded to zeropadding) keep one length: then at the
// right end; across lengths "user10" sorts before "user9" and the stream runs inside the keys.
// The run step inserts only when insertproportion > 0 (workloads d and e).
func (c Config) InsertPatterns() []archive.InsertPattern {
	digits := func(keynum int64) int { return max(len(strconv.FormatInt(keynum, 10)), c.ZeroPadding) }
	pattern := func(lo, hi int64) archive.Streams {
		if c.InsertOrder == "hashed" {
			return archive.Random
		}
		return archive.Ascending(1, digits(lo) == digits(hi))
	}
	var out []archive.InsertPattern
	for _, step := range c.Steps {
		switch {
		case step == StepLoad:
			lo := c.InsertStart
			out = append(out, archive.NewInsertPattern(step, "usertable", "pk", pattern(lo, lo+max(c.Count(), 1)-1)))
		case step == StepRun && c.Insert > 0: // above every loaded key, at most operationcount
			out = append(out, archive.NewInsertPattern(step, "usertable", "pk", pattern(c.InsertStart, c.RecordCount+c.OperationCount)))
		}
	}
	return out
}

// Declaration: YCSB's overall throughput is the headline; each op type's rate, p99 (YCSB prints
// 95th and 99th percentiles per op) and p99.9 follow.
func Declaration() archive.Figures {
	const hi, lo = archive.HigherIsBetter, archive.LowerIsBetter
	f := archive.Figures{Ops: Ops}
	f.Columns = append(f.Columns, archive.Column{Name: "ops", Key: keyThroughput, Format: "%.1f", Better: hi, Summary: true, Compare: true, Headline: true,
		Help: "operations a second, every type and client: YCSB's [OVERALL] Throughput(ops/sec)"})
	for _, o := range Ops {
		f.Columns = append(f.Columns,
			archive.Column{Name: o.Abbrev + "ps", Op: o.Name, Stat: archive.StatPerSec, Format: "%.1f", Better: hi, Compare: true},
			archive.Column{Name: o.Abbrev + "_p99", Op: o.Name, Stat: archive.StatP99, Better: lo, Summary: true, Compare: true, Headline: true},
			archive.Column{Name: o.Abbrev + "_p99.9", Op: o.Name, Stat: archive.StatP999, Better: lo, Compare: true})
	}
	// What the clients did, which a sharded run's merge adds up (the throughput too: each
	// shard's is its share).
	f.Sums = []string{keyThroughput, "operations", "not_found", "inserted"}
	return f
}

// Verify implements workload.Workload: after a whole load, usertable holds insertcount records;
// after a part of a split load, it holds every key of the part's range (the other parts' records
// are theirs to check); after a run, the records after the load and every acknowledged insert,
// and no read missed a record (every key a read draws was loaded or acknowledged).
func (b *Bench) Verify(ctx context.Context, step string) ([]string, error) {
	n, err := b.store.Count(ctx)
	if err != nil {
		return nil, err
	}
	var probs []string
	switch {
	case step == StepLoad && !b.cfg.WholeLoad():
		have, err := b.countRange(ctx, b.cfg.InsertStart, b.cfg.InsertStart+b.cfg.Count())
		if err != nil {
			return nil, err
		}
		if have != b.cfg.Count() {
			probs = append(probs, fmt.Sprintf("usertable holds %d of the %d records of key numbers %d to %d", have,
				b.cfg.Count(), b.cfg.InsertStart, b.cfg.InsertStart+b.cfg.Count()-1))
		}
		b.base = n
	case b.loaded:
		want := b.base
		if step == StepRun {
			want += b.earlier + b.inserted.Load()
		}
		if n != want {
			probs = append(probs, fmt.Sprintf("usertable holds %d records, not %d", n, want))
		}
	}
	if step == StepRun {
		if nf := b.notFound.Load(); nf > 0 {
			probs = append(probs, fmt.Sprintf("%d reads found no record", nf))
		}
	}
	return probs, nil
}

// countRange is how many records of keynums lo..hi-1 usertable holds, asked in batches.
func (b *Bench) countRange(ctx context.Context, lo, hi int64) (int64, error) {
	const batch = 1000
	var total int64
	keys := make([]string, 0, batch)
	for k := lo; k < hi; k += batch {
		keys = keys[:0]
		for i := k; i < min(k+batch, hi); i++ {
			keys = append(keys, b.cfg.KeyName(i))
		}
		n, err := b.store.CountKeys(ctx, keys)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// CheckStart fails a run that starts with the run step on an empty table.
func (b *Bench) CheckStart(ctx context.Context) error {
	if b.cfg.Steps[0] != StepRun {
		return nil
	}
	n, err := b.store.Count(ctx)
	if err != nil || n == 0 {
		return fmt.Errorf("usertable is empty or missing (%v): run the load step first (--steps load,run)", err)
	}
	return nil
}

// SetArrival implements workload.Tunable.
func (b *Bench) SetArrival(a workload.Arrival) { b.cfg.Arrival = a }

// SetStepSeconds implements workload.Tunable: the next run steps last this long.
func (b *Bench) SetStepSeconds(s float64) {
	b.cfg.Duration = time.Duration(s * float64(time.Second))
	b.cfg.OperationCount = 0
}

// KeepsSize implements workload.Tunable: workloads with inserts grow the table.
func (b *Bench) KeepsSize(step string) bool { return step == StepRun && b.cfg.Insert == 0 }

// RateOps implements workload.Tunable.
func (b *Bench) RateOps(step string) []string {
	if step != StepRun {
		return nil
	}
	var names []string
	for _, o := range Ops {
		names = append(names, o.Name)
	}
	return names
}

// SetClients implements workload.ClientTunable.
func (b *Bench) SetClients(n int) { b.cfg.Clients = n }

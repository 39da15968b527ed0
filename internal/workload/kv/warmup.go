package kv

import (
	"context"
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// WarmUp implements workload.Warmable: the steps whose length is a time (the reads, scans and
// their whilewriting forms); the fills, overwrites and flushes are work of a fixed size.
func (b *Bench) WarmUp(step string, _ time.Duration) error {
	switch step {
	case ReadRandom, ReadWhileWriting, MultiReadRandom, FwdRange, FwdRangeWhileWriting, RevRange, RevRangeWhileWriting:
		return nil
	}
	return fmt.Errorf("step %s is work of a fixed size, not a time, so no warm-up can precede it: run it without --warmup, then the read steps with it", step)
}

// warmCounts are a client's counts when the step's warm-up ended, which the step's figures
// leave out.
type warmCounts struct {
	seen                              bool
	ops, found, bytes, puts, putBytes int64
}

// afterWarmup sets the client's counts aside at its first operation after the warm-up.
func (st *stepState) afterWarmup(c *client, do runner.DoFunc) runner.DoFunc {
	return func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		if attempt == 0 && st.mark.Passed(&c.warm.seen) {
			c.setAside()
		}
		return do(ctx, attempt)
	}
}

func (c *client) setAside() {
	c.warm.ops, c.warm.found, c.warm.bytes, c.warm.puts, c.warm.putBytes = c.ops, c.found, c.bytes, c.puts, c.putBytes
}

// warmupEnd marks the warm-up's end for the clients and takes the engine's counters again:
// the step's engine columns are those of the measured part.
func (st *stepState) warmupEnd() {
	st.mark.End()
	if m, ok := st.db.Engine.(kvdriver.Monitored); ok {
		st.before, _ = m.Counters()
	}
}

// setWarmupAside sets aside, after the step, the counts of clients that did nothing after the
// warm-up (all theirs are the warm-up's).
func (st *stepState) setWarmupAside() {
	for _, c := range append(append([]*client(nil), st.readers...), st.writers...) {
		if st.mark.Passed(&c.warm.seen) {
			c.setAside()
		}
	}
}

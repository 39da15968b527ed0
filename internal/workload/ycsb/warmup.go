package ycsb

import (
	"fmt"
	"time"
)

// WarmUp implements workload.Warmable: the run step when it is timed (--step-seconds with
// --operations 0); the load, and a run of a fixed operation count, are work of a fixed size,
// a count with --step-seconds too (it may end at the count: docs/ycsb.md).
func (b *Bench) WarmUp(step string, _ time.Duration) error {
	switch {
	case step != StepRun:
		return fmt.Errorf("step %s loads the records, work of a fixed size, so no warm-up can precede it: run it without --warmup, then --steps run with it", step)
	case b.cfg.OperationCount > 0:
		return fmt.Errorf("step run does a fixed count of operations (--operations %d), so no warm-up can precede it: give --operations 0 --step-seconds D", b.cfg.OperationCount)
	}
	return nil
}

// warmupEnd takes the run step's counts when its warm-up ends: its figures leave them out (an
// operation under way then counts after it, as the runner counts its latency).
func (b *Bench) warmupEnd() {
	b.warmNotFound, b.warmInserted = b.notFound.Load(), b.inserted.Load()
}

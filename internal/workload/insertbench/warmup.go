package insertbench

import (
	"fmt"
	"time"
)

// WarmUp implements workload.Warmable: a q step's inserts and queries run through the warm-up
// (its inserts' schedule lengthened by it, so the measured part still has --q-seconds of
// them); the load steps, l.x, settle and cleanup are work of a fixed size.
func (b *Bench) WarmUp(step string, d time.Duration) error {
	if info, err := parseStep(step); err != nil || info.kind != kindQuery {
		return fmt.Errorf("step %s is work of a fixed size, not a time, so no warm-up can precede it: run it without --warmup, then the q steps with it (--steps qr100,...)", step)
	}
	b.warmup = d
	return nil
}

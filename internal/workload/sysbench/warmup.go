package sysbench

import (
	"fmt"
	"time"
)

// WarmUp implements workload.Warmable: the run step when it is timed (--time without
// --events); prepare, and a run of a fixed count of events, are work of a fixed size.
func (b *Bench) WarmUp(step string, _ time.Duration) error {
	switch {
	case step != StepRun:
		return fmt.Errorf("step %s creates and loads the tables, work of a fixed size, so no warm-up can precede it: run it without --warmup, then --steps run with it", step)
	case b.cfg.Events > 0:
		return fmt.Errorf("step run does a fixed count of events (--events %d), so no warm-up can precede it: give --time alone", b.cfg.Events)
	}
	return nil
}

// sub is t less o, for the counts a warm-up set aside.
func (t Tally) sub(o Tally) Tally {
	t.Events -= o.Events
	t.Reads -= o.Reads
	t.Writes -= o.Writes
	t.Other -= o.Other
	t.Ignored -= o.Ignored
	t.Inserted -= o.Inserted
	t.Deleted -= o.Deleted
	for i := range t.ByStmt {
		t.ByStmt[i] -= o.ByStmt[i]
	}
	return t
}

// measured adds up the clients' counts since the warm-up (all of them without one), after
// the step: the figures'; the checks count every row, warm-up's too (totals).
func (b *Bench) measured() Tally {
	warmed := b.mark.Passed(new(bool)) // the warm-up ended (there was one)
	var t Tally
	for _, c := range b.clients {
		if warmed {
			t.add(c.Tally.sub(c.before))
		} else {
			t.add(c.Tally)
		}
	}
	return t
}

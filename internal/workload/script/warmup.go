package script

import (
	"context"
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// WarmUp implements workload.Warmable: the run step when it is timed (--step-seconds without
// --transactions); init, and a run of a fixed count of transactions, are work of a fixed size.
func (b *Bench) WarmUp(step string, _ time.Duration) error {
	switch {
	case step != StepRun:
		return fmt.Errorf("step %s creates and fills the tables, work of a fixed size, so no warm-up can precede it: run it without --warmup, then --steps run with it", step)
	case b.cfg.Transactions > 0:
		return fmt.Errorf("step run does a fixed count of transactions (--transactions %d), so no warm-up can precede it: give --step-seconds alone", b.cfg.Transactions)
	}
	return nil
}

// warmAside is a run step's warm-up end as its clients see it: each client's counts then,
// which the step's figures leave out (the check still counts them: they are in the tables).
type warmAside struct {
	mark workload.Mark
	seen []bool
	at   []Stats
}

func newWarmAside(clients []*client) *warmAside {
	return &warmAside{seen: make([]bool, len(clients)), at: make([]Stats, len(clients))}
}

// wrap is client i's operation, which first sets its counts aside once the warm-up is over.
func (w *warmAside) wrap(i int, c *client) runner.DoFunc {
	return func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		if attempt == 0 && w.mark.Passed(&w.seen[i]) {
			w.at[i] = c.st
		}
		return c.do(ctx, attempt)
	}
}

// measured are the clients' counts since the warm-up (all of them without one), after the step.
func (w *warmAside) measured(clients []*client) Stats {
	var st Stats
	for i, c := range clients {
		if w.mark.Passed(&w.seen[i]) { // nothing done after the warm-up
			w.at[i] = c.st
		}
		st.add(c.st.sub(w.at[i]))
	}
	return st
}

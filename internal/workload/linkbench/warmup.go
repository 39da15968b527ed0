package linkbench

import (
	"context"
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// WarmUp implements workload.Warmable: the request step when it is timed (--requests 0
// --requests-seconds D); the load, and a request step of a fixed count, are work of a fixed size.
func (b *Bench) WarmUp(step string, _ time.Duration) error {
	switch {
	case step != StepRequest:
		return fmt.Errorf("step %s loads the database, work of a fixed size, so no warm-up can precede it: run it without --warmup, then --steps request with it", step)
	case b.cfg.Requests > 0:
		return fmt.Errorf("step request does a fixed count of requests (--requests %d), so no warm-up can precede it: give --requests 0 --requests-seconds D", b.cfg.Requests)
	}
	return nil
}

// warmStats are a requester's counts when the request step's warm-up ended.
type warmStats struct {
	seen  bool
	stats reqStats
}

// afterWarmup is the requester's operation, which first sets its counts aside once the
// warm-up is over.
func (b *Bench) afterWarmup(r *requester) runner.DoFunc {
	mark := &b.mark
	return func(ctx context.Context, attempt int) (measure.Op, int64, error) {
		if attempt == 0 && (*mark).Passed(&r.warm.seen) {
			r.warm.stats = r.stats
		}
		return r.do(ctx, attempt)
	}
}

// measured are the step's counts st (every requester's) less those of its warm-up.
func (b *Bench) measured(st reqStats) reqStats {
	for _, r := range b.requesters {
		if b.mark.Passed(&r.warm.seen) { // nothing done after the warm-up
			r.warm.stats = r.stats
		}
		w := &r.warm.stats
		st.historyQueries -= w.historyQueries
		st.listRows -= w.listRows
		st.multigetAsked -= w.multigetAsked
		st.multigetFound -= w.multigetFound
		st.linksInserted -= w.linksInserted
		st.nodesAdded -= w.nodesAdded
		st.nodesDeleted -= w.nodesDeleted
	}
	return st
}

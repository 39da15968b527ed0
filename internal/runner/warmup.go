package runner

import (
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// warmup is a step's warm-up while it runs: when it may end, and, once it has, what each
// open-loop pool had offered, achieved and dropped by then (subtracted from the step's books).
type warmup struct {
	until   time.Time
	over    bool
	streams []measure.Stream
}

// due tells whether the tick at now ends the warm-up: the first tick at or after its end (a
// tick a little early counts, so that a whole number of seconds ends on its own tick).
func (w *warmup) due(now time.Time, tick time.Duration) bool {
	return !w.over && !now.Before(w.until.Add(-tick/4))
}

// snapshot is the pool's stream so far (called after a drain, from the drainer): offered,
// achieved and dropped; what was due and not yet done is unfinished.
func (ps *poolState) snapshot(recs []*measure.Recorder) measure.Stream {
	var achieved int64
	for _, r := range recs {
		for _, n := range r.Done() {
			achieved += n
		}
	}
	ps.mu.Lock()
	st := measure.Stream{Name: ps.p.Name, Workers: len(ps.p.Do), Offered: ps.arrivals, Achieved: achieved, Dropped: ps.dropped}
	ps.mu.Unlock()
	st.Unfinished = max(0, st.Offered-st.Achieved-st.Dropped)
	return st
}

// since removes the warm-up's share from a stream's books: the measured part offered what
// arrived after the warm-up and achieved what finished after it (arrivals the warm-up left
// waiting among them).
func since(st, warm measure.Stream) measure.Stream {
	st.Offered -= warm.Offered
	st.Achieved -= warm.Achieved
	st.Dropped -= warm.Dropped
	st.Unfinished = max(0, st.Offered-st.Achieved-st.Dropped-st.NotStarted)
	st.Overloaded = false
	st.Overload()
	return st
}

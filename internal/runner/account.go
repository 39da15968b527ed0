package runner

import (
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// waiting ends the schedule at end if no worker has (every worker failed), and returns the
// arrivals due before the schedule ended that no worker started, oldest first, and when it
// ended. Called once every worker has returned.
func (ps *poolState) waiting(end time.Time) ([]time.Duration, time.Time) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.stopped {
		at := end
		select {
		case <-ps.stopCh:
			at = *ps.stopAt
		default:
		}
		ps.advance(at)
		ps.stop(at)
	}
	return ps.queue, ps.endAt
}

// account closes the stream's books at the step's end: every arrival offered was achieved,
// dropped, not started, or cut off while running. The not-started ones go into iv, each with
// its wait so far (a lower bound of its response time), under an op type in the proportions of
// the operations the pool's workers finished (recs, drained for the last time): a stream's
// operations choose their op type as they run (LinkBench's mix), so a waiting arrival has none
// of its own. A stream that finished nothing cannot give its waits an op type; it says so.
func (ps *poolState) account(iv *measure.Interval, recs []*measure.Recorder, end time.Time) measure.Stream {
	queue, endAt := ps.waiting(end)
	done := make([]int64, len(iv.Ops))
	var achieved int64
	for _, r := range recs {
		for o, n := range r.Done() {
			done[o] += n
			achieved += n
		}
	}
	ps.mu.Lock()
	st := measure.Stream{Name: ps.p.Name, Workers: len(ps.p.Do), Offered: ps.arrivals, Achieved: achieved,
		Dropped: ps.dropped, NotStarted: int64(len(queue))}
	ps.mu.Unlock()
	st.Unfinished = max(0, st.Offered-st.Achieved-st.Dropped-st.NotStarted)
	if len(queue) > 0 {
		st.NotStartedWaitMaxUs = measure.Round(measure.Micros(int64(endAt.Sub(ps.start.Add(queue[0])))), 3)
	}
	st.Unattributed = achieved == 0 && len(queue) > 0
	if !st.Unattributed {
		for i, off := range queue {
			iv.RecordNotStarted(share(done, achieved, i, len(queue)), endAt.Sub(ps.start.Add(off)))
		}
	}
	st.Overload()
	return st
}

// share is the op type of the i-th of n arrivals when n are spread over op types in the
// proportions of done (of total): evenly interleaved, so that any run of them has the mix.
func share(done []int64, total int64, i, n int) measure.Op {
	at := (float64(i) + 0.5) / float64(n) * float64(total)
	var sum float64
	for o, d := range done {
		sum += float64(d)
		if at < sum {
			return measure.Op(o)
		}
	}
	for o := len(done) - 1; o > 0; o-- { // rounding at the very end: the last op type with any
		if done[o] > 0 {
			return measure.Op(o)
		}
	}
	return 0
}

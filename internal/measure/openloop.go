package measure

import (
	"fmt"
	"strings"
	"time"
)

// RecordNotStarted adds an open-loop arrival of op that was due before its stream's schedule
// ended but never started: its wait so far goes into the op type's response times, where it
// is a lower bound of the response time it would have had, and into Waits, so that figures of
// operations that completed (goodput) can leave it out.
func (iv *Interval) RecordNotStarted(op Op, wait time.Duration) {
	a := &iv.Ops[op]
	v := clamp(wait)
	a.Hist.RecordValue(v) // cannot fail: v is within bounds
	if a.Waits == nil {
		a.Waits = NewPacked()
	}
	a.Waits.RecordValue(v)
	a.NotStarted++
}

// Stream is what one open-loop stream (a pool of workers on a global schedule) did with its
// arrivals over a step. Every arrival due before the schedule ended is offered, and is then
// exactly one of: achieved (started and finished), dropped (found the backlog full), not started
// (still waiting when the schedule ended) or unfinished (started, and cut off by an interrupt
// or a failure).
type Stream struct {
	Name       string `json:"name"`
	Workers    int    `json:"workers"`
	Offered    int64  `json:"offered"`
	Achieved   int64  `json:"achieved"`
	Dropped    int64  `json:"dropped"`
	NotStarted int64  `json:"not_started"`
	Unfinished int64  `json:"unfinished,omitempty"`
	// NotStartedWaitMaxUs is the longest a not-started arrival had waited, µs.
	NotStartedWaitMaxUs float64 `json:"not_started_wait_max_us,omitempty"`
	// Unattributed is set when not-started arrivals could not be given an op type (the stream
	// finished nothing): their waits are in no op type's latency figures.
	Unattributed bool `json:"unattributed,omitempty"`
	Overloaded   bool `json:"overloaded"`
}

// OverloadShare is the share of a stream's offered arrivals that may still wait at its end
// before the stream counts as overloaded. A stream that keeps up ends with at most about its
// workers' worth of arrivals waiting, whatever the step's length; one whose backlog grew by
// (offered - served) a second ends with that growth times the step's length.
const OverloadShare = 0.01

// Overload judges the stream: overloaded when an arrival was dropped, or when more than
// OverloadShare of its offered arrivals, and more than its workers, were still waiting at the
// end (its backlog grew over the step).
func (s *Stream) Overload() {
	s.Overloaded = s.Dropped > 0 || (float64(s.NotStarted) > OverloadShare*float64(s.Offered) && s.NotStarted > int64(s.Workers))
}

// OpenLoop is a step's open-loop figures in summary.json: its streams' arrivals together, as
// counts and as rates over the step's seconds (the seconds every other rate of the step divides
// by), and each stream's.
type OpenLoop struct {
	Offered             int64   `json:"offered"`
	OfferedPerSec       float64 `json:"offered_per_sec"`
	Achieved            int64   `json:"achieved"`
	AchievedPerSec      float64 `json:"achieved_per_sec"`
	Dropped             int64   `json:"dropped"`
	NotStarted          int64   `json:"not_started"`
	Unfinished          int64   `json:"unfinished,omitempty"`
	NotStartedWaitMaxUs float64 `json:"not_started_wait_max_us,omitempty"`
	// Overloaded is set when any stream was; Why says which and by what rule.
	Overloaded bool     `json:"overloaded"`
	Why        string   `json:"overloaded_why,omitempty"`
	Streams    []Stream `json:"streams"`
}

// SummarizeOpenLoop adds up a step's streams over its seconds; nil when it had none.
func SummarizeOpenLoop(streams []Stream, seconds float64) *OpenLoop {
	if len(streams) == 0 {
		return nil
	}
	o := &OpenLoop{Streams: streams}
	var why []string
	for _, s := range streams {
		o.Offered += s.Offered
		o.Achieved += s.Achieved
		o.Dropped += s.Dropped
		o.NotStarted += s.NotStarted
		o.Unfinished += s.Unfinished
		o.NotStartedWaitMaxUs = max(o.NotStartedWaitMaxUs, s.NotStartedWaitMaxUs)
		if s.Overloaded {
			o.Overloaded = true
			why = append(why, overloadWhy(s))
		}
	}
	if seconds > 0 {
		o.OfferedPerSec = Round(float64(o.Offered)/seconds, 3)
		o.AchievedPerSec = Round(float64(o.Achieved)/seconds, 3)
	}
	o.Why = strings.Join(why, "; ")
	return o
}

// overloadWhy says why a stream is overloaded.
func overloadWhy(s Stream) string {
	var parts []string
	if s.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d dropped (backlog full)", s.Dropped))
	}
	if s.NotStarted > 0 {
		parts = append(parts, fmt.Sprintf("%d (%.1f%%) still waiting at the end", s.NotStarted, 100*float64(s.NotStarted)/float64(max(s.Offered, 1))))
	}
	return fmt.Sprintf("%s: %s of %d offered", s.Name, strings.Join(parts, " and "), s.Offered)
}

// Package search finds the highest arrival rate at which a step still meets its goals: a loop
// of honest trials, each printed and archived, with the pass rule stated so a reader can check
// the answer. The search itself (Run) is a pure function of the trials' outcomes, tested on a
// simulated target whose latency grows with load; a Plan (trials.go) runs each trial as steps
// of a session and judges it by the rule (Judge).
//
// The rule, as cockroachdb/pebble's write-throughput search and the published SLA studies do:
// a trial at rate R passes when every SLA holds over its measured part, it completed at least
// 95% of the R operations a second it was offered (a DBMS that falls behind while its latency
// holds does not pass), it dropped none, and any step gate held. The search starts at Start,
// doubles after each pass and halves after each fail until it has a pass and a fail (the
// bracket), then bisects until the two are within Resolution of each other or MaxTrials is spent.
// The answer is the highest passing rate.
package search

import (
	"errors"
	"fmt"
	"math"
)

// Config bounds a search.
type Config struct {
	Start      float64 // first rate tried
	Min, Max   float64 // rates never tried below or above
	Resolution float64 // stop when (fail - pass) / pass is at most this, e.g. 0.05
	MaxTrials  int
	// Whole searches whole numbers (a client count): halving and doubling round, bisection
	// takes the middle whole number, and the search stops when pass and fail are neighbours.
	Whole bool
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.Start <= 0 || c.Min <= 0 || c.Max < c.Start || c.Start < c.Min {
		errs = append(errs, fmt.Errorf("the rates must satisfy 0 < --min-rate <= --start-rate <= --max-rate (got %g, %g, %g)", c.Min, c.Start, c.Max))
	}
	if c.Resolution <= 0 || c.Resolution >= 1 {
		errs = append(errs, fmt.Errorf("--resolution must be above 0 and below 1 (got %g)", c.Resolution))
	}
	if c.MaxTrials < 2 {
		errs = append(errs, fmt.Errorf("--max-trials must be at least 2 (got %d)", c.MaxTrials))
	}
	return errors.Join(errs...)
}

// Outcome is what a trial at a rate showed.
type Outcome struct {
	Pass bool
	Why  string // the rule that failed, or "pass"
}

// Trial is one trial of the search.
type Trial struct {
	Rate float64
	Outcome
}

// Result is the search's answer.
type Result struct {
	Rate    float64 // the highest passing rate; 0 when none passed
	Fail    float64 // the lowest failing rate above it; 0 when none failed
	Trials  []Trial
	Reason  string // why the search stopped
	Bounded bool   // the answer is a bound, not a bracket: every trial passed at Max, or failed at Min
}

// Run searches, calling try for each trial in turn; an error from try stops the search and is
// returned with the trials so far.
func Run(c Config, try func(rate float64) (Outcome, error)) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	var r Result
	rate := c.Start
	for len(r.Trials) < c.MaxTrials {
		o, err := try(rate)
		if err != nil {
			return r, err
		}
		r.Trials = append(r.Trials, Trial{rate, o})
		if o.Pass {
			r.Rate = max(r.Rate, rate)
		} else if r.Fail == 0 || rate < r.Fail {
			r.Fail = rate
		}
		switch {
		case r.Rate > 0 && r.Fail > 0 && c.Whole:
			if r.Fail-r.Rate <= 1 {
				r.Reason = "bracketed: the passing and failing counts are neighbours"
				return r, nil
			}
			rate = math.Floor((r.Rate + r.Fail) / 2)
		case r.Rate > 0 && r.Fail > 0:
			if (r.Fail-r.Rate)/r.Rate <= c.Resolution {
				r.Reason = fmt.Sprintf("bracketed within %g%%", 100*c.Resolution)
				return r, nil
			}
			rate = math.Sqrt(r.Rate * r.Fail) // bisect on a log scale: rates span decades
		case r.Fail == 0:
			if rate >= c.Max {
				r.Reason, r.Bounded = fmt.Sprintf("passed at --max-rate %g", c.Max), true
				return r, nil
			}
			rate = min(2*rate, c.Max)
		default:
			if rate <= c.Min {
				r.Reason, r.Bounded = fmt.Sprintf("failed at --min-rate %g", c.Min), true
				return r, nil
			}
			rate = max(rate/2, c.Min)
			if c.Whole {
				rate = max(math.Floor(rate), c.Min)
			}
		}
	}
	r.Reason = fmt.Sprintf("%d trials spent", c.MaxTrials)
	return r, nil
}

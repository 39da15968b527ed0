package measure

import (
	"math"
	"strconv"
	"time"
)

// StallRule says which seconds are stalls: those whose throughput of the step's main op falls
// below Fraction of the step's median per-second throughput, or whose worst latency (any op)
// exceeds MaxLatency.
type StallRule struct {
	Fraction   float64
	MaxLatency time.Duration
}

// DefaultStallRule flags seconds below half the median rate, or with an operation over 1 s.
var DefaultStallRule = StallRule{Fraction: 0.5, MaxLatency: time.Second}

// Second is one interval as stall detection sees it.
type Second struct {
	T          float64 // t_sec at the interval's end, as in intervals.csv
	Seconds    float64 // the interval's length
	Rate       float64 // the main op's units per second
	MaxLatency time.Duration
}

// Stalls summarizes the stalls of a step; consecutive stalled seconds are one stall.
type Stalls struct {
	Count      int       `json:"count"`
	LongestSec float64   `json:"longest_sec"`
	TotalSec   float64   `json:"total_sec"`
	At         []float64 `json:"at,omitempty"` // t_sec of every stalled interval
	Rule       string    `json:"rule"`
}

// DetectStalls applies the rule to a step's seconds. Intervals shorter than half a second (the
// last, partial one) are not judged by rate: their rate is too noisy.
func DetectStalls(secs []Second, r StallRule) Stalls {
	st := Stalls{Rule: "rate < " + strconv.FormatFloat(r.Fraction, 'g', -1, 64) + " x median, or an operation > " + r.MaxLatency.String()}
	var rates []float64
	for _, s := range secs {
		if s.Seconds >= 0.5 {
			rates = append(rates, s.Rate)
		}
	}
	median := Percentile(rates, 50)
	run := 0.0
	for _, s := range secs {
		stalled := s.MaxLatency > r.MaxLatency || (s.Seconds >= 0.5 && median > 0 && s.Rate < r.Fraction*median)
		if !stalled {
			run = 0
			continue
		}
		if run == 0 {
			st.Count++
		}
		run += s.Seconds
		st.TotalSec += s.Seconds
		st.LongestSec = math.Max(st.LongestSec, run)
		st.At = append(st.At, s.T)
	}
	st.TotalSec = Round(st.TotalSec, 3)
	st.LongestSec = Round(st.LongestSec, 3)
	return st
}

package measure

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// SLA is a response-time goal of one op type: its Percentile of response times (from the
// intended start) must stay below Bound, e.g. "query:p99<2ms".
type SLA struct {
	Op         string
	Percentile float64
	Bound      time.Duration
}

func (s SLA) String() string {
	return fmt.Sprintf("%s:p%s<%s", s.Op, strconv.FormatFloat(s.Percentile, 'f', -1, 64), s.Bound)
}

var slaForm = regexp.MustCompile(`^([A-Za-z0-9_.-]+):p([0-9]+(?:\.[0-9]+)?)<([0-9.]+[a-zµ]+)$`)

// ParseSLA reads an SLA in the form OP:pXX<DURATION.
func ParseSLA(s string) (SLA, error) {
	m := slaForm.FindStringSubmatch(s)
	if m == nil {
		return SLA{}, fmt.Errorf("--sla %q is not of the form OP:pXX<DURATION (e.g. query:p99<2ms or get_link:p99.9<10ms)", s)
	}
	p, err := strconv.ParseFloat(m[2], 64)
	if err != nil || p <= 0 || p >= 100 {
		return SLA{}, fmt.Errorf("--sla %q: the percentile must be above 0 and below 100", s)
	}
	d, err := time.ParseDuration(m[3])
	if err != nil || d <= 0 {
		return SLA{}, fmt.Errorf("--sla %q: %q is not a positive duration (e.g. 500us, 2ms, 1s)", s, m[3])
	}
	return SLA{Op: m[1], Percentile: p, Bound: d}, nil
}

// SLAResult is how a step fared against an SLA, as summary.json keeps it.
type SLAResult struct {
	SLA string `json:"sla"`
	// Met: the step's percentile of response times, over the whole step, is below the bound.
	Met     bool    `json:"met"`
	ValueUs float64 `json:"value_us"` // that percentile, µs
	// GoodputPerSec is operations per second that completed within the bound (all their
	// response time, queueing included); WithinPct their share of all operations.
	GoodputPerSec float64 `json:"goodput_per_sec"`
	WithinPct     float64 `json:"within_pct"`
	// ViolatedSeconds counts the intervals whose own percentile exceeded the bound, of
	// Seconds intervals that had operations of the op type.
	ViolatedSeconds int `json:"violated_seconds"`
	Seconds         int `json:"seconds"`
}

// SLACheck follows one SLA through a step: each interval, then the whole step.
type SLACheck struct {
	SLA      SLA
	violated int
	judged   int
}

// Interval judges one interval's histogram of the SLA's op type.
func (c *SLACheck) Interval(h *hdr.PackedHistogram) {
	if h.TotalCount() == 0 {
		return
	}
	c.judged++
	if h.ValueAtPercentile(c.SLA.Percentile) > int64(c.SLA.Bound) {
		c.violated++
	}
}

// Result judges the op type's figures over the whole step's seconds. Its percentile counts the
// not-started arrivals' waits (lower bounds); its goodput counts only operations that completed
// within the bound, and its share divides by all, the not-started included.
func (c *SLACheck) Result(o *OpInterval, seconds float64) SLAResult {
	r := SLAResult{SLA: c.SLA.String(), ViolatedSeconds: c.violated, Seconds: c.judged}
	h := o.Hist
	total := h.TotalCount()
	if total == 0 {
		return r
	}
	v := h.ValueAtPercentile(c.SLA.Percentile)
	r.ValueUs = Round(Micros(v), 3)
	r.Met = v <= int64(c.SLA.Bound)
	within := CountAtOrBelow(h, int64(c.SLA.Bound))
	if o.Waits != nil {
		within -= CountAtOrBelow(o.Waits, int64(c.SLA.Bound))
	}
	r.WithinPct = Round(100*float64(within)/float64(total), 3)
	if seconds > 0 {
		r.GoodputPerSec = Round(float64(within)/seconds, 3)
	}
	return r
}

// CountAtOrBelow counts the histogram's values at or below v (ns). A bar is counted by its
// lowest equivalent value, within the histogram's 0.1% precision of every value in it.
func CountAtOrBelow(h *hdr.PackedHistogram, v int64) int64 {
	var n int64
	for from, count := range h.ForEachBucket {
		if from > v {
			break
		}
		n += count
	}
	return n
}

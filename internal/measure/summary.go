package measure

import (
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Bucket is one bar of the Insert Benchmark's end-of-step latency histogram: the number of
// operations whose latency was at most UpTo (and more than the previous bucket's bound).
type Bucket struct {
	UpTo  string `json:"le"`
	Count int64  `json:"count"`
}

// referenceBuckets are the original's histogram bounds: 256us, 1ms, 4ms, ... 16s, then "more".
var referenceBuckets = []struct {
	name string
	ns   int64
}{
	{"256us", 256 * int64(time.Microsecond)},
	{"1ms", int64(time.Millisecond)},
	{"4ms", 4 * int64(time.Millisecond)},
	{"16ms", 16 * int64(time.Millisecond)},
	{"64ms", 64 * int64(time.Millisecond)},
	{"256ms", 256 * int64(time.Millisecond)},
	{"1s", int64(time.Second)},
	{"4s", 4 * int64(time.Second)},
	{"16s", 16 * int64(time.Second)},
	{"more", math.MaxInt64},
}

// OpSummary is the end-of-step figure set of one op type, as written to summary.json.
// Count and PerSec are in the op type's units (rows for insert/delete/index, queries for query);
// latency percentiles are per statement, in microseconds.
type OpSummary struct {
	Count      int64   `json:"count"`
	Statements int64   `json:"statements"`
	PerSec     float64 `json:"per_sec"`
	Errors     int64   `json:"errors"`
	// ErrorKinds splits Errors by kind, most first, with each kind's first message.
	ErrorKinds []ErrorCount `json:"error_kinds,omitempty"`
	// NotStarted counts open-loop arrivals of this op type still waiting when their schedule
	// ended. Their waits so far are among the latency figures, which are then lower bounds of
	// the response times (LatencyLowerBound): each is at most what it would be had every
	// arrival run.
	NotStarted        int64    `json:"not_started,omitempty"`
	LatencyLowerBound bool     `json:"latency_lower_bound,omitempty"`
	MeanUs            float64  `json:"mean_us"`
	P50Us             float64  `json:"p50_us"`
	P90Us             float64  `json:"p90_us"`
	P99Us             float64  `json:"p99_us"`
	P999Us            float64  `json:"p999_us"`
	P9999Us           float64  `json:"p9999_us"`
	MaxUs             float64  `json:"max_us"`
	Buckets           []Bucket `json:"buckets"`
	// Service is the service time's percentiles (from the actual send) of an open-loop stream;
	// the figures above are response times (from the intended start). Absent in a closed loop.
	Service *Latency `json:"service,omitempty"`
}

// Latency is a latency distribution's figures, in microseconds.
type Latency struct {
	MeanUs  float64 `json:"mean_us"`
	P50Us   float64 `json:"p50_us"`
	P90Us   float64 `json:"p90_us"`
	P99Us   float64 `json:"p99_us"`
	P999Us  float64 `json:"p999_us"`
	P9999Us float64 `json:"p9999_us"`
	MaxUs   float64 `json:"max_us"`
}

// latencyOf computes a histogram's figures.
func latencyOf(h *hdr.PackedHistogram) Latency {
	p := h.ValueAtPercentilesSlice([]float64{50, 90, 99, 99.9, 99.99})
	return Latency{MeanUs: Round(h.Mean()/1e3, 3), P50Us: Round(Micros(p[0]), 3), P90Us: Round(Micros(p[1]), 3),
		P99Us: Round(Micros(p[2]), 3), P999Us: Round(Micros(p[3]), 3), P9999Us: Round(Micros(p[4]), 3), MaxUs: Round(Micros(h.Max()), 3)}
}

// Summarize computes the figures of one op type over seconds of wall time.
func Summarize(o *OpInterval, seconds float64) OpSummary {
	h := o.Hist
	s := OpSummary{Count: o.Units, Statements: o.Statements, Errors: o.Errors}
	if len(o.ErrorKinds) > 0 {
		s.ErrorKinds = sortErrors(o.ErrorKinds)
	}
	s.NotStarted, s.LatencyLowerBound = o.NotStarted, o.NotStarted > 0
	if seconds > 0 {
		s.PerSec = Round(float64(o.Units)/seconds, 3)
	}
	if h.TotalCount() > 0 {
		l := latencyOf(h)
		s.MeanUs, s.P50Us, s.P90Us, s.P99Us, s.P999Us, s.P9999Us, s.MaxUs = l.MeanUs, l.P50Us, l.P90Us, l.P99Us, l.P999Us, l.P9999Us, l.MaxUs
	}
	if o.Service != nil && o.Service.TotalCount() > 0 {
		l := latencyOf(o.Service)
		s.Service = &l
	}
	s.Buckets = ReferenceBuckets(h)
	return s
}

// ReferenceBuckets counts the histogram's values into the Insert Benchmark's buckets.
// A histogram bar is attributed by its lowest equivalent value, which is within the
// histogram's 0.1% precision of every value in it.
func ReferenceBuckets(h *hdr.PackedHistogram) []Bucket {
	out := make([]Bucket, len(referenceBuckets))
	for i, b := range referenceBuckets {
		out[i].UpTo = b.name
	}
	for from, count := range h.ForEachBucket { // each bar's lowest equivalent value
		i := 0
		for from > referenceBuckets[i].ns {
			i++
		}
		out[i].Count += count
	}
	return out
}

// Round rounds v to digits decimals: the one rounding rule of every figure dbperf writes.
func Round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// Percentile is the p-th percentile of values by the nearest-rank rule (the smallest value with
// at least p% of values at or below it): the one rule for percentiles of per-second figures
// (HDR histograms have their own). values is not modified; 0 when empty.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	i := int(math.Ceil(p/100*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

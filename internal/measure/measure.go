// Package measure records operation latencies into HDR histograms, one set per worker goroutine,
// and merges them once a second into interval rows and a cumulative copy per step.
//
// Latencies are recorded in nanoseconds (so a no-op target still shows sub-microsecond values) and
// reported in microseconds.
package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Op is an operation type. Each has its own histogram, rate and error count.
type Op int

// The operation types. Units differ by type: insert and delete count rows, query counts queries,
// index counts rows indexed, settle counts tables settled.
const (
	Insert Op = iota
	Delete
	Query
	Index
	Settle
	NumOps
)

var opNames = [NumOps]string{"insert", "delete", "query", "index", "settle"}

func (o Op) String() string { return opNames[o] }

// Histogram bounds: 1 ns to 1 hour with 3 significant digits. Longer latencies are clamped to
// one hour and counted in the "more" bucket.
const (
	lowestNs  = 1
	highestNs = int64(time.Hour)
	sigDigits = 3
)

// NewHistogram returns an empty latency histogram with the bounds every part of dbperf uses, so
// any two can be merged.
func NewHistogram() *hdr.Histogram { return hdr.New(lowestNs, highestNs, sigDigits) }

// Recorder is one worker's recording point. Record is called from the worker's goroutine; Drain
// from the ticker. A mutex per worker keeps both cheap: it is only contended once a second.
type Recorder struct {
	mu  sync.Mutex
	ops [NumOps]*OpInterval
}

// NewRecorder returns a recorder for the given op types.
func NewRecorder(ops ...Op) *Recorder {
	r := &Recorder{}
	for _, o := range ops {
		r.ops[o] = &OpInterval{Hist: NewHistogram()}
	}
	return r
}

// Record adds one timed operation that did units of work.
func (r *Recorder) Record(op Op, latency time.Duration, units int64) {
	v := int64(latency)
	if v < lowestNs {
		v = lowestNs
	} else if v > highestNs {
		v = highestNs
	}
	r.mu.Lock()
	c := r.ops[op]
	c.Hist.RecordValue(v) // cannot fail: v is within bounds
	c.Units += units
	c.Statements++
	r.mu.Unlock()
}

// Error counts one failed attempt of op.
func (r *Recorder) Error(op Op) {
	r.mu.Lock()
	r.ops[op].Errors++
	r.mu.Unlock()
}

// Drain adds this recorder's interval counters into iv and resets them.
func (r *Recorder) Drain(iv *Interval) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for o, c := range r.ops {
		if c == nil {
			continue
		}
		iv.op(Op(o)).add(c)
		c.Hist.Reset()
		c.Units, c.Statements, c.Errors = 0, 0, 0
	}
}

// OpInterval is what one op type did during one interval (or a whole step, when cumulative).
type OpInterval struct {
	Hist       *hdr.Histogram
	Units      int64 // rows or queries done
	Statements int64 // operations timed
	Errors     int64 // failed attempts (each retried or fatal)
}

// add merges other's counters into a.
func (a *OpInterval) add(other *OpInterval) {
	a.Hist.Merge(other.Hist)
	a.Units += other.Units
	a.Statements += other.Statements
	a.Errors += other.Errors
}

// Interval holds the merged counters of all workers for one period.
type Interval struct {
	Start, End time.Time
	Ops        [NumOps]*OpInterval // nil where the op type did nothing and is not expected
}

// NewInterval returns an empty interval that already has rows for the expected op types, so that
// a second in which an op type did nothing still shows it as zero.
func NewInterval(ops []Op) *Interval {
	iv := &Interval{}
	for _, o := range ops {
		iv.op(o)
	}
	return iv
}

func (iv *Interval) op(o Op) *OpInterval {
	if iv.Ops[o] == nil {
		iv.Ops[o] = &OpInterval{Hist: NewHistogram()}
	}
	return iv.Ops[o]
}

// Add merges other into iv (used to keep a step's cumulative copy).
func (iv *Interval) Add(other *Interval) {
	if iv.Start.IsZero() || (!other.Start.IsZero() && other.Start.Before(iv.Start)) {
		iv.Start = other.Start
	}
	if other.End.After(iv.End) {
		iv.End = other.End
	}
	for o, src := range other.Ops {
		if src == nil {
			continue
		}
		iv.op(Op(o)).add(src)
	}
}

// Seconds is the interval's length.
func (iv *Interval) Seconds() float64 { return iv.End.Sub(iv.Start).Seconds() }

// PerSec is units per second over the interval (0 for an empty interval).
func (iv *Interval) PerSec(o Op) float64 {
	s := iv.Seconds()
	if iv.Ops[o] == nil || s <= 0 {
		return 0
	}
	return float64(iv.Ops[o].Units) / s
}

// Micros converts a histogram value (ns) to microseconds.
func Micros(ns int64) float64 { return float64(ns) / 1e3 }

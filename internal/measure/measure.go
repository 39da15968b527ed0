// Package measure records operation latencies into HDR histograms, one set per worker goroutine,
// and merges them once a second into interval rows and a cumulative copy per step.
//
// Operation types are not a fixed list: each step declares its own (OpType), and an Op is an
// index into that declaration, so recording stays an array access while any workload can name
// its operations.
//
// Latencies are recorded in nanoseconds (so a no-op target still shows sub-microsecond values) and
// reported in microseconds.
package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// OpType is an operation type as a workload declares it.
type OpType struct {
	Name string `json:"name"` // e.g. "insert", "get_link"; a column and file prefix
	// Unit is what Units count: "rows", "queries", "operations" ...
	Unit string `json:"unit"`
	// Abbrev is the short form the live line uses (i for insert: i_ips, max_i); Name if empty.
	Abbrev string `json:"abbrev,omitempty"`
}

// Short is the op type's abbreviation.
func (t OpType) Short() string {
	if t.Abbrev != "" {
		return t.Abbrev
	}
	return t.Name
}

// Op is an operation type by its index in the step's declared list.
type Op int

// Histogram bounds: 1 ns to 1 hour with 3 significant digits. Longer latencies are clamped to
// one hour and counted in the "more" bucket.
const (
	lowestNs  = 1
	highestNs = int64(time.Hour)
	sigDigits = 3
)

// NewHistogram returns an empty dense latency histogram with the bounds every part of dbperf
// uses, so any two can be merged. Dense histograms are for recording: a value is one array
// increment. Everything downstream of a Recorder holds packed ones (NewPacked).
func NewHistogram() *hdr.Histogram { return hdr.New(lowestNs, highestNs, sigDigits) }

// NewPacked returns an empty packed latency histogram with NewHistogram's bounds.
//
// Intervals and step totals are packed (sparse): every second each op type's histogram is
// merged twice, its maximum read by the live line, the archive and the log writer, and it is
// encoded for the interval log. On a dense histogram each of those walks every bucket up to
// the second's largest value; on a packed one they cost in proportion to the buckets in use,
// and Max is one lookup (BenchmarkSecond; docs/performance.md, "The ticker").
func NewPacked() *hdr.PackedHistogram { return hdr.NewPacked(lowestNs, highestNs, sigDigits) }

// Recorder is one worker's recording point. Record is called from the worker's goroutine, Drain
// from the ticker's. Drain swaps the worker's counters for an empty set under the lock and merges
// them outside it, so Record waits at most for a pointer swap, never for a merge. Histograms are
// allocated when an op type is first recorded and then reused, so a worker that issues few of
// its workload's op types costs little memory and no second allocates.
type Recorder struct {
	mu     sync.Mutex
	active []counts // written by Record
	spare  []counts // merged by Drain, then reset; swapped with active once an interval
	done   []int64  // statements per op type over every Drain so far; the drainer's alone
}

// counts is what one worker recorded of one op type since the last Drain, in dense histograms.
type counts struct {
	hist, service             *hdr.Histogram // nil until the op type's first record
	units, statements, errors int64
	kinds                     []ErrorCount // errors by kind; reused
}

// NewRecorder returns a recorder for a step of n op types.
func NewRecorder(n int) *Recorder {
	return &Recorder{active: make([]counts, n), spare: make([]counts, n), done: make([]int64, n)}
}

// Done is the statements of each op type drained so far (indexed by Op): what a worker
// finished, for the runner's account of an open-loop stream. Call it from the drainer only.
func (r *Recorder) Done() []int64 { return r.done }

// clamp keeps a latency within the histogram's bounds.
func clamp(latency time.Duration) int64 {
	return min(max(int64(latency), lowestNs), highestNs)
}

// Record adds one timed operation that did units of work.
func (r *Recorder) Record(op Op, latency time.Duration, units int64) {
	v := clamp(latency)
	r.mu.Lock()
	c := &r.active[op]
	if c.hist == nil {
		c.hist = NewHistogram()
	}
	c.hist.RecordValue(v) // cannot fail: v is within bounds
	c.units += units
	c.statements++
	r.mu.Unlock()
}

// RecordService adds the service time of one open-loop operation: from when it was sent, where
// Record's latency counts from when it was due.
func (r *Recorder) RecordService(op Op, service time.Duration) {
	v := clamp(service)
	r.mu.Lock()
	c := &r.active[op]
	if c.service == nil {
		c.service = NewHistogram()
	}
	c.service.RecordValue(v)
	r.mu.Unlock()
}

// Error counts one failed attempt of op, of a kind (KindOther if empty), with its message. It
// is called only on failure: the message is cut to MaxErrorMessage only when it is the kind's
// first since the last Drain.
func (r *Recorder) Error(op Op, kind, msg string) {
	r.mu.Lock()
	c := &r.active[op]
	c.errors++
	first := ""
	if !hasKind(c.kinds, kind) {
		first = shorten(msg, MaxErrorMessage)
	}
	c.kinds = addError(c.kinds, kind, 1, first)
	r.mu.Unlock()
}

// hasKind tells whether kinds counts kind already.
func hasKind(kinds []ErrorCount, kind string) bool {
	if kind == "" {
		kind = KindOther
	}
	for _, k := range kinds {
		if k.Kind == kind {
			return true
		}
	}
	return false
}

// mergeHook, when set by a test, runs while Drain merges, outside the lock.
var mergeHook func()

// Drain adds this recorder's counters since the last Drain into iv and resets them. Only one
// goroutine may drain a recorder.
func (r *Recorder) Drain(iv *Interval) {
	r.mu.Lock()
	r.active, r.spare = r.spare, r.active
	r.mu.Unlock()
	if mergeHook != nil {
		mergeHook()
	}
	for o := range r.spare {
		c := &r.spare[o]
		if c.hist == nil && c.errors == 0 {
			continue
		}
		a := &iv.Ops[o]
		if c.hist != nil {
			a.Hist.MergeFrom(c.hist) // one pass over the dense counts, no walk of values
			c.hist.Reset()
		}
		if c.service != nil {
			if a.Service == nil {
				a.Service = NewPacked()
			}
			a.Service.MergeFrom(c.service)
			c.service.Reset()
		}
		a.Units += c.units
		a.Statements += c.statements
		r.done[o] += c.statements
		a.Errors += c.errors
		for _, k := range c.kinds {
			a.ErrorKinds = addError(a.ErrorKinds, k.Kind, k.Count, k.First)
		}
		c.units, c.statements, c.errors, c.kinds = 0, 0, 0, c.kinds[:0]
	}
}

// OpInterval is what one op type did during one interval (or a whole step, when cumulative).
type OpInterval struct {
	Hist *hdr.PackedHistogram // response time: from the intended start
	// Service is the service time of open-loop operations (from the actual send), nil where
	// none was recorded: in a closed loop the two are the same.
	Service    *hdr.PackedHistogram
	Units      int64 // rows or queries done
	Statements int64 // operations timed
	Errors     int64 // failed attempts (each retried or fatal)
	// ErrorKinds splits Errors by kind (connection lost, deadlock, ...), with each kind's first
	// message, in the order first seen.
	ErrorKinds []ErrorCount
	// NotStarted counts open-loop arrivals still waiting when their schedule ended; Hist holds
	// their waits as lower bounds, and Waits (nil if none) holds them again, alone.
	NotStarted int64
	Waits      *hdr.PackedHistogram
}

// add merges other's counters into a.
func (a *OpInterval) add(other *OpInterval) {
	if other.Hist != nil {
		a.Hist.Merge(other.Hist)
	}
	if other.Service != nil {
		if a.Service == nil {
			a.Service = NewPacked()
		}
		a.Service.Merge(other.Service)
	}
	if other.Waits != nil {
		if a.Waits == nil {
			a.Waits = NewPacked()
		}
		a.Waits.Merge(other.Waits)
	}
	a.NotStarted += other.NotStarted
	a.Units += other.Units
	a.Statements += other.Statements
	a.Errors += other.Errors
	for _, k := range other.ErrorKinds {
		a.ErrorKinds = addError(a.ErrorKinds, k.Kind, k.Count, k.First)
	}
}

// Interval holds the merged counters of all workers for one period, one entry per declared op
// type (idle ones are zero).
type Interval struct {
	Start, End time.Time
	Ops        []OpInterval
	// Arrivals counts open-loop arrivals that came due; Dropped those of them that could not
	// start because the backlog was full; Backlog is the number of arrivals due and not yet
	// started at the interval's end; LagMax the latest an arrival was handed out after it was
	// due (the client's own scheduling delay).
	Arrivals, Dropped, Backlog int64
	LagMax                     time.Duration
}

// NewInterval returns an empty interval for a step of n op types.
func NewInterval(n int) *Interval {
	iv := &Interval{Ops: make([]OpInterval, n)}
	for i := range iv.Ops {
		iv.Ops[i].Hist = NewPacked()
	}
	return iv
}

// Reset empties the interval for reuse: the runner keeps one interval for the whole step.
func (iv *Interval) Reset() {
	iv.Start, iv.End = time.Time{}, time.Time{}
	iv.Arrivals, iv.Dropped, iv.Backlog, iv.LagMax = 0, 0, 0, 0
	for i := range iv.Ops {
		o := &iv.Ops[i]
		o.Hist.Reset()
		if o.Service != nil {
			o.Service.Reset()
		}
		if o.Waits != nil {
			o.Waits.Reset()
		}
		o.NotStarted = 0
		o.Units, o.Statements, o.Errors, o.ErrorKinds = 0, 0, 0, o.ErrorKinds[:0]
	}
}

// Add merges other into iv (used to keep a step's cumulative copy).
func (iv *Interval) Add(other *Interval) {
	if iv.Start.IsZero() || (!other.Start.IsZero() && other.Start.Before(iv.Start)) {
		iv.Start = other.Start
	}
	if other.End.After(iv.End) {
		iv.End = other.End
		iv.Backlog = other.Backlog
	}
	iv.Dropped += other.Dropped
	iv.Arrivals += other.Arrivals
	iv.LagMax = max(iv.LagMax, other.LagMax)
	for o := range other.Ops {
		iv.Ops[o].add(&other.Ops[o])
	}
}

// Seconds is the interval's length.
func (iv *Interval) Seconds() float64 { return iv.End.Sub(iv.Start).Seconds() }

// PerSec is units per second over the interval (0 for an empty interval).
func (iv *Interval) PerSec(o Op) float64 {
	s := iv.Seconds()
	if s <= 0 {
		return 0
	}
	return float64(iv.Ops[o].Units) / s
}

// MaxLatency is the worst latency of any op type in the interval.
func (iv *Interval) MaxLatency() time.Duration {
	var worst int64
	for i := range iv.Ops {
		worst = max(worst, iv.Ops[i].Hist.Max())
	}
	return time.Duration(worst)
}

// Micros converts a histogram value (ns) to microseconds.
func Micros(ns int64) float64 { return float64(ns) / 1e3 }

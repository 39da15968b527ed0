package measure_test

import (
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// The op types of these tests' steps, as indexes of a declared list.
const (
	opInsert measure.Op = iota
	opDelete
	opQuery
)

// nOps is how many op types these tests' steps declare.
const nOps = 3

// t0 is an arbitrary fixed instant for intervals' bounds.
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func TestDrain(t *testing.T) {
	// Two workers' recorders: the first expects inserts and deletes, the second inserts and
	// queries.
	r1 := measure.NewRecorder(nOps)
	r2 := measure.NewRecorder(nOps)
	for _, d := range []time.Duration{1 * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond} {
		r1.Record(opInsert, d, 10)
	}
	r1.Error(opInsert, "deadlock", "deadlock detected")
	r2.Record(opInsert, 4*time.Millisecond, 5)
	r2.Record(opInsert, 5*time.Millisecond, 5)
	r2.Record(opQuery, 7*time.Microsecond, 1)
	r2.Error(opQuery, "", "boom")
	r2.Error(opQuery, "", "boom")

	iv := measure.NewInterval(nOps)
	r1.Drain(iv)
	r2.Drain(iv)

	for _, tt := range []struct {
		name                      string
		op                        measure.Op
		present                   bool
		units, statements, errors int64
		min, max                  time.Duration
	}{
		{"inserts of both recorders add up", opInsert, true, 40, 5, 1, 1 * time.Millisecond, 5 * time.Millisecond},
		{"deletes the first recorder expects show as zero though idle", opDelete, true, 0, 0, 0, 0, 0},
		{"queries come from the second recorder alone", opQuery, true, 1, 1, 2, 7 * time.Microsecond, 7 * time.Microsecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &iv.Ops[tt.op]
			if a.Units != tt.units || a.Statements != tt.statements || a.Errors != tt.errors {
				t.Errorf("units, statements, errors = %d, %d, %d; want %d, %d, %d",
					a.Units, a.Statements, a.Errors, tt.units, tt.statements, tt.errors)
			}
			if got := a.Hist.TotalCount(); got != tt.statements {
				t.Errorf("histogram count = %d, want %d", got, tt.statements)
			}
			if tt.statements > 0 {
				geometry := measure.NewHistogram() // the packed histogram's bucket geometry
				if !geometry.ValuesAreEquivalent(a.Hist.Min(), int64(tt.min)) {
					t.Errorf("min = %d, want ~%d", a.Hist.Min(), tt.min)
				}
				if !geometry.ValuesAreEquivalent(a.Hist.Max(), int64(tt.max)) {
					t.Errorf("max = %d, want ~%d", a.Hist.Max(), tt.max)
				}
			}
		})
	}

	t.Run("a second drain adds nothing: the recorders were reset", func(t *testing.T) {
		again := measure.NewInterval(nOps)
		r1.Drain(again)
		r2.Drain(again)
		for _, o := range []measure.Op{opInsert, opDelete, opQuery} {
			a := &again.Ops[o]
			if a.Units != 0 || a.Statements != 0 || a.Errors != 0 || a.Hist.TotalCount() != 0 {
				t.Errorf("%v after reset: units %d, statements %d, errors %d, histogram %d; want all 0",
					o, a.Units, a.Statements, a.Errors, a.Hist.TotalCount())
			}
		}
		// Draining the now-empty recorders into the first interval leaves it as it was.
		r1.Drain(iv)
		r2.Drain(iv)
		if a := iv.Ops[opInsert]; a.Units != 40 || a.Statements != 5 || a.Errors != 1 || a.Hist.TotalCount() != 5 {
			t.Errorf("insert after a second drain: %d units, %d statements, %d errors, %d values; want 40, 5, 1, 5",
				a.Units, a.Statements, a.Errors, a.Hist.TotalCount())
		}
	})

	t.Run("a recorder keeps recording after a drain", func(t *testing.T) {
		r1.Record(opDelete, time.Second, 3)
		next := measure.NewInterval(nOps)
		r1.Drain(next)
		if a := next.Ops[opDelete]; a.Units != 3 || a.Statements != 1 || a.Hist.TotalCount() != 1 {
			t.Errorf("delete: %d units, %d statements, %d values; want 3, 1, 1", a.Units, a.Statements, a.Hist.TotalCount())
		}
	})
}

func TestRecordClampsLatency(t *testing.T) {
	for _, tt := range []struct {
		name    string
		latency time.Duration
		want    int64 // ns, as recorded
	}{
		{"a zero latency (a clock that did not move) is recorded as 1ns", 0, 1},
		{"a negative latency (a clock that went back) is recorded as 1ns", -5 * time.Second, 1},
		{"1ns is recorded as is", 1, 1},
		{"999ns is recorded exactly", 999, 999},
		{"1h is recorded as is", time.Hour, int64(time.Hour)},
		{"1h and 1ns is clamped to 1h", time.Hour + 1, int64(time.Hour)},
		{"a day is clamped to 1h", 24 * time.Hour, int64(time.Hour)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := measure.NewRecorder(nOps)
			r.Record(opInsert, tt.latency, 1)
			iv := measure.NewInterval(nOps)
			r.Drain(iv)
			want := measure.NewPacked()
			if err := want.RecordValue(tt.want); err != nil {
				t.Fatal(err)
			}
			got := iv.Ops[opInsert].Hist
			if g, w := encode(t, got), encode(t, want); g != w {
				t.Errorf("histogram of Record(%v) has min %d, max %d, count %d; want the histogram of a single %dns",
					tt.latency, got.Min(), got.Max(), got.TotalCount(), tt.want)
			}
			if iv.Ops[opInsert].Statements != 1 {
				t.Errorf("statements = %d, want 1", iv.Ops[opInsert].Statements)
			}
		})
	}
}

// interval returns an interval over [start, end) with one op row.
func interval(start, end time.Time, o measure.Op, units, statements, errors int64, latencies ...time.Duration) *measure.Interval {
	iv := measure.NewInterval(nOps)
	iv.Start, iv.End = start, end
	a := &iv.Ops[o]
	a.Units, a.Statements, a.Errors = units, statements, errors
	for _, l := range latencies {
		if err := a.Hist.RecordValue(int64(l)); err != nil {
			panic(err)
		}
	}
	return iv
}

func TestIntervalAddBounds(t *testing.T) {
	var zero time.Time
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, tt := range []struct {
		name               string
		start, end         time.Time // iv's
		oStart, oEnd       time.Time // other's
		wantStart, wantEnd time.Time
	}{
		{"an empty total takes the other's bounds", zero, zero, at(1), at(2), at(1), at(2)},
		{"an earlier start widens the start", at(5), at(6), at(3), at(6), at(3), at(6)},
		{"a later start keeps the earlier one", at(5), at(6), at(5).Add(time.Nanosecond), at(6), at(5), at(6)},
		{"a later end widens the end", at(5), at(6), at(5), at(9), at(5), at(9)},
		{"an earlier end keeps the later one", at(5), at(6), at(5), at(5), at(5), at(6)},
		{"an interval inside the total changes nothing", at(1), at(9), at(3), at(4), at(1), at(9)},
		{"an interval around the total widens both ends", at(3), at(4), at(1), at(9), at(1), at(9)},
		{"an other without bounds changes nothing", at(3), at(4), zero, zero, at(3), at(4)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			iv := measure.NewInterval(nOps)
			iv.Start, iv.End = tt.start, tt.end
			other := measure.NewInterval(nOps)
			other.Start, other.End = tt.oStart, tt.oEnd
			iv.Add(other)
			if !iv.Start.Equal(tt.wantStart) || !iv.End.Equal(tt.wantEnd) {
				t.Errorf("bounds = [%v, %v], want [%v, %v]", iv.Start, iv.End, tt.wantStart, tt.wantEnd)
			}
		})
	}
}

func TestIntervalAddMerges(t *testing.T) {
	total := measure.NewInterval(nOps)
	first := interval(t0, t0.Add(time.Second), opInsert, 100, 10, 1, time.Millisecond, 2*time.Millisecond)
	second := interval(t0.Add(time.Second), t0.Add(2*time.Second), opInsert, 50, 5, 0, 30*time.Millisecond)
	second.Ops[opQuery] = measure.OpInterval{Hist: measure.NewPacked(), Units: 7, Statements: 7, Errors: 2}
	total.Add(first)
	total.Add(second)

	for _, tt := range []struct {
		name                              string
		op                                measure.Op
		units, statements, errors, values int64
	}{
		{"inserts of both intervals add up", opInsert, 150, 15, 1, 3},
		{"queries, only in the second interval, are added as a new row", opQuery, 7, 7, 2, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &total.Ops[tt.op]
			if a.Units != tt.units || a.Statements != tt.statements || a.Errors != tt.errors || a.Hist.TotalCount() != tt.values {
				t.Errorf("units, statements, errors, values = %d, %d, %d, %d; want %d, %d, %d, %d",
					a.Units, a.Statements, a.Errors, a.Hist.TotalCount(), tt.units, tt.statements, tt.errors, tt.values)
			}
		})
	}
	if a := total.Ops[opDelete]; a.Units != 0 || a.Hist.TotalCount() != 0 {
		t.Errorf("Ops[delete] = %+v, want zero: neither interval had deletes", a)
	}
	if h := total.Ops[opInsert].Hist; !measure.NewHistogram().ValuesAreEquivalent(h.Max(), int64(30*time.Millisecond)) {
		t.Errorf("insert max = %d, want ~30ms", h.Max())
	}
	if !total.Start.Equal(t0) || !total.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("bounds = [%v, %v], want [%v, %v]", total.Start, total.End, t0, t0.Add(2*time.Second))
	}
	// The sources are not changed by being added.
	if a := first.Ops[opInsert]; a.Units != 100 || a.Hist.TotalCount() != 2 {
		t.Errorf("first interval changed: %d units, %d values", a.Units, a.Hist.TotalCount())
	}
}

func TestPerSec(t *testing.T) {
	for _, tt := range []struct {
		name       string
		start, end time.Time
		op         measure.Op
		want       float64
	}{
		{"1000 rows over 2s is 500/s", t0, t0.Add(2 * time.Second), opInsert, 500},
		{"1000 rows over 250ms is 4000/s", t0, t0.Add(250 * time.Millisecond), opInsert, 4000},
		{"1000 rows over 3s is 333.33/s", t0, t0.Add(3 * time.Second), opInsert, 1000.0 / 3},
		{"an interval of no length is 0/s, not +Inf", t0, t0, opInsert, 0},
		{"an interval that ends before it starts is 0/s", t0.Add(time.Second), t0, opInsert, 0},
		{"an op type that did nothing is 0/s", t0, t0.Add(2 * time.Second), opDelete, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			iv := interval(tt.start, tt.end, opInsert, 1000, 10, 0)
			if got := iv.PerSec(tt.op); got != tt.want {
				t.Errorf("PerSec(%v) = %v, want %v", tt.op, got, tt.want)
			}
		})
	}
}

func TestOpTypeShort(t *testing.T) {
	if got := (measure.OpType{Name: "insert", Abbrev: "i"}).Short(); got != "i" {
		t.Errorf("Short() = %q, want the abbreviation i", got)
	}
	if got := (measure.OpType{Name: "get_link"}).Short(); got != "get_link" {
		t.Errorf("Short() without an abbreviation = %q, want the name", got)
	}
}

// TestRecordNotBlockedByMerge: while Drain merges a worker's counters, the worker records on:
// the merge runs outside the lock. The hook blocks the merge until a Record has returned; were
// the merge under the lock, the Record would wait for it and the test would deadlock.
func TestRecordNotBlockedByMerge(t *testing.T) {
	r := measure.NewRecorder(nOps)
	r.Record(opInsert, time.Millisecond, 1)
	recorded := make(chan struct{})
	measure.SetMergeHook(func() {
		go func() { r.Record(opInsert, 2*time.Millisecond, 1); close(recorded) }()
		select {
		case <-recorded:
		case <-time.After(time.Minute):
			t.Error("Record blocked for a minute while Drain merged")
		}
	})
	defer measure.SetMergeHook(nil)
	iv := measure.NewInterval(nOps)
	r.Drain(iv)
	if iv.Ops[opInsert].Statements != 1 {
		t.Errorf("first drain: %d statements, want the 1 recorded before it", iv.Ops[opInsert].Statements)
	}
	measure.SetMergeHook(nil)
	next := measure.NewInterval(nOps)
	r.Drain(next)
	if next.Ops[opInsert].Statements != 1 {
		t.Errorf("second drain: %d statements, want the 1 recorded during the first merge", next.Ops[opInsert].Statements)
	}
}

// TestDrainAllocatesNothing: once every op type has been recorded, a second of recording and
// draining allocates nothing: no new histogram per op type per second.
func TestDrainAllocatesNothing(t *testing.T) {
	r := measure.NewRecorder(nOps)
	iv := measure.NewInterval(nOps)
	for o := range nOps {
		r.Record(measure.Op(o), time.Millisecond, 1)
	}
	r.Drain(iv)
	allocs := testing.AllocsPerRun(100, func() {
		iv.Reset()
		for o := range nOps {
			r.Record(measure.Op(o), time.Millisecond, 1)
		}
		r.Drain(iv)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per second of recording and draining, want 0", allocs)
	}
}

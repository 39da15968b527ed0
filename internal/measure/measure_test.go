package measure_test

import (
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// t0 is an arbitrary fixed instant for intervals' bounds.
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func TestDrain(t *testing.T) {
	// Two workers' recorders: the first expects inserts and deletes, the second inserts and
	// queries.
	r1 := measure.NewRecorder(measure.Insert, measure.Delete)
	r2 := measure.NewRecorder(measure.Insert, measure.Query)
	for _, d := range []time.Duration{1 * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond} {
		r1.Record(measure.Insert, d, 10)
	}
	r1.Error(measure.Insert)
	r2.Record(measure.Insert, 4*time.Millisecond, 5)
	r2.Record(measure.Insert, 5*time.Millisecond, 5)
	r2.Record(measure.Query, 7*time.Microsecond, 1)
	r2.Error(measure.Query)
	r2.Error(measure.Query)

	iv := measure.NewInterval([]measure.Op{measure.Insert})
	r1.Drain(iv)
	r2.Drain(iv)

	for _, tt := range []struct {
		name                      string
		op                        measure.Op
		present                   bool
		units, statements, errors int64
		min, max                  time.Duration
	}{
		{"inserts of both recorders add up", measure.Insert, true, 40, 5, 1, 1 * time.Millisecond, 5 * time.Millisecond},
		{"deletes the first recorder expects show as zero though idle", measure.Delete, true, 0, 0, 0, 0, 0},
		{"queries come from the second recorder alone", measure.Query, true, 1, 1, 2, 7 * time.Microsecond, 7 * time.Microsecond},
		{"index, which nobody records or expects, is absent", measure.Index, false, 0, 0, 0, 0, 0},
		{"settle, which nobody records or expects, is absent", measure.Settle, false, 0, 0, 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := iv.Ops[tt.op]
			if !tt.present {
				if a != nil {
					t.Fatalf("Ops[%v] = %+v, want nil", tt.op, a)
				}
				return
			}
			if a == nil {
				t.Fatalf("Ops[%v] is nil", tt.op)
			}
			if a.Units != tt.units || a.Statements != tt.statements || a.Errors != tt.errors {
				t.Errorf("units, statements, errors = %d, %d, %d; want %d, %d, %d",
					a.Units, a.Statements, a.Errors, tt.units, tt.statements, tt.errors)
			}
			if got := a.Hist.TotalCount(); got != tt.statements {
				t.Errorf("histogram count = %d, want %d", got, tt.statements)
			}
			if tt.statements > 0 {
				if !a.Hist.ValuesAreEquivalent(a.Hist.Min(), int64(tt.min)) {
					t.Errorf("min = %d, want ~%d", a.Hist.Min(), tt.min)
				}
				if !a.Hist.ValuesAreEquivalent(a.Hist.Max(), int64(tt.max)) {
					t.Errorf("max = %d, want ~%d", a.Hist.Max(), tt.max)
				}
			}
		})
	}

	t.Run("a second drain adds nothing: the recorders were reset", func(t *testing.T) {
		again := measure.NewInterval(nil)
		r1.Drain(again)
		r2.Drain(again)
		for _, o := range []measure.Op{measure.Insert, measure.Delete, measure.Query} {
			a := again.Ops[o]
			if a == nil {
				t.Fatalf("Ops[%v] is nil after draining a recorder that expects it", o)
			}
			if a.Units != 0 || a.Statements != 0 || a.Errors != 0 || a.Hist.TotalCount() != 0 {
				t.Errorf("%v after reset: units %d, statements %d, errors %d, histogram %d; want all 0",
					o, a.Units, a.Statements, a.Errors, a.Hist.TotalCount())
			}
		}
		// Draining the now-empty recorders into the first interval leaves it as it was.
		r1.Drain(iv)
		r2.Drain(iv)
		if a := iv.Ops[measure.Insert]; a.Units != 40 || a.Statements != 5 || a.Errors != 1 || a.Hist.TotalCount() != 5 {
			t.Errorf("insert after a second drain: %d units, %d statements, %d errors, %d values; want 40, 5, 1, 5",
				a.Units, a.Statements, a.Errors, a.Hist.TotalCount())
		}
	})

	t.Run("a recorder keeps recording after a drain", func(t *testing.T) {
		r1.Record(measure.Delete, time.Second, 3)
		next := measure.NewInterval(nil)
		r1.Drain(next)
		if a := next.Ops[measure.Delete]; a.Units != 3 || a.Statements != 1 || a.Hist.TotalCount() != 1 {
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
			r := measure.NewRecorder(measure.Insert)
			r.Record(measure.Insert, tt.latency, 1)
			iv := measure.NewInterval(nil)
			r.Drain(iv)
			want := measure.NewHistogram()
			if err := want.RecordValue(tt.want); err != nil {
				t.Fatal(err)
			}
			got := iv.Ops[measure.Insert].Hist
			if !got.Equals(want) {
				t.Errorf("histogram of Record(%v) has min %d, max %d, count %d; want the histogram of a single %dns",
					tt.latency, got.Min(), got.Max(), got.TotalCount(), tt.want)
			}
			if iv.Ops[measure.Insert].Statements != 1 {
				t.Errorf("statements = %d, want 1", iv.Ops[measure.Insert].Statements)
			}
		})
	}
}

// interval returns an interval over [start, end) with one op row.
func interval(start, end time.Time, o measure.Op, units, statements, errors int64, latencies ...time.Duration) *measure.Interval {
	iv := measure.NewInterval([]measure.Op{o})
	iv.Start, iv.End = start, end
	a := iv.Ops[o]
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
			iv := &measure.Interval{Start: tt.start, End: tt.end}
			iv.Add(&measure.Interval{Start: tt.oStart, End: tt.oEnd})
			if !iv.Start.Equal(tt.wantStart) || !iv.End.Equal(tt.wantEnd) {
				t.Errorf("bounds = [%v, %v], want [%v, %v]", iv.Start, iv.End, tt.wantStart, tt.wantEnd)
			}
		})
	}
}

func TestIntervalAddMerges(t *testing.T) {
	total := measure.NewInterval([]measure.Op{measure.Insert})
	first := interval(t0, t0.Add(time.Second), measure.Insert, 100, 10, 1, time.Millisecond, 2*time.Millisecond)
	second := interval(t0.Add(time.Second), t0.Add(2*time.Second), measure.Insert, 50, 5, 0, 30*time.Millisecond)
	second.Ops[measure.Query] = &measure.OpInterval{Hist: measure.NewHistogram(), Units: 7, Statements: 7, Errors: 2}
	total.Add(first)
	total.Add(second)

	for _, tt := range []struct {
		name                              string
		op                                measure.Op
		units, statements, errors, values int64
	}{
		{"inserts of both intervals add up", measure.Insert, 150, 15, 1, 3},
		{"queries, only in the second interval, are added as a new row", measure.Query, 7, 7, 2, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := total.Ops[tt.op]
			if a == nil {
				t.Fatalf("Ops[%v] is nil", tt.op)
			}
			if a.Units != tt.units || a.Statements != tt.statements || a.Errors != tt.errors || a.Hist.TotalCount() != tt.values {
				t.Errorf("units, statements, errors, values = %d, %d, %d, %d; want %d, %d, %d, %d",
					a.Units, a.Statements, a.Errors, a.Hist.TotalCount(), tt.units, tt.statements, tt.errors, tt.values)
			}
		})
	}
	if total.Ops[measure.Delete] != nil {
		t.Errorf("Ops[delete] = %+v, want nil: neither interval had deletes", total.Ops[measure.Delete])
	}
	if h := total.Ops[measure.Insert].Hist; !h.ValuesAreEquivalent(h.Max(), int64(30*time.Millisecond)) {
		t.Errorf("insert max = %d, want ~30ms", h.Max())
	}
	if !total.Start.Equal(t0) || !total.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("bounds = [%v, %v], want [%v, %v]", total.Start, total.End, t0, t0.Add(2*time.Second))
	}
	// The sources are not changed by being added.
	if a := first.Ops[measure.Insert]; a.Units != 100 || a.Hist.TotalCount() != 2 {
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
		{"1000 rows over 2s is 500/s", t0, t0.Add(2 * time.Second), measure.Insert, 500},
		{"1000 rows over 250ms is 4000/s", t0, t0.Add(250 * time.Millisecond), measure.Insert, 4000},
		{"1000 rows over 3s is 333.33/s", t0, t0.Add(3 * time.Second), measure.Insert, 1000.0 / 3},
		{"an interval of no length is 0/s, not +Inf", t0, t0, measure.Insert, 0},
		{"an interval that ends before it starts is 0/s", t0.Add(time.Second), t0, measure.Insert, 0},
		{"an op type without a row is 0/s", t0, t0.Add(2 * time.Second), measure.Delete, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			iv := interval(tt.start, tt.end, measure.Insert, 1000, 10, 0)
			if got := iv.PerSec(tt.op); got != tt.want {
				t.Errorf("PerSec(%v) = %v, want %v", tt.op, got, tt.want)
			}
		})
	}
}

func TestOpNames(t *testing.T) {
	for _, tt := range []struct {
		op   measure.Op
		name string
	}{
		{measure.Insert, "insert"},
		{measure.Delete, "delete"},
		{measure.Query, "query"},
		{measure.Index, "index"},
		{measure.Settle, "settle"},
	} {
		if got := tt.op.String(); got != tt.name {
			t.Errorf("Op(%d).String() = %q, want %q", int(tt.op), got, tt.name)
		}
	}
}

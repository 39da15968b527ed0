package measure_test

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

var bucketNames = []string{"256us", "1ms", "4ms", "16ms", "64ms", "256ms", "1s", "4s", "16s", "more"}

// recorded returns the op row of an interval into which a recorder with the given latencies was
// drained.
func recorded(latencies ...time.Duration) *measure.OpInterval {
	r := measure.NewRecorder(nOps)
	for _, l := range latencies {
		r.Record(opInsert, l, 1)
	}
	iv := measure.NewInterval(nOps)
	r.Drain(iv)
	return &iv.Ops[opInsert]
}

func TestSummarizeUniform(t *testing.T) {
	// 1000 statements of 2 rows each, taking 1µs, 2µs, ... 1000µs, over 3 seconds.
	r := measure.NewRecorder(nOps)
	for us := 1; us <= 1000; us++ {
		r.Record(opInsert, time.Duration(us)*time.Microsecond, 2)
	}
	for range 4 {
		r.Error(opInsert, "", "failed")
	}
	iv := measure.NewInterval(nOps)
	r.Drain(iv)
	s := measure.Summarize(&iv.Ops[opInsert], 3)

	if s.Count != 2000 || s.Statements != 1000 || s.Errors != 4 {
		t.Errorf("count, statements, errors = %d, %d, %d; want 2000, 1000, 4", s.Count, s.Statements, s.Errors)
	}
	if s.PerSec != 666.667 {
		t.Errorf("per sec = %v, want 666.667 (2000 rows / 3s, rounded to 3 decimals)", s.PerSec)
	}
	for _, tt := range []struct {
		name string
		got  float64
		want float64 // µs
	}{
		{"the mean is 500.5µs", s.MeanUs, 500.5},
		{"p50 is 500µs", s.P50Us, 500},
		{"p90 is 900µs", s.P90Us, 900},
		{"p99 is 990µs", s.P99Us, 990},
		{"p99.9 is 999µs", s.P999Us, 999},
		{"p99.99 is the largest, 1000µs", s.P9999Us, 1000},
		{"the max is 1000µs", s.MaxUs, 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// HDR with 3 significant digits: within 0.1%.
			if math.Abs(tt.got-tt.want) > tt.want*0.001 {
				t.Errorf("got %vµs, want %vµs ± 0.1%%", tt.got, tt.want)
			}
			// Figures are rounded to the nanosecond.
			if ns := tt.got * 1000; math.Abs(ns-math.Round(ns)) > 1e-6 {
				t.Errorf("%vµs is not rounded to 3 decimals", tt.got)
			}
		})
	}
	t.Run("percentiles are reported as the top of their bar, never below the true value", func(t *testing.T) {
		for _, p := range []struct{ got, want float64 }{{s.P50Us, 500}, {s.P90Us, 900}, {s.P99Us, 990}, {s.MaxUs, 1000}} {
			if p.got < p.want {
				t.Errorf("got %vµs < %vµs", p.got, p.want)
			}
		}
	})
	t.Run("1µs to 256µs are in the 256us bucket, 257µs to 1000µs in the 1ms one", func(t *testing.T) {
		want := make([]int64, len(bucketNames))
		want[0], want[1] = 256, 744
		if got := counts(s.Buckets); !slices.Equal(got, want) {
			t.Errorf("bucket counts = %v, want %v", got, want)
		}
	})
}

func TestSummarizeEmpty(t *testing.T) {
	a := &measure.OpInterval{Hist: measure.NewPacked(), Errors: 3}
	for _, tt := range []struct {
		name    string
		seconds float64
	}{
		{"an op type that did nothing for 10s has zero figures", 10},
		{"an op type that did nothing in no time has zero figures, not NaN", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := measure.Summarize(a, tt.seconds)
			if want := (measure.OpSummary{Errors: 3, Buckets: s.Buckets}); !reflect.DeepEqual(s, want) {
				t.Errorf("Summarize = %+v, want %+v", s, want)
			}
			if got := names(s.Buckets); !slices.Equal(got, bucketNames) {
				t.Errorf("bucket names = %v, want %v", got, bucketNames)
			}
			if got := counts(s.Buckets); !slices.Equal(got, make([]int64, len(bucketNames))) {
				t.Errorf("bucket counts = %v, want all 0", got)
			}
		})
	}
}

func TestReferenceBuckets(t *testing.T) {
	for _, tt := range []struct {
		name    string
		latency time.Duration
		bucket  string
	}{
		{"1ns is in 256us", time.Nanosecond, "256us"},
		{"100µs is in 256us", 100 * time.Microsecond, "256us"},
		{"256µs exactly is in 256us", 256 * time.Microsecond, "256us"},
		{"256.1µs shares 256µs's bar (within 0.1%), so is in 256us", 256100 * time.Nanosecond, "256us"},
		{"257µs is in 1ms", 257 * time.Microsecond, "1ms"},
		{"300µs is in 1ms", 300 * time.Microsecond, "1ms"},
		{"1ms exactly is in 1ms", time.Millisecond, "1ms"},
		{"1.1ms is in 4ms", 1100 * time.Microsecond, "4ms"},
		{"4ms exactly is in 4ms", 4 * time.Millisecond, "4ms"},
		{"4.002ms is past 4ms's bar, so in 16ms", 4002 * time.Microsecond, "16ms"},
		{"50ms is in 64ms", 50 * time.Millisecond, "64ms"},
		{"100ms is in 256ms", 100 * time.Millisecond, "256ms"},
		{"1s exactly is in 1s", time.Second, "1s"},
		{"2s is in 4s", 2 * time.Second, "4s"},
		{"16s exactly is in 16s", 16 * time.Second, "16s"},
		{"20s is in more", 20 * time.Second, "more"},
		{"2h, clamped to 1h, is in more", 2 * time.Hour, "more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := measure.ReferenceBuckets(recorded(tt.latency).Hist)
			if n := names(got); !slices.Equal(n, bucketNames) {
				t.Fatalf("bucket names = %v, want %v", n, bucketNames)
			}
			want := make([]int64, len(bucketNames))
			want[slices.Index(bucketNames, tt.bucket)] = 1
			if c := counts(got); !slices.Equal(c, want) {
				t.Errorf("bucket counts = %v, want %v (one in %s)", c, want, tt.bucket)
			}
		})
	}
}

func TestReferenceBucketsCounts(t *testing.T) {
	var lat []time.Duration
	add := func(n int, d time.Duration) {
		for range n {
			lat = append(lat, d)
		}
	}
	add(3, 100*time.Microsecond)
	add(2, 256*time.Microsecond)
	add(5, 300*time.Microsecond)
	add(1, 3*time.Millisecond)
	add(7, 10*time.Millisecond)
	add(4, 2*time.Second)
	add(2, 20*time.Second)
	got := counts(measure.ReferenceBuckets(recorded(lat...).Hist))
	want := []int64{
		5, // 256us: 3 × 100µs, 2 × 256µs
		5, // 1ms: 5 × 300µs
		1, // 4ms
		7, // 16ms
		0, 0, 0,
		4, // 4s
		0,
		2, // more
	}
	if !slices.Equal(got, want) {
		t.Errorf("bucket counts = %v, want %v", got, want)
	}
}

func counts(bs []measure.Bucket) []int64 {
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = b.Count
	}
	return out
}

func names(bs []measure.Bucket) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.UpTo
	}
	return out
}

func BenchmarkRecorderRecord(b *testing.B) {
	r := measure.NewRecorder(nOps)
	// Latencies spread over several HDR buckets, as real ones are.
	lat := make([]time.Duration, 1024)
	for i := range lat {
		lat[i] = time.Duration(1+i*i*37) * time.Nanosecond
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		r.Record(opInsert, lat[i&1023], 1)
		i++
	}
}

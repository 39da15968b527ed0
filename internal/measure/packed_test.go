package measure_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbperf/dbperf/internal/measure"
)

// encode is h's V2 encoding, as the interval log stores it: two histograms with the same
// encoding hold the same counts in the same buckets.
func encode(t *testing.T, h *hdr.PackedHistogram) string {
	t.Helper()
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// denseFigures computes a summary's latency figures and buckets from a dense histogram the way
// dbperf did before intervals were packed, the reference the packed figures must equal.
func denseFigures(h *hdr.Histogram) (measure.OpSummary, []int64) {
	p := h.ValueAtPercentiles([]float64{50, 90, 99, 99.9, 99.99})
	s := measure.OpSummary{MeanUs: measure.Round(h.Mean()/1e3, 3), P50Us: measure.Round(measure.Micros(p[50]), 3),
		P90Us: measure.Round(measure.Micros(p[90]), 3), P99Us: measure.Round(measure.Micros(p[99]), 3),
		P999Us: measure.Round(measure.Micros(p[99.9]), 3), P9999Us: measure.Round(measure.Micros(p[99.99]), 3),
		MaxUs: measure.Round(measure.Micros(h.Max()), 3)}
	var froms []int64
	for _, bar := range h.Distribution() {
		if bar.Count > 0 {
			froms = append(froms, bar.From)
		}
	}
	return s, froms
}

// TestPackedFiguresMatchDense records heavy-tailed latencies through two recorders into three
// intervals and a step total, as the runner does, and checks every figure taken from the packed
// total against the same values recorded into one dense histogram: percentiles, mean, max, the
// reference buckets, an SLA's count, and the interval log's encoding.
func TestPackedFiguresMatchDense(t *testing.T) {
	for seed := range uint64(5) {
		rng := rand.New(rand.NewPCG(seed, 7))
		dense := measure.NewHistogram()
		total := measure.NewInterval(nOps)
		r1, r2 := measure.NewRecorder(nOps), measure.NewRecorder(nOps)
		for range 3 {
			iv := measure.NewInterval(nOps)
			for range 20_000 {
				// log-uniform from 1 µs to ~17 min, and now and then past the 1 h bound
				lat := time.Duration(float64(time.Microsecond) * float64(uint64(1)<<rng.IntN(30)) * (1 + rng.Float64()))
				if rng.IntN(5000) == 0 {
					lat = 2 * time.Hour
				}
				r := r1
				if rng.IntN(2) == 0 {
					r = r2
				}
				r.Record(opInsert, lat, 1)
				dense.RecordValue(min(int64(lat), int64(time.Hour)))
			}
			r1.Drain(iv)
			r2.Drain(iv)
			total.Add(iv)
		}
		got := measure.Summarize(&total.Ops[opInsert], 3)
		want, froms := denseFigures(dense)
		gotFigures := []float64{got.MeanUs, got.P50Us, got.P90Us, got.P99Us, got.P999Us, got.P9999Us, got.MaxUs}
		wantFigures := []float64{want.MeanUs, want.P50Us, want.P90Us, want.P99Us, want.P999Us, want.P9999Us, want.MaxUs}
		if !reflect.DeepEqual(gotFigures, wantFigures) {
			t.Errorf("seed %d: mean, p50, p90, p99, p99.9, p99.99, max = %v; dense %v", seed, gotFigures, wantFigures)
		}
		var gotFroms []int64
		for from := range total.Ops[opInsert].Hist.ForEachBucket {
			gotFroms = append(gotFroms, from)
		}
		if !reflect.DeepEqual(gotFroms, froms) {
			t.Errorf("seed %d: %d buckets in use, dense %d, or their bounds differ", seed, len(gotFroms), len(froms))
		}
		for _, bound := range []int64{1_000, 999_999, 1_000_000, 50_000_000, int64(time.Hour)} {
			var want int64
			for _, bar := range dense.Distribution() {
				if bar.Count > 0 && bar.From <= bound {
					want += bar.Count
				}
			}
			if got := measure.CountAtOrBelow(total.Ops[opInsert].Hist, bound); got != want {
				t.Errorf("seed %d: CountAtOrBelow(%d) = %d, dense %d", seed, bound, got, want)
			}
		}
		if g, w := total.Ops[opInsert].Hist.ValueAtPercentile(99), dense.ValueAtQuantile(99); g != w {
			t.Errorf("seed %d: p99 for an SLA = %d, dense %d", seed, g, w)
		}
		d, err := dense.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		if encode(t, total.Ops[opInsert].Hist) != string(d) {
			t.Errorf("seed %d: the interval log's encoding differs from the dense histogram's", seed)
		}
	}
}

// BenchmarkSecond is the ticker's work for one second of LinkBench-like traffic: 4,800
// operations over ten op types, latencies log-normal around 100 µs (a second's maximum near
// 2 ms), drained from a worker's recorder, the maximum read three times (live line, archive,
// log writer), each op type encoded for the interval log, and added to the step's total.
// "dense" does it with dense interval histograms, as dbperf did before they were packed.
func BenchmarkSecond(b *testing.B) {
	const types, perSecond = 10, 4800
	rng := rand.New(rand.NewPCG(1, 2))
	lat := make([]time.Duration, perSecond)
	for i := range lat {
		lat[i] = time.Duration(100e3 * math.Exp(rng.NormFloat64()))
	}
	b.Run("packed", func(b *testing.B) {
		r := measure.NewRecorder(types)
		iv, total := measure.NewInterval(types), measure.NewInterval(types)
		for range b.N {
			b.StopTimer() // recording is the workers' work, not the ticker's
			for i, l := range lat {
				r.Record(measure.Op(i%types), l, 1)
			}
			b.StartTimer()
			iv.Reset()
			r.Drain(iv)
			for o := range iv.Ops {
				h := iv.Ops[o].Hist
				_, _, _ = h.Max(), h.Max(), h.Max()
				if _, err := h.Encode(); err != nil {
					b.Fatal(err)
				}
			}
			total.Add(iv)
		}
	})
	b.Run("dense", func(b *testing.B) {
		rec, iv, total := make([]*hdr.Histogram, types), make([]*hdr.Histogram, types), make([]*hdr.Histogram, types)
		for o := range types {
			rec[o], iv[o], total[o] = measure.NewHistogram(), measure.NewHistogram(), measure.NewHistogram()
		}
		for range b.N {
			b.StopTimer()
			for i, l := range lat {
				rec[i%types].RecordValue(int64(l))
			}
			b.StartTimer()
			for o := range types {
				iv[o].Reset()
				iv[o].Merge(rec[o])
				rec[o].Reset()
				_, _, _ = iv[o].Max(), iv[o].Max(), iv[o].Max()
				if _, err := iv[o].Encode(hdr.V2CompressedEncodingCookieBase); err != nil {
					b.Fatal(err)
				}
				total[o].Merge(iv[o])
			}
		}
	})
}

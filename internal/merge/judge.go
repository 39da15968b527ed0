package merge

import (
	"math"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// mergeSLAs judges the shards' SLAs again on the merged run: the percentile on the merged
// step histogram, violated seconds on the merged per-second histograms, goodput from the merged
// counts. A shard's not-started arrivals are in its histogram as lower bounds and not in its
// goodput; the waits among them within the bound are taken out again per shard (recovered from
// the shard's within_pct, exactly when the shard's total is under 100,000 statements).
func mergeSLAs(sums []archive.Step, steps []shardStep, ivs []*measure.Interval, ops []string, totals []*hdrPacked, secs float64) []measure.SLAResult {
	var out []measure.SLAResult
	for _, r0 := range sums[0].SLAs {
		sla, err := measure.ParseSLA(r0.SLA)
		if err != nil {
			continue
		}
		o := indexOf(ops, sla.Op)
		if o < 0 {
			continue
		}
		c := &measure.SLACheck{SLA: sla}
		for _, iv := range ivs {
			c.Interval(iv.Ops[o].Hist)
		}
		res := c.Result(&measure.OpInterval{Hist: totals[o]}, secs)
		total := totals[o].TotalCount()
		if total == 0 {
			out = append(out, res)
			continue
		}
		within := measure.CountAtOrBelow(totals[o], int64(sla.Bound)) - waitsWithin(sla, sums, steps)
		res.WithinPct = measure.Round(100*float64(within)/float64(total), 3)
		if secs > 0 {
			res.GoodputPerSec = measure.Round(float64(within)/secs, 3)
		}
		out = append(out, res)
	}
	return out
}

// waitsWithin counts the not-started arrivals' waits within the SLA's bound over the shards.
func waitsWithin(sla measure.SLA, sums []archive.Step, steps []shardStep) int64 {
	var n int64
	for k, s := range sums {
		if s.Ops[sla.Op].NotStarted == 0 {
			continue
		}
		o := indexOf(steps[k].files.ops, sla.Op)
		h := steps[k].files.total(o)
		for _, r := range s.SLAs {
			if r.SLA == sla.String() {
				within := int64(math.Round(r.WithinPct / 100 * float64(h.TotalCount())))
				n += measure.CountAtOrBelow(h, int64(sla.Bound)) - within
			}
		}
	}
	return n
}

// mergeStalls judges stalls again on the merged seconds when the shards judged them: by the
// same rule, on the main op's summed rate and the merged maximum latency. The main op is the
// step's op type with the most units (ties: the first), which is the workload's main op in every
// step of the Insert Benchmark and LinkBench.
func mergeStalls(sums []archive.Step, ivs []*measure.Interval, ops []string, w *archive.StepWriter) *measure.Stalls {
	judged := false
	for _, s := range sums {
		judged = judged || s.Stalls != nil
	}
	if !judged || len(ivs) == 0 {
		return nil
	}
	units := make([]int64, len(ops))
	for _, iv := range ivs {
		for o := range ops {
			units[o] += iv.Ops[o].Units
		}
	}
	main := 0
	for o := range ops {
		if units[o] > units[main] {
			main = o
		}
	}
	secs := make([]measure.Second, len(ivs))
	for i, iv := range ivs {
		secs[i] = measure.Second{T: w.TSec(iv.End), Seconds: iv.Seconds(), Rate: iv.PerSec(measure.Op(main)), MaxLatency: iv.MaxLatency()}
	}
	st := measure.DetectStalls(secs, measure.DefaultStallRule)
	return &st
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

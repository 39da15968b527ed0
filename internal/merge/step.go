package merge

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// summarize builds the merged step's summary.json from the shards' summaries and the merged
// histograms (totals and service times, one per op). Counts, errors, not-started arrivals and
// CPU seconds add up; latency figures come from the merged histograms, so every percentile is
// the one a single client host would have measured; rates divide the summed units by the
// merged seconds.
func summarize(name string, sums []archive.Step, steps []shardStep, ops []string, totals, service []*hdrPacked, start time.Time, figs archive.Figures) archive.Step {
	end := start
	for k, s := range sums {
		end = latest(end, s.End.Add(-steps[k].offset))
	}
	secs := end.Sub(start).Seconds()
	out := archive.Step{Step: name, Complete: true, Start: start, End: end, Seconds: measure.Round(secs, 3),
		Ops: map[string]measure.OpSummary{}, Verified: true}
	var cpuUnits float64
	for k, s := range sums {
		out.Complete = out.Complete && s.Complete
		out.Verified = out.Verified && s.Verified
		for _, p := range s.Problems {
			out.Problems = append(out.Problems, fmt.Sprintf("shard %d: %s", k, p))
		}
		if s.Error != "" {
			out.Error = joinErr(out.Error, fmt.Sprintf("shard %d: %s", k, s.Error))
		}
		out.ClientCPUSec += s.ClientCPUSec
		out.ClientCPUUserSec += s.ClientCPUUserSec
		out.ClientCPUSystemSec += s.ClientCPUSystemSec
		if s.ClientCPUUsPerOp > 0 {
			cpuUnits += s.ClientCPUSec * 1e6 / s.ClientCPUUsPerOp
		}
		out.Dropped += s.Dropped
	}
	out.ClientCPUSec = measure.Round(out.ClientCPUSec, 3)
	out.ClientCPUUserSec = measure.Round(out.ClientCPUUserSec, 3)
	out.ClientCPUSystemSec = measure.Round(out.ClientCPUSystemSec, 3)
	if cpuUnits > 0 {
		out.ClientCPUUsPerOp = measure.Round(out.ClientCPUSec*1e6/cpuUnits, 3)
	}
	for o, op := range ops {
		oi, opSecs, found := mergeOp(op, sums, steps, totals[o], start)
		if !found {
			continue
		}
		oi.Service = service[o]
		out.Ops[op] = measure.Summarize(oi, opSecs)
		out.Errors += oi.Errors
	}
	out.OpenLoop = mergeOpenLoop(sums, secs)
	out.Workload = mergeWorkload(sums, figs)
	return out
}

// mergeOp adds one op type's counters over the shards, with the merged histogram, and the
// seconds its rate divides by: from the earliest start to the latest instant any shard's rate
// of it ran to (a shard's rate of its main op ends when that op stops).
func mergeOp(op string, sums []archive.Step, steps []shardStep, total *hdrPacked, start time.Time) (*measure.OpInterval, float64, bool) {
	oi := &measure.OpInterval{Hist: total}
	found := false
	until := start
	for k, s := range sums {
		o, ok := s.Ops[op]
		if !ok {
			continue
		}
		found = true
		oi.Units += o.Count
		oi.Statements += o.Statements
		oi.Errors += o.Errors
		oi.NotStarted += o.NotStarted
		oi.ErrorKinds = addKinds(oi.ErrorKinds, o.ErrorKinds)
		span := s.End.Sub(s.Start)
		if o.PerSec > 0 {
			span = time.Duration(float64(o.Count) / o.PerSec * float64(time.Second))
		}
		until = latest(until, s.Start.Add(-steps[k].offset).Add(span))
	}
	return oi, until.Sub(start).Seconds(), found
}

// dropPartialService leaves out the merged service times of an op type that some shard
// measured without archiving them (serviceWhole).
func dropPartialService(ivs []*measure.Interval, ops []string, sums []archive.Step, steps []shardStep) {
	for o, op := range ops {
		if !serviceWhole(op, sums, steps) {
			for _, iv := range ivs {
				iv.Ops[o].Service = nil
			}
		}
	}
}

// serviceWhole tells whether every shard that measured op's service times archived them in
// service.hlog: a shard written before the file existed has them only as percentiles, which do
// not add up, so the merged summary then leaves them out rather than give a part as the whole.
func serviceWhole(op string, sums []archive.Step, steps []shardStep) bool {
	for k, s := range sums {
		if s.Ops[op].Service != nil && steps[k].files.service == nil {
			return false
		}
	}
	return true
}

// addKinds adds error counts by kind, keeping the first message seen of each.
func addKinds(into, from []measure.ErrorCount) []measure.ErrorCount {
next:
	for _, f := range from {
		for i := range into {
			if into[i].Kind == f.Kind {
				into[i].Count += f.Count
				continue next
			}
		}
		into = append(into, f)
	}
	return into
}

// mergeOpenLoop adds the shards' open-loop streams by name: each shard scheduled its share of
// the rate, so offered, achieved, dropped and not-started arrivals add up, and a stream is judged
// overloaded on the sums by the same rule as one host's.
func mergeOpenLoop(sums []archive.Step, secs float64) *measure.OpenLoop {
	var streams []measure.Stream
	idx := map[string]int{}
	for _, s := range sums {
		if s.OpenLoop == nil {
			continue
		}
		for _, st := range s.OpenLoop.Streams {
			i, ok := idx[st.Name]
			if !ok {
				idx[st.Name], i = len(streams), len(streams)
				streams = append(streams, measure.Stream{Name: st.Name})
			}
			m := &streams[i]
			m.Workers += st.Workers
			m.Offered += st.Offered
			m.Achieved += st.Achieved
			m.Dropped += st.Dropped
			m.NotStarted += st.NotStarted
			m.Unfinished += st.Unfinished
			m.NotStartedWaitMaxUs = max(m.NotStartedWaitMaxUs, st.NotStartedWaitMaxUs)
			m.Unattributed = m.Unattributed || st.Unattributed
		}
	}
	for i := range streams {
		streams[i].Overload()
	}
	return measure.SummarizeOpenLoop(streams, secs)
}

// mergeWorkload merges the workload's own step figures: a figure every shard has the same value
// of is kept; rates (keys ending in _per_sec), the counts the workload declares (Figures.Sums)
// and the gate's achieved and target values add up (each shard's is its share); a condition (a
// bool) holds when it held on every shard, except the gate's, which is judged again on the
// summed achieved and target rates. Any other figure that differs between shards is left out
// rather than guessed.
func mergeWorkload(sums []archive.Step, figs archive.Figures) map[string]any {
	gate := figs.Gate
	out := map[string]any{}
	keys := map[string]bool{}
	for _, s := range sums {
		for k := range s.Workload {
			keys[k] = true
		}
	}
	adds := func(k string) bool {
		return strings.HasSuffix(k, "_per_sec") || slices.Contains(figs.Sums, k) || (gate != nil && (k == gate.Achieved || k == gate.Target))
	}
	for k := range keys {
		var vals []any
		for _, s := range sums {
			if v, ok := s.Workload[k]; ok {
				vals = append(vals, v)
			}
		}
		switch v0 := vals[0].(type) {
		case bool:
			all := true
			for _, v := range vals {
				b, _ := v.(bool)
				all = all && b
			}
			out[k] = all
		case float64:
			if adds(k) {
				var sum float64
				for _, v := range vals {
					f, _ := v.(float64)
					sum += f
				}
				out[k] = measure.Round(sum, 3)
			} else if same(vals) {
				out[k] = v0
			}
		default:
			if same(vals) {
				out[k] = v0
			}
		}
	}
	// A gate's condition is the whole run's: the shards' summed achieved rate against their
	// summed target, as one host's run would judge it. An AND of the shards' verdicts failed a
	// run whose slow shard another one made up for, and passed none that a whole run would fail
	// less often.
	if gate != nil {
		_, hasMet := out[gate.Met].(bool)
		a, okA := out[gate.Achieved].(float64)
		t, okT := out[gate.Target].(float64)
		if hasMet && okA && okT {
			out[gate.Met] = a >= GateShare*t
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// GateShare is the share of its target at which a gate holds: 95% for every gate dbperf
// declares (the Insert Benchmark's inserts, insertbench.insertGate; kv's writer,
// writerGateShare).
const GateShare = 0.95

func same(vals []any) bool {
	for _, v := range vals[1:] {
		if !reflect.DeepEqual(v, vals[0]) {
			return false
		}
	}
	return true
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

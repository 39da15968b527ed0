package merge

import (
	"sort"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
)

// mergeFaults is a merged step's faults: the shards' errors by kind, retries and reconnects
// added up, and each shard's windows without the target labelled with its index and moved to
// the rendezvous's clock (offsets[k] is shard k's), in order of start. Nil when no shard
// recorded any.
func mergeFaults(shards []shardRun, sums []archive.Step, offsets []time.Duration) *archive.Faults {
	var out *archive.Faults
	for k, s := range sums {
		f := s.Faults
		if f == nil {
			continue
		}
		if out == nil {
			out = &archive.Faults{}
		}
		for kind, n := range f.Errors {
			if out.Errors == nil {
				out.Errors = map[string]int64{}
			}
			out.Errors[kind] += n
		}
		out.Retries += f.Retries
		out.Reconnects += f.Reconnects
		for _, w := range f.Unreachable {
			idx := shards[k].shard.Index
			w.Shard, w.Start = &idx, w.Start.Add(-offsets[k])
			if !w.End.IsZero() {
				w.End = w.End.Add(-offsets[k])
			}
			out.Unreachable = append(out.Unreachable, w)
		}
	}
	if out != nil {
		sort.SliceStable(out.Unreachable, func(i, j int) bool { return out.Unreachable[i].Start.Before(out.Unreachable[j].Start) })
	}
	return out
}

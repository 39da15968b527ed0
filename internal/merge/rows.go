package merge

import (
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// shardStep is one shard's step as the merge sees it: its files, its summary, and how far its
// clock is ahead of the rendezvous's.
type shardStep struct {
	files  *stepFiles
	start  time.Time // when its t_sec counts from, on the rendezvous's clock
	offset time.Duration
}

// alignedRows adds the shards' rows into merged intervals. Each shard counts its intervals from
// its own step start; its row j (ending j seconds after that start) goes into merged row j+d,
// where d is the whole number of seconds between the earliest shard's start and its own, both
// corrected by the shard's measured clock offset. Every row lands in exactly one merged row, so
// counts and histograms add up exactly; a merged row's instants span its rows'.
func alignedRows(steps []shardStep, ops []string) (start time.Time, ivs []*measure.Interval, secs []float64) {
	start = steps[0].start
	for _, s := range steps {
		if s.start.Before(start) {
			start = s.start
		}
	}
	for _, s := range steps {
		d := rowShift(s, start)
		col := opColumns(s.files.ops, ops)
		for j, r := range s.files.rows {
			m := j + d
			for len(ivs) <= m {
				ivs = append(ivs, measure.NewInterval(len(ops)))
				secs = append(secs, 0)
			}
			iv := ivs[m]
			end := time.UnixMilli(r.endMs).Add(-s.offset)
			from := end.Add(-time.Duration(r.seconds * float64(time.Second)))
			if r.startMs > 0 {
				from = time.UnixMilli(r.startMs).Add(-s.offset)
			}
			if iv.End.IsZero() || end.After(iv.End) {
				iv.End = end
			}
			if iv.Start.IsZero() || from.Before(iv.Start) {
				iv.Start = from
			}
			addRow(iv, r, s.files.hists[j], s.files.serviceOf(j), col)
			secs[m] = max(secs[m], r.seconds)
		}
	}
	for m, iv := range ivs { // a second no shard had (a gap longer than a second): empty
		if iv.End.IsZero() {
			iv.End = start.Add(time.Duration(m+1) * time.Second)
			iv.Start = iv.End.Add(-time.Second)
		}
	}
	return start, ivs, secs
}

// addRow adds one shard row into a merged interval, with its service times (nil: none); col
// maps the shard's op index to the merged one.
func addRow(iv *measure.Interval, r row, hists, service []*hdrPacked, col []int) {
	for o, c := range col {
		a := &iv.Ops[c]
		a.Units += r.units[o]
		a.Errors += r.errors[o]
		if h := hists[o]; h != nil {
			a.Hist.Merge(h)
			a.Statements += h.TotalCount()
		}
		if service != nil && service[o] != nil {
			if a.Service == nil {
				a.Service = measure.NewPacked()
			}
			a.Service.Merge(service[o])
		}
	}
	if r.openLoop {
		iv.Arrivals += r.arrivals
		iv.Dropped += r.dropped
		iv.Backlog += r.backlog
		iv.LagMax = max(iv.LagMax, time.Duration(r.lagMaxUs*1e3))
	}
}

// opColumns maps each of a shard's op names to its index in the merged list.
func opColumns(shardOps, ops []string) []int {
	col := make([]int, len(shardOps))
	for i, n := range shardOps {
		for j, m := range ops {
			if n == m {
				col[i] = j
			}
		}
	}
	return col
}

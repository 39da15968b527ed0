package insertbench

import (
	"fmt"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload"
)

// ReferenceLines gives the reference client's per-second line (--reference-lines).
func (b *Bench) ReferenceLines(ops []measure.OpType) workload.LineFormatter {
	return NewReferenceLine(ops)
}

var _ workload.ReferenceLines = (*Bench)(nil)

// ReferenceLine formats the Insert Benchmark reference client's per-second line (iibench.py's
// header ibp:1624 and values ibp:1406-1415, mdcallag/mytools bench/ibench): always 17
// tab-separated columns with the reference's names, zeros for op types the step does not have,
// so that the reference's scripts, which select lines with awk's NF == 17 and read fields by
// position (np.sh:354, 367, 628: $3 i_ips, $5 i_dps, $7 i_qps, $14 t_query), read dbperf's
// output unchanged.
//
// The reference prints one line per client process. The runner hands the session intervals
// merged over all clients, so this formats one line per interval for all clients together: the
// scripts' sums over clients (total queries, np.sh:354) are the same, while their per-client
// figures (the percentiles of np.sh:626-641) become those of the sum. The reference's p50/p99 of
// client 1 are in each step's workload figures instead. Each ReferenceLine (one per step) starts
// with the header, as each of the reference's client processes does.
type ReferenceLine struct {
	ins, del, qry       measure.Op // -1 when the step has no such op type
	start               time.Time
	tIns, tDel, tQry    int64
	retryI, retryD, rQ  int64
	headerDone, started bool
}

// ReferenceHeader is the reference's header line (ibp:1624).
const ReferenceHeader = "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"

// NewReferenceLine formats the lines of one step whose op types are ops; inserts, deletes and
// queries are found by their abbreviations (i, d, q), as the Insert Benchmark declares them.
func NewReferenceLine(ops []measure.OpType) *ReferenceLine {
	r := &ReferenceLine{ins: -1, del: -1, qry: -1}
	for i, o := range ops {
		switch o.Abbrev {
		case opInsert.Abbrev:
			r.ins = measure.Op(i)
		case opDelete.Abbrev:
			r.del = measure.Op(i)
		case opQuery.Abbrev:
			r.qry = measure.Op(i)
		}
	}
	return r
}

// Line gives the header before the first line, then iv's line. Rates are per second of the
// interval (i_*) and of the step so far (t_*); max_* are the interval's worst latencies in
// microseconds; t_* are cumulative counts and retry_* cumulative errors, as the reference's.
func (r *ReferenceLine) Line(iv *measure.Interval) string {
	var b strings.Builder
	if !r.headerDone {
		b.WriteString(ReferenceHeader + "\n")
		r.headerDone = true
	}
	if !r.started {
		r.start, r.started = iv.Start, true
	}
	units := func(o measure.Op) (n, errs int64, maxUs int64) {
		if o < 0 || int(o) >= len(iv.Ops) {
			return 0, 0, 0
		}
		op := &iv.Ops[o]
		if op.Hist != nil && op.Statements > 0 {
			maxUs = op.Hist.Max() / int64(time.Microsecond)
		}
		return op.Units, op.Errors, maxUs
	}
	ni, ei, mi := units(r.ins)
	nd, ed, md := units(r.del)
	nq, eq, mq := units(r.qry)
	r.tIns, r.tDel, r.tQry = r.tIns+ni, r.tDel+nd, r.tQry+nq
	r.retryI, r.retryD, r.rQ = r.retryI+ei, r.retryD+ed, r.rQ+eq
	isec, tsec := iv.Seconds(), iv.End.Sub(r.start).Seconds()
	rate := func(n int64, s float64) float64 {
		if s <= 0 {
			return 0
		}
		return float64(n) / s
	}
	fmt.Fprintf(&b, "%.1f\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n",
		isec, tsec, rate(ni, isec), rate(r.tIns, tsec), rate(nd, isec), rate(r.tDel, tsec), rate(nq, isec), rate(r.tQry, tsec),
		mi, md, mq, r.tIns, r.tDel, r.tQry, r.retryI, r.retryD, r.rQ)
	return b.String()
}

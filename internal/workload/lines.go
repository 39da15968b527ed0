package workload

import "github.com/dbperf/dbperf/internal/measure"

// ReferenceLines is a workload whose reference client prints a line a second of its own, which
// the reference's scripts parse (the Insert Benchmark's 17 columns): `--reference-lines` prints
// those lines in place of the live line. The workload formats them; the session prints them.
type ReferenceLines interface {
	// ReferenceLines starts the lines of one step whose op types are ops.
	ReferenceLines(ops []measure.OpType) LineFormatter
}

// LineFormatter formats a step's intervals as text, one call per interval in order.
type LineFormatter interface {
	// Line is the interval's text, every line of it ending in a newline; the first call's may
	// begin with a header.
	Line(iv *measure.Interval) string
}

package monitor

import (
	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/measure"
)

// stallMoved is how many counters each stall names.
const stallMoved = 8

// stallCounters are, for each of the step's stalls, the DBMS counters that moved most in it
// against the step's median second (docs/counters.md), read back from counters.csv.gz as
// written so far. Nil without stalls or counters; a failure to read leaves them out.
func (s *Step) stallCounters(st *measure.Stalls) []archive.StallCounters {
	if st == nil || len(st.At) == 0 || s.all == nil || s.all.Flush() != nil {
		return nil
	}
	series, err := archive.ReadCounters(s.w.Dir())
	if err != nil {
		return nil
	}
	defs := counters.Vitals()
	c := counters.FromSeries("", series, counters.AllSections(defs))
	var out []archive.StallCounters
	for _, w := range c.StallWindows(st) {
		sc := archive.StallCounters{FromSec: c.TSec[w.From], ToSec: c.TSec[w.To]}
		for _, m := range c.Movers(w, stallMoved, defs) {
			sc.Moved = append(sc.Moved, archive.MovedCounter{Name: m.Name, Stall: round(m.Window, 3), Median: round(m.Median, 3),
				Gauge: m.Kind == archive.KindGauge})
		}
		out = append(out, sc)
	}
	return out
}

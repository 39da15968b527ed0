package session

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
)

// stallLines is how many stalls the step's output names counters for; summary.json has all.
const stallLines = 3

// stallShown is how many counters a stall's line names.
const stallShown = 4

// printStallCounters prints, for the step's first stalls, the counters that moved most in each
// against the step's median second (docs/counters.md): what moved, not why.
func printStallCounters(out io.Writer, stalls []archive.StallCounters) {
	for i, st := range stalls {
		if i == stallLines {
			fmt.Fprintf(out, "   ... %d more stalls: summary.json's host.stall_counters, dbperf counters\n", len(stalls)-stallLines)
			return
		}
		var parts []string
		for _, m := range st.Moved[:min(len(st.Moved), stallShown)] {
			unit := "/s"
			if m.Gauge {
				unit = ""
			}
			parts = append(parts, fmt.Sprintf("%s %s%s (median %s)", m.Name, g4(m.Stall), unit, g4(m.Median)))
		}
		if len(parts) == 0 {
			fmt.Fprintf(out, "   stall %.1f-%.1fs: no counter moved by half its median second\n", st.FromSec, st.ToSec)
			continue
		}
		fmt.Fprintf(out, "   stall %.1f-%.1fs, counters that moved most: %s\n", st.FromSec, st.ToSec, strings.Join(parts, ", "))
	}
}

func g4(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

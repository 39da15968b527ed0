package search

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dbperf/dbperf/internal/archive"
)

// Print writes a search's trials as a table, and its answer.
func Print(out io.Writer, rec archive.Search) {
	fmt.Fprintf(out, "== search of %s for %v\n", rec.Step, rec.SLAs)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	what := "rate"
	if rec.Vary == "clients" {
		what = "clients"
	}
	fmt.Fprintln(tw, "trial\t"+what+"\tachieved\tp50_us\tp99_us\tp99.9_us\tsvc_p99_us\tdropped\tverdict\t")
	for i, t := range rec.Trials {
		svc := "-" // a closed loop's response time is its service time
		if t.ServiceP99Us > 0 {
			svc = fmt.Sprintf("%.0f", t.ServiceP99Us)
		}
		fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%d\t%s\t\n", i+1, t.Rate, t.Achieved, t.P50Us, t.P99Us, t.P999Us, svc, t.Dropped, t.Why)
	}
	tw.Flush()
	unit, what := "/s", "rate"
	if rec.Vary == "clients" {
		unit, what = " clients", "client count"
	}
	switch {
	case rec.Rate == 0:
		fmt.Fprintf(out, "no %s passed (%s)\n", what, rec.Reason)
	case rec.Bounded:
		fmt.Fprintf(out, "highest passing %s: at least %.0f%s (%s)\n", what, rec.Rate, unit, rec.Reason)
	default:
		fmt.Fprintf(out, "highest passing %s: %.0f%s; %.0f%s failed (%s)\n", what, rec.Rate, unit, rec.FailRate, unit, rec.Reason)
	}
}

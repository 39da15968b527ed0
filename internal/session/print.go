package session

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"time"
)

// printResult prints the end-of-step figures known when the runner returns: counts, rates and
// latency percentiles per op type, the workload's own figures, drops, SLAs and stalls; wide
// adds p90 and p99.99 and the reference's latency histogram. The host's figures and the check
// follow as they come (printHostFigures, printCheck), so a slow check shows what it is.
func printResult(out io.Writer, s archive.Step, ops []string, warnings []string, wide bool) {
	state := "done"
	if !s.Complete {
		state = "NOT complete"
	}
	fmt.Fprintf(out, "-- %s %s in %.1fs; client CPU %.3fs (user %.3fs, system %.3fs), %.2f us/op\n",
		s.Step, state, s.Seconds, s.ClientCPUSec, s.ClientCPUUserSec, s.ClientCPUSystemSec, s.ClientCPUUsPerOp)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	if wide {
		fmt.Fprintln(tw, "op\tcount\tper_sec\tp50_us\tp90_us\tp99_us\tp99.9_us\tp99.99_us\tmax_us\terrors\t")
	} else {
		fmt.Fprintln(tw, "op\tcount\tper_sec\tp50_us\tp99_us\tp99.9_us\tmax_us\terrors\t")
	}
	for _, name := range ops {
		o := s.Ops[name]
		if wide {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n",
				name, o.Count, o.PerSec, o.P50Us, o.P90Us, o.P99Us, o.P999Us, o.P9999Us, o.MaxUs, o.Errors)
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n",
				name, o.Count, o.PerSec, o.P50Us, o.P99Us, o.P999Us, o.MaxUs, o.Errors)
		}
	}
	tw.Flush()
	for _, name := range ops {
		if !wide {
			break
		}
		var b strings.Builder
		for _, bk := range s.Ops[name].Buckets {
			if bk.UpTo == "more" {
				fmt.Fprintf(&b, " >16s:%d", bk.Count)
			} else {
				fmt.Fprintf(&b, " <=%s:%d", bk.UpTo, bk.Count)
			}
		}
		fmt.Fprintf(out, "   %s latency:%s max:%.6fs\n", name, b.String(), s.Ops[name].MaxUs/1e6)
	}
	if len(s.Workload) > 0 {
		keys := make([]string, 0, len(s.Workload))
		for k := range s.Workload {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			v := fmt.Sprint(s.Workload[k])
			if wide {
				fmt.Fprintf(out, "   %s: %s\n", k, v)
			} else if len(v) <= 40 { // a sentence (what a check covered) is for --wide and summary.json
				kv = append(kv, k+" "+v)
			}
		}
		printWrapped(out, "   ", kv, 100)
	}
	for _, w := range warnings {
		printSentence(out, "   WARNING: ", w)
	}
	printErrors(out, s, ops)
	if s.OpenLoop != nil {
		printOpenLoop(out, s, ops)
	} else if s.Dropped > 0 {
		fmt.Fprintf(out, "   DROPPED: %d arrivals found the backlog full (--max-backlog) and never ran\n", s.Dropped)
	}
	for _, r := range s.SLAs {
		verdict := "met"
		if !r.Met {
			verdict = "MISSED"
		}
		fmt.Fprintf(out, "   SLA %s %s (%.0f us); goodput %.1f/s (%.2f%% within); violated in %d of %d s\n",
			r.SLA, verdict, r.ValueUs, r.GoodputPerSec, r.WithinPct, r.ViolatedSeconds, r.Seconds)
	}
	if st := s.Stalls; st != nil && st.Count > 0 {
		fmt.Fprintf(out, "   stalls: %d (longest %.1fs, %.1fs in all; %s)\n", st.Count, st.LongestSec, st.TotalSec, st.Rule)
	}
}

// printHostFigures prints the monitor's figures of a step; took is how long the monitor's last
// questions (the database's size, the data directory's) took, shown when it was noticeable.
// perOp is false for a step whose main op is a wait (the settle): its figures per op divide
// by a few long waits and say nothing, and are left out.
func printHostFigures(out io.Writer, h *archive.HostSummary, wide, perOp bool, took time.Duration) {
	if wide {
		printHost(out, h)
	} else {
		printHostShort(out, h, perOp)
	}
	printStallCounters(out, h.StallCounters) // printstalls.go
	if took >= 500*time.Millisecond {
		fmt.Fprintf(out, "   (the monitor's end-of-step figures took %.1fs)\n", took.Seconds())
	}
}

// printCheck prints how a step ended: its check, with the time the check took, and its failure
// (the check's, or the step's own after a check that passed, e.g. writing its files).
func printCheck(out io.Writer, s archive.Step, took time.Duration) {
	if s.Verified {
		fmt.Fprintf(out, "   check: the database holds exactly what the client wrote (%.1fs)\n", took.Seconds())
	}
	if !s.Complete && s.Error != "" {
		printSentence(out, "   FAILED: ", s.Error)
	}
}

// printHostShort prints the monitor's figures that matter most, in one line of at most
// lineWidth (two when they do not fit): the host's CPU and the client's cores, CPU per operation (and the DBMS's and
// dbperf's share of it), KB read per op and written per write, and whether the client was the
// bottleneck. perOp false leaves out the per-op figures (a wait's).
func printHostShort(out io.Writer, h *archive.HostSummary, perOp bool) {
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return short(*p)
	}
	host := fmt.Sprintf("   host: cpu %.0f%%, client %.2f cores", h.CPUPS, h.ClientCPUCores)
	per := "no per-op figures: the step is a wait"
	if perOp {
		per = fmt.Sprintf("per op: cpu %s us (dbms %s, client %s), rKB %s, wKB/write %s",
			num(h.CPUUsPerOp), num(h.DBMSCPUUsPerOp), short(h.ClientCPUUsPerOp), num(h.ReadKBPerOp), num(h.WriteKBPerWrite))
	}
	if len(host)+2+len(per) <= lineWidth {
		fmt.Fprintf(out, "%s; %s\n", host, per)
	} else {
		fmt.Fprintf(out, "%s\n   %s\n", host, per)
	}
	switch {
	case h.ClientBound:
		printSentence(out, "   CLIENT-BOUND: ", h.ClientBoundWhy)
	case h.ClientBoundWhy != "": // e.g. a busy host, which is not the client's doing
		printSentence(out, "   note: ", h.ClientBoundWhy)
	}
}

// short prints a figure with three significant digits or its whole part (0.123, 1.23, 12.3,
// 123, 123456), so that a line of figures keeps its width whatever their size.
func short(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a < 1:
		return fmt.Sprintf("%.3f", v)
	case a < 10:
		return fmt.Sprintf("%.2f", v)
	case a < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// printHost prints the monitor's figures: the host's rates, then per operation.
func printHost(out io.Writer, h *archive.HostSummary) {
	num := func(p *float64, format string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf(format, *p)
	}
	fmt.Fprintf(out, "   host: cpu %.1f%% busy, %.0f cs/s; disk %v r/s %s rMB/s %s w/s %s wMB/s %s\n",
		h.CPUPS, h.CSPS, h.Devices, num(h.RPS, "%.0f"), num(h.RMBPS, "%.2f"), num(h.WPS, "%.0f"), num(h.WMBPS, "%.2f"))
	fmt.Fprintf(out, "   per op: host cpu %s us, dbms cpu %s us, client cpu %.2f us, cs %s, rKB %s; per write: w %s, wKB %s\n",
		num(h.CPUUsPerOp, "%.2f"), num(h.DBMSCPUUsPerOp, "%.2f"), h.ClientCPUUsPerOp, num(h.CtxPerOp, "%.3f"), num(h.ReadKBPerOp, "%.3f"), num(h.WritesPerWrite, "%.3f"), num(h.WriteKBPerWrite, "%.3f"))
	fmt.Fprintf(out, "   db %s GB (dbms), %s GB (disk); rss %s GB (largest dbms process); client %.2f cores; of the host's cpu: client %s, dbms %s\n",
		num(h.DBGB1, "%.3f"), num(h.DBGB2, "%.3f"), num(h.RSS, "%.3f"), h.ClientCPUCores, num(h.ClientHostPct, "%.0f%%"), num(h.DBMSHostPct, "%.0f%%"))
	switch {
	case h.ClientBound:
		fmt.Fprintf(out, "   CLIENT-BOUND: %s; these figures measure dbperf, not the DBMS\n", h.ClientBoundWhy)
	case h.ClientBoundWhy != "":
		fmt.Fprintf(out, "   note: %s\n", h.ClientBoundWhy)
	}
}

// stepLine is a finished step for the closing summary; checkFailed says the database check
// itself failed (not the step before or after it, e.g. writing its files).
type stepLine struct {
	sum         archive.Step
	main        measure.OpType
	checkFailed bool
}

// printClosing prints one line per step run, as sysbench's and pgbench's final reports and
// YCSB's [OVERALL] do: its main op's rate and latency, errors and the check's own outcome (ok,
// FAILED, n/a for a step the target cannot run, "-" when the step failed or stopped before its
// check, unchecked without checks: the word of summary's ok column); then why each step that
// did not complete stopped.
func printClosing(out io.Writer, run string, steps []stepLine) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(out, "== summary of %s\n", run)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tsecs\tmain op\tper_sec\tunit\tp99_us\tmax_us\terrors\tstalls\tcheck\t")
	var failed []archive.Step
	for _, st := range steps {
		s := st.sum
		o := s.Ops[st.main.Name]
		if !s.Complete {
			failed = append(failed, s)
		}
		check := "unchecked"
		switch {
		case notApplicable(s):
			check = "n/a"
		case s.Verified:
			check = "ok"
		case st.checkFailed:
			check = "FAILED"
		case !s.Complete:
			check = "-"
		}
		stalls := "-"
		if s.Stalls != nil {
			stalls = fmt.Sprint(s.Stalls.Count)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t%s\t%.0f\t%.0f\t%d\t%s\t%s\t\n",
			s.Step, s.Seconds, st.main.Name, rate(o.PerSec), st.main.Unit, o.P99Us, o.MaxUs, s.Errors, stalls, check)
	}
	tw.Flush()
	for _, s := range failed {
		why := s.Error
		if why == "" {
			why = "stopped before its end"
		}
		printSentence(out, "   "+s.Step+" did not complete: ", why)
	}
}

// notApplicable tells whether a step was not run because the target cannot run it.
func notApplicable(s archive.Step) bool {
	why, _ := s.Workload[archive.NotApplicable].(string)
	return why != ""
}

// printWrapped prints items joined by ", " in lines of at most width characters (an item
// longer than that has a line of its own).
func printWrapped(out io.Writer, indent string, items []string, width int) {
	line := ""
	for _, it := range items {
		if line != "" && len(indent)+len(line)+2+len(it) > width {
			fmt.Fprintf(out, "%s%s\n", indent, line)
			line = ""
		}
		if line != "" {
			line += ", "
		}
		line += it
	}
	if line != "" {
		fmt.Fprintf(out, "%s%s\n", indent, line)
	}
}

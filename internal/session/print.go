package session

import (
	"fmt"
	"io"
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
		fmt.Fprintf(out, "   WARNING: %s\n", w)
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
func printHostFigures(out io.Writer, h *archive.HostSummary, wide bool, took time.Duration) {
	if wide {
		printHost(out, h)
	} else {
		printHostShort(out, h)
	}
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
		fmt.Fprintf(out, "   FAILED: %s\n", s.Error)
	}
}

// printHostShort prints the monitor's figures that matter most, in one line: the host's CPU,
// CPU per operation (and the DBMS's and dbperf's share of it), KB read per op and written per
// write, and whether the client was the bottleneck.
func printHostShort(out io.Writer, h *archive.HostSummary) {
	num := func(p *float64, format string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf(format, *p)
	}
	fmt.Fprintf(out, "   host: cpu %.0f%%; per op: cpu %s us (dbms %s, client %.1f), rKB %s, wKB/write %s; client %.2f cores\n",
		h.CPUPS, num(h.CPUUsPerOp, "%.1f"), num(h.DBMSCPUUsPerOp, "%.1f"), h.ClientCPUUsPerOp, num(h.ReadKBPerOp, "%.3f"), num(h.WriteKBPerWrite, "%.3f"), h.ClientCPUCores)
	switch {
	case h.ClientBound:
		fmt.Fprintf(out, "   CLIENT-BOUND: %s\n", h.ClientBoundWhy)
	case h.ClientBoundWhy != "": // e.g. a busy host, which is not the client's doing
		fmt.Fprintf(out, "   note: %s\n", h.ClientBoundWhy)
	}
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
	fmt.Fprintf(out, "   db %s GB (dbms), %s GB (disk); dbms rss %s GB; client %.2f cores; of the host's cpu: client %s, dbms %s\n",
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
// YCSB's [OVERALL] do: its main op's rate and latency, errors, whether it completed and the
// check's own outcome; then why each step that did not complete stopped.
func printClosing(out io.Writer, run string, steps []stepLine) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(out, "== summary of %s\n", run)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tsecs\tmain op\tper_sec\tunit\tp99_us\tmax_us\terrors\tstalls\tdone\tcheck\t")
	var failed []archive.Step
	for _, st := range steps {
		s := st.sum
		o := s.Ops[st.main.Name]
		done := "yes"
		if !s.Complete {
			done = "no"
			failed = append(failed, s)
		}
		check := "unchecked"
		switch {
		case s.Verified:
			check = "ok"
		case st.checkFailed:
			check = "FAILED"
		case !s.Complete:
			check = "-" // the step failed or stopped before its check
		}
		stalls := "-"
		if s.Stalls != nil {
			stalls = fmt.Sprint(s.Stalls.Count)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%.1f\t%s\t%.0f\t%.0f\t%d\t%s\t%s\t%s\t\n",
			s.Step, s.Seconds, st.main.Name, o.PerSec, st.main.Unit, o.P99Us, o.MaxUs, s.Errors, stalls, done, check)
	}
	tw.Flush()
	for _, s := range failed {
		if s.Error != "" {
			fmt.Fprintf(out, "   %s did not complete: %s\n", s.Step, s.Error)
		}
	}
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

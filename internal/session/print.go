package session

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload"
)

// liveLine prints one line a second with the Insert Benchmark's columns, for whatever op types
// the step declared: interval and total rates, the interval's max latency (µs), totals and
// errors per op type (by its abbreviation: i_ips, max_i), then progress.
type liveLine struct {
	out      io.Writer
	ops      []measure.OpType
	progress measure.Op
	total    int64
	start    time.Time
	done     []int64
	errs     []int64
}

func newLiveLine(out io.Writer, step string, plan *workload.StepPlan) *liveLine {
	l := &liveLine{out: out, ops: plan.Step.Ops, progress: plan.Progress, total: plan.Total,
		done: make([]int64, len(plan.Step.Ops)), errs: make([]int64, len(plan.Step.Ops))}
	var h []string
	h = append(h, "i_sec", "t_sec")
	for _, o := range l.ops {
		h = append(h, "i_"+o.Short()+"ps", "t_"+o.Short()+"ps")
	}
	for _, o := range l.ops {
		h = append(h, "max_"+o.Short())
	}
	for _, o := range l.ops {
		h = append(h, "t_"+o.Name)
	}
	for _, o := range l.ops {
		h = append(h, "retry_"+o.Short())
	}
	h = append(h, "pct", "left")
	fmt.Fprintf(out, "== step %s\n", step)
	fmt.Fprintln(out, pad(h))
	return l
}

func pad(cols []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%9s", c)
	}
	return b.String()
}

func (l *liveLine) print(iv *measure.Interval) {
	if l.start.IsZero() {
		l.start = iv.Start
	}
	elapsed := iv.End.Sub(l.start).Seconds()
	cols := []string{fmt.Sprintf("%.1f", iv.Seconds()), fmt.Sprintf("%.1f", elapsed)}
	for o := range l.ops {
		l.done[o] += iv.Ops[o].Units
		l.errs[o] += iv.Ops[o].Errors
		cols = append(cols, fmt.Sprintf("%.0f", iv.PerSec(measure.Op(o))), fmt.Sprintf("%.0f", float64(l.done[o])/elapsed))
	}
	for o := range l.ops {
		cols = append(cols, fmt.Sprintf("%.0f", measure.Micros(iv.Ops[o].Hist.Max())))
	}
	for o := range l.ops {
		cols = append(cols, fmt.Sprint(l.done[o]))
	}
	for o := range l.ops {
		cols = append(cols, fmt.Sprint(l.errs[o]))
	}
	pct, left := "-", "-"
	if done := l.done[l.progress]; l.total > 0 {
		pct = fmt.Sprintf("%.1f%%", 100*float64(done)/float64(l.total))
		if done > 0 {
			rest := time.Duration(elapsed * float64(l.total-done) / float64(done) * float64(time.Second))
			left = rest.Round(time.Second).String()
		}
	}
	cols = append(cols, pct, left)
	fmt.Fprintln(l.out, pad(cols))
}

// printSummary prints the end-of-step figures: counts, rates and latency percentiles per op
// type, the reference's latency histogram, the workload's own figures and the check.
func printSummary(out io.Writer, s archive.Step, ops []string, warnings []string) {
	state := "done"
	if !s.Complete {
		state = "NOT complete"
	}
	fmt.Fprintf(out, "-- %s %s in %.1fs; client CPU %.3fs (user %.3fs, system %.3fs), %.2f us/op\n",
		s.Step, state, s.Seconds, s.ClientCPUSec, s.ClientCPUUserSec, s.ClientCPUSystemSec, s.ClientCPUUsPerOp)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tcount\tper_sec\tp50_us\tp90_us\tp99_us\tp99.9_us\tp99.99_us\tmax_us\terrors\t")
	for _, name := range ops {
		o := s.Ops[name]
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n",
			name, o.Count, o.PerSec, o.P50Us, o.P90Us, o.P99Us, o.P999Us, o.P9999Us, o.MaxUs, o.Errors)
	}
	tw.Flush()
	for _, name := range ops {
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
		for _, k := range keys {
			fmt.Fprintf(out, "   %s: %v\n", k, s.Workload[k])
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(out, "   WARNING: %s\n", w)
	}
	if h := s.Host; h != nil {
		printHost(out, h)
	}
	if st := s.Stalls; st != nil && st.Count > 0 {
		fmt.Fprintf(out, "   stalls: %d (longest %.1fs, %.1fs in all; %s)\n", st.Count, st.LongestSec, st.TotalSec, st.Rule)
	}
	switch {
	case s.Verified:
		fmt.Fprintln(out, "   check: the database holds exactly what the client wrote")
	case s.Error != "":
		fmt.Fprintf(out, "   FAILED: %s\n", s.Error)
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
	fmt.Fprintf(out, "   per op: host cpu %s us, dbms cpu %s us, client cpu %.2f us, cs %s, rKB %s; per insert: w %s, wKB %s\n",
		num(h.CPUPQ, "%.2f"), num(h.DBMSCPUPQ, "%.2f"), h.ClientCPUPQ, num(h.CSPQ, "%.3f"), num(h.RKBPQ, "%.3f"), num(h.WPI, "%.3f"), num(h.WKBPI, "%.3f"))
	fmt.Fprintf(out, "   db %s GB (dbms), %s GB (disk); dbms rss %s GB; client %.2f cores\n",
		num(h.DBGB1, "%.3f"), num(h.DBGB2, "%.3f"), num(h.RSS, "%.3f"), h.ClientCPUCores)
	if h.ClientBound {
		fmt.Fprintf(out, "   CLIENT-BOUND: %s; these figures measure dbperf, not the DBMS\n", h.ClientBoundWhy)
	}
}

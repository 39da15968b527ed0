package session

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/workload"
)

// Live is how a step's progress is printed while it runs.
type Live string

// The live output formats.
const (
	// LiveCompact, the default, is one line per report interval that fits a terminal: the rate
	// of up to three op types, the worst p99 and max latency of any op type, errors and progress.
	LiveCompact Live = "compact"
	// LiveWide is the Insert Benchmark's columns for every op type: rates in the interval and
	// since the start, max latency, totals and retries (--wide).
	LiveWide Live = "wide"
	// LiveQuiet prints no line while a step runs, only what ends it (--quiet).
	LiveQuiet Live = "quiet"
	// LiveReference prints the lines the workload's reference client prints, as the workload
	// formats them (workload.ReferenceLines), so that the reference's own scripts parse dbperf's
	// output (--reference-lines).
	LiveReference Live = "reference"
)

// liveLine prints a step's progress; intervals come from the runner once a second and are
// printed every reportEvery of them, merged.
type liveLine interface {
	print(iv *measure.Interval)
	finish() // the step's last interval has been printed
}

// newLive starts the live output of a step: a header, then lines as intervals come. ref gives
// the reference's own lines for LiveReference; without it (nil) the compact line is printed.
func newLive(out io.Writer, format Live, every time.Duration, step string, plan *workload.StepPlan, ref workload.ReferenceLines) liveLine {
	var l interface {
		liveLine
		header()
	}
	switch format {
	case LiveQuiet:
		return quietLine{}
	case LiveReference:
		fmt.Fprintf(out, "== step %s\n", step)
		if ref != nil {
			return referenceLive{out, ref.ReferenceLines(plan.Step.Ops)}
		}
		fmt.Fprintf(out, "   the workload's reference prints no lines of its own: the compact line instead\n")
		l := newCompactLine(out, plan)
		l.header()
		return newEvery(l, every, len(plan.Step.Ops))
	case LiveWide:
		l = newWideLine(out, plan)
	default:
		l = newCompactLine(out, plan)
	}
	fmt.Fprintf(out, "== step %s\n", step)
	l.header()
	return newEvery(l, every, len(plan.Step.Ops))
}

// referenceLive prints every interval as the reference's line, as the workload formats it.
type referenceLive struct {
	out io.Writer
	f   workload.LineFormatter
}

func (l referenceLive) print(iv *measure.Interval) { io.WriteString(l.out, l.f.Line(iv)) }
func (referenceLive) finish()                      {}

type quietLine struct{}

func (quietLine) print(*measure.Interval) {}
func (quietLine) finish()                 {}

// every merges intervals until they span the report interval, then prints them as one.
type every struct {
	l     liveLine
	every time.Duration
	acc   *measure.Interval
	empty bool
}

func newEvery(l liveLine, d time.Duration, ops int) liveLine {
	if d <= time.Second {
		return l
	}
	return &every{l: l, every: d, acc: measure.NewInterval(ops), empty: true}
}

// finish prints what the last report interval gathered, if anything.
func (e *every) finish() {
	if !e.empty {
		e.l.print(e.acc)
		e.empty = true
	}
}

func (e *every) print(iv *measure.Interval) {
	if e.empty {
		e.acc.Reset()
		e.empty = false
	}
	e.acc.Add(iv)
	if e.acc.End.Sub(e.acc.Start) >= e.every-time.Second/2 {
		e.l.print(e.acc)
		e.empty = true
	}
}

// progress tracks what a step has done toward its total, for the percentage and time left; a
// wait's (wait set) is the seconds waited of the most it may wait.
type progress struct {
	op    measure.Op
	total int64
	wait  time.Duration
	start time.Time
	done  int64
}

func newProgress(plan *workload.StepPlan) progress {
	return progress{op: plan.Progress, total: plan.Total, wait: plan.Wait}
}

// add counts an interval and returns the percentage done and the time left at the rate so far,
// "-" when unknown; for a wait, the seconds waited of the most it may wait ("12s/60s") and
// the rest of that.
func (p *progress) add(iv *measure.Interval) (pct, left string) {
	if p.start.IsZero() {
		p.start = iv.Start
	}
	if p.wait > 0 {
		waited := iv.End.Sub(p.start)
		return secs(waited) + "/" + secs(p.wait), secs(max(0, p.wait-waited))
	}
	if p.op < 0 || p.total <= 0 { // workload.None: the step has no measure of progress
		return "-", "-"
	}
	p.done += iv.Ops[p.op].Units
	pct, left = fmt.Sprintf("%.1f%%", 100*float64(p.done)/float64(p.total)), "-"
	if elapsed := iv.End.Sub(p.start).Seconds(); p.done > 0 {
		rest := time.Duration(elapsed * float64(p.total-p.done) / float64(p.done) * float64(time.Second))
		left = rest.Round(time.Second).String()
	}
	return pct, left
}

// compactLine is the default live line: at most three op types' rates (the step's main op
// first), the worst p99 and max latency of any op type in ms, errors, progress. With more op
// types (LinkBench's ten), the others' rates are added up in "other/s".
type compactLine struct {
	out    io.Writer
	ops    []measure.OpType
	shown  []measure.Op // op types with a column of their own, the main op first
	other  bool         // a column adding up the rest
	prog   progress
	start  time.Time
	errs   int64
	widths []int // of each column: its header's, at least 7
}

const compactMaxOps = 3

func newCompactLine(out io.Writer, plan *workload.StepPlan) *compactLine {
	l := &compactLine{out: out, ops: plan.Step.Ops, prog: newProgress(plan)}
	if plan.Main >= 0 {
		l.shown = append(l.shown, plan.Main)
	}
	for o := range plan.Step.Ops {
		if measure.Op(o) != plan.Main && len(l.shown) < compactMaxOps {
			l.shown = append(l.shown, measure.Op(o))
		}
	}
	l.other = len(plan.Step.Ops) > compactMaxOps
	return l
}

func (l *compactLine) header() {
	cols := []string{"t_sec"}
	for _, o := range l.shown {
		cols = append(cols, l.ops[o].Name+"/s")
	}
	if l.other {
		cols = append(cols, "other/s")
	}
	cols = append(cols, "p99_ms", "max_ms", "errors", "done", "left")
	for _, c := range cols {
		l.widths = append(l.widths, max(7, len(c)))
	}
	fmt.Fprintln(l.out, padTo(cols, l.widths))
}

func (l *compactLine) print(iv *measure.Interval) {
	if l.start.IsZero() {
		l.start = iv.Start
	}
	if !l.start.Equal(iv.Start) && iv.Seconds() < 0.1 {
		// The step's last interval, when it ends just after a tick: its rate over a few
		// milliseconds is noise, and the step's summary follows at once.
		l.prog.add(iv)
		return
	}
	cols := []string{fmt.Sprintf("%.1f", iv.End.Sub(l.start).Seconds())}
	var otherRate float64
	var p99, worst int64
	for o := range iv.Ops {
		a := &iv.Ops[o]
		l.errs += a.Errors
		p99 = max(p99, a.Hist.ValueAtPercentile(99))
		worst = max(worst, a.Hist.Max())
		if !containsOp(l.shown, measure.Op(o)) {
			otherRate += iv.PerSec(measure.Op(o))
		}
	}
	for _, o := range l.shown {
		cols = append(cols, rate(iv.PerSec(o)))
	}
	if l.other {
		cols = append(cols, rate(otherRate))
	}
	pct, left := l.prog.add(iv)
	cols = append(cols, ms(p99), ms(worst), fmt.Sprint(l.errs), pct, left)
	fmt.Fprintln(l.out, padTo(cols, l.widths))
}

func (l *compactLine) finish() {}

// secs prints a duration in seconds, with a decimal below 10 s.
func secs(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%.0fs", d.Seconds())
}

func containsOp(ops []measure.Op, o measure.Op) bool {
	for _, x := range ops {
		if x == o {
			return true
		}
	}
	return false
}

// rate prints a rate with the precision that matters at its size.
func rate(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// ms prints a latency in ms, with three significant digits for small ones.
func ms(ns int64) string {
	v := float64(ns) / 1e6
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// wideLine prints one line a second with the Insert Benchmark's columns, for whatever op types
// the step declared: interval and total rates, the interval's max latency (µs), totals and
// errors per op type (by its abbreviation: i_ips, max_i), then progress.
type wideLine struct {
	out   io.Writer
	ops   []measure.OpType
	prog  progress
	start time.Time
	done  []int64
	errs  []int64
}

func newWideLine(out io.Writer, plan *workload.StepPlan) *wideLine {
	return &wideLine{out: out, ops: plan.Step.Ops, prog: newProgress(plan),
		done: make([]int64, len(plan.Step.Ops)), errs: make([]int64, len(plan.Step.Ops))}
}

func (l *wideLine) header() {
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
	fmt.Fprintln(l.out, pad(h, 9))
}

// pad right-aligns columns in fields of width characters, one space apart.
func pad(cols []string, width int) string {
	widths := make([]int, len(cols))
	for i := range widths {
		widths[i] = width
	}
	return padTo(cols, widths)
}

// padTo right-aligns each column in a field of its own width, one space apart.
func padTo(cols []string, widths []int) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%*s", widths[i], c)
	}
	return b.String()
}

func (l *wideLine) finish() {}

func (l *wideLine) print(iv *measure.Interval) {
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
	pct, left := l.prog.add(iv)
	cols = append(cols, pct, left)
	fmt.Fprintln(l.out, pad(cols, 9))
}

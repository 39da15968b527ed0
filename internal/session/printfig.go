package session

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// lineWidth is the width the end-of-step lines that carry free text are cut to.
const lineWidth = 100

// printErrors prints, per op type that had errors, each kind's count and first message, cut
// to fit one line: a count alone ("errors 3") says nothing about what went wrong.
func printErrors(out io.Writer, s archive.Step, ops []string) {
	for _, name := range ops {
		o := s.Ops[name]
		if o.Errors == 0 {
			continue
		}
		if len(o.ErrorKinds) == 0 { // a run archived before error kinds
			fmt.Fprintf(out, "   errors: %s %d\n", name, o.Errors)
			continue
		}
		for _, l := range errorLines(name, o.Errors, o.ErrorKinds) {
			fmt.Fprintln(out, l)
		}
	}
}

// errorLines are `   errors: query 3 (deadlock 2: "..."; other 1: "...")`, its messages cut
// to fit lineWidth; when that would leave a message fewer than minMessage bytes, one line per
// kind follows the op type's instead, each cut to fit.
func errorLines(name string, n int64, kinds []measure.ErrorCount) []string {
	const minMessage = 24
	build := func(limit int) string {
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d: %q", k.Kind, k.Count, cut(k.First, limit))
		}
		return fmt.Sprintf("   errors: %s %d (%s)", name, n, strings.Join(parts, "; "))
	}
	limit := 0
	for _, k := range kinds {
		limit = max(limit, len(k.First))
	}
	for limit > minMessage && len(build(limit)) > lineWidth {
		limit--
	}
	if line := build(limit); len(line) <= lineWidth {
		return []string{line}
	}
	lines := []string{fmt.Sprintf("   errors: %s %d", name, n)}
	for _, k := range kinds {
		head := fmt.Sprintf("     %s %d: ", k.Kind, k.Count)
		msg := k.First
		for len(msg) > minMessage && len(head)+len(fmt.Sprintf("%q", msg)) > lineWidth {
			msg = cut(k.First, len(msg)-1)
		}
		lines = append(lines, head+fmt.Sprintf("%q", msg))
	}
	return lines
}

// printSentence prints prefix and text in lines of at most lineWidth, broken at spaces, each
// line after the first indented as far as the text (a word longer than a line keeps a line of
// its own).
func printSentence(out io.Writer, prefix, text string) {
	indent := strings.Repeat(" ", len(prefix))
	line := prefix
	for i, w := range strings.Fields(text) {
		if i > 0 && len(line)+1+len(w) > lineWidth {
			fmt.Fprintln(out, line)
			line = indent + w
			continue
		}
		if i > 0 {
			line += " "
		}
		line += w
	}
	fmt.Fprintln(out, line)
}

// cut shortens s to at most n bytes on a rune boundary, ending it with "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n-3, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// printOpenLoop prints what the step's open-loop streams did with their arrivals: offered,
// achieved, dropped and not started, whether a stream was overloaded, and which op types'
// latencies count not-started arrivals' waits (lower bounds).
func printOpenLoop(out io.Writer, s archive.Step, ops []string) {
	o := s.OpenLoop
	line := fmt.Sprintf("   open loop: offered %d (%.1f/s), achieved %d (%.1f/s), dropped %d, not started %d",
		o.Offered, o.OfferedPerSec, o.Achieved, o.AchievedPerSec, o.Dropped, o.NotStarted)
	if o.NotStarted > 0 {
		line += fmt.Sprintf(" (waited up to %s)", micros(o.NotStartedWaitMaxUs))
	}
	if o.Unfinished > 0 {
		line += fmt.Sprintf(", cut off %d", o.Unfinished)
	}
	fmt.Fprintln(out, line)
	if o.Overloaded {
		printSentence(out, "   OVERLOADED: ", o.Why)
	}
	var lower []string
	for _, name := range ops {
		if op := s.Ops[name]; op.LatencyLowerBound {
			lower = append(lower, fmt.Sprintf("%s (%d not started)", name, op.NotStarted))
		}
	}
	if len(lower) > 0 {
		fmt.Fprintf(out, "   latencies are lower bounds, with waits of arrivals never started: %s\n", strings.Join(lower, ", "))
	}
}

// micros prints a duration given in µs in the unit that reads best.
func micros(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.1f ms", us/1e3)
	}
	return fmt.Sprintf("%.0f us", us)
}

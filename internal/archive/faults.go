package archive

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Faults is what a step went through when its target failed or its connections were lost
// (docs/reliability.md): errors by kind over all op types, retried operations, connections
// opened again, and the windows in which the target could not be reached. A step has it in
// summary.json and in run.json's steps when any of these happened.
type Faults struct {
	Errors      map[string]int64 `json:"errors,omitempty"` // by kind: connection_lost, deadlock, ...
	Retries     int64            `json:"retries"`
	Reconnects  int64            `json:"reconnects"`
	Unreachable []Window         `json:"unreachable,omitempty"`
}

// Window is a time without the target: from the first lost connection to the first new one.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitzero"` // zero: the step ended without the target
	// Seconds is End - Start, or up to the step's end when the target never came back.
	Seconds float64 `json:"seconds"`
	// Shard is the shard that was without the target, in a merged run (dbperf merge); nil in
	// a shard's or an unsharded run's own step.
	Shard *int `json:"shard,omitempty"`
}

// String is the step's line about its faults, as dbperf prints it: "faults: connection_lost 8,
// deadlock 2; 10 retries, 6 reconnects; without the target 4.2s from 03:10:01".
func (f *Faults) String() string {
	var b strings.Builder
	b.WriteString("faults:")
	kinds := make([]string, 0, len(f.Errors))
	for k := range f.Errors {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if f.Errors[kinds[i]] != f.Errors[kinds[j]] {
			return f.Errors[kinds[i]] > f.Errors[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	for i, k := range kinds {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s %d", sep, k, f.Errors[k])
	}
	if len(kinds) == 0 {
		b.WriteString(" no errors")
	}
	fmt.Fprintf(&b, "; %d retries, %d reconnects", f.Retries, f.Reconnects)
	for i, w := range f.Unreachable {
		sep := ";"
		if i > 0 {
			sep = ","
		}
		who := ""
		if w.Shard != nil {
			who = fmt.Sprintf(" shard %d", *w.Shard)
		}
		fmt.Fprintf(&b, "%s%s without the target %.1fs from %s", sep, who, w.Seconds, w.Start.Local().Format("15:04:05"))
		if w.End.IsZero() {
			b.WriteString(" to the step's end")
		}
	}
	return b.String()
}

package archive

import (
	"fmt"
	"sort"

	"github.com/dbperf/dbperf/internal/measure"
)

// Figures is what a workload declares about its operations and figures. It is stored in run.json,
// so that the live line, summary, compare and the HTML report are built from the archive alone,
// with no knowledge of any workload.
type Figures struct {
	// Ops are every op type the workload's steps may record, in display order.
	Ops []measure.OpType `json:"ops"`
	// Columns are the workload's own figures in summary and compare, in order.
	Columns []Column `json:"columns"`
	// Gate, if set, is a condition of some steps without which their gated figures do not
	// compare with another run's.
	Gate *Gate `json:"gate,omitempty"`
	// Sums are the step figures (keys of summary.json's workload map) that count what the
	// clients did, which the merge of a sharded run adds up over its shards (docs/scale-out.md);
	// other figures describe the whole run and are the same on every shard.
	Sums []string `json:"sums,omitempty"`
	// InsertPatterns say how each write step inserts into each index, so a reader of
	// write-heavy results knows the index maintenance behind them (docs/insert-benchmark.md).
	InsertPatterns []InsertPattern `json:"insert_patterns,omitempty"`
}

// InsertPattern is how one step inserts into one index, in the Insert Benchmark's code: the
// number of ascending (nAsc) and descending (nDesc) insert streams, whether an ascending one
// inserts at the index's right end (nRHS) and a descending one at its left end (nLHS), or
// "inf" when inserts are random with respect to the index. Pattern holds the code without its
// parentheses, attributes that are 0 left out: "nAsc:1, nRHS:1", "inf".
type InsertPattern struct {
	Step    string `json:"step"`
	Table   string `json:"table"`
	Index   string `json:"index"`
	Pattern string `json:"pattern"`
}

// StepPatterns are the insert patterns declared for a step, in declaration order.
func (f Figures) StepPatterns(step string) []InsertPattern {
	var out []InsertPattern
	for _, p := range f.InsertPatterns {
		if p.Step == step {
			out = append(out, p)
		}
	}
	return out
}

// declared are the workloads' declarations by workload name (run.json's "workload"), for runs
// archived before run.json carried its figures.
var declared = map[string]Figures{}

// Declare registers a workload's declaration under its name; each workload calls it from init.
func Declare(workload string, f Figures) { declared[workload] = f }

// Declarations are every registered workload's declaration, by workload name.
func Declarations() []Figures {
	names := make([]string, 0, len(declared))
	for n := range declared {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Figures, len(names))
	for i, n := range names {
		out[i] = declared[n]
	}
	return out
}

// Declared is the declaration a workload registered, if it did.
func Declared(workload string) (Figures, bool) {
	f, ok := declared[workload]
	return f, ok
}

// Direction says whether a higher value of a figure is better or worse.
type Direction string

// The directions of figures.
const (
	HigherIsBetter Direction = "higher"
	LowerIsBetter  Direction = "lower"
)

// The statistics of an op type a Column may show, as read from summary.json's ops.
const (
	StatPerSec = "per_sec"
	StatP50    = "p50"
	StatP99    = "p99"
	StatP999   = "p99.9"
	StatMax    = "max"
)

// Column is one figure of an op type: a rate or a latency percentile.
type Column struct {
	Name string `json:"name"` // e.g. "ips", "q_p99"
	// Key, if set, makes the column a figure of the step as a whole, read from summary.json's
	// "workload" map (a key-value step's w_amp); Op and Stat are then unused.
	Key string `json:"key,omitempty"`
	// Format prints the figure (fmt verbs); "%.0f" when empty.
	Format  string    `json:"format,omitempty"`
	Op      string    `json:"op"`
	Stat    string    `json:"stat"`
	Better  Direction `json:"better"`
	Summary bool      `json:"summary,omitempty"` // a column of `dbperf summary`
	Compare bool      `json:"compare,omitempty"` // a row of `dbperf compare`
	Gated   bool      `json:"gated,omitempty"`   // not comparable when the step's gate fails
	// Headline marks a main figure of the workload: `dbperf summary` shows it by default, the
	// others only with --wide.
	Headline bool `json:"headline,omitempty"`
	// Help says what the figure is, in a sentence, for `dbperf summary --explain` and the
	// report's legends.
	Help string `json:"help,omitempty"`
}

// Print formats a value of the column.
func (c Column) Print(v float64) string {
	if c.Format == "" {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf(c.Format, v)
}

// Value reads the column's figure from a step; ok is false when the step lacks it (a latency
// of an op that ran no statement).
func (c Column) Value(s Step) (float64, bool) {
	if c.Key != "" {
		v, ok := s.Workload[c.Key].(float64)
		return v, ok
	}
	o, found := s.Ops[c.Op]
	if !found {
		return 0, false
	}
	if c.Stat == StatPerSec {
		return o.PerSec, true
	}
	if o.Statements == 0 {
		return 0, false
	}
	switch c.Stat {
	case StatP50:
		return o.P50Us, true
	case StatP99:
		return o.P99Us, true
	case StatP999:
		return o.P999Us, true
	case StatMax:
		return o.MaxUs, true
	}
	return 0, false
}

// Gate is a pass/fail condition of a step, read from its workload figures: the Insert
// Benchmark's q steps must hold 95% of their insert rate for their query figures to compare.
type Gate struct {
	Column   string `json:"column"`   // the summary column showing achieved/target, e.g. "i_target"
	Met      string `json:"met"`      // key of a bool: the condition held
	Achieved string `json:"achieved"` // key of the achieved value
	Target   string `json:"target"`   // key of the target value
}

// Applies tells whether the step has the gate's condition.
func (g *Gate) Applies(s Step) bool {
	if g == nil {
		return false
	}
	_, found := s.Workload[g.Met].(bool)
	return found
}

// Failed tells whether the step has the condition and missed it.
func (g *Gate) Failed(s Step) bool {
	if g == nil {
		return false
	}
	met, found := s.Workload[g.Met].(bool)
	return found && !met
}

// OpNames are the step's op names in the declared order.
func (f Figures) OpNames(s Step) []string {
	var names []string
	for _, o := range f.Ops {
		if _, ok := s.Ops[o.Name]; ok {
			names = append(names, o.Name)
		}
	}
	return names
}

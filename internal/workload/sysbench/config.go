package sysbench

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/workload"
)

// Name is the workload's name in run.json and on the command line.
const Name = "sysbench"

// The steps: sysbench's `TEST prepare` and `TEST run`.
const (
	StepPrepare = "prepare"
	StepRun     = "run"
)

// Tests are the OLTP scripts of sysbench 1.0.20 (oltp_*.lua), by their names without oltp_.
var Tests = []string{"read_write", "read_only", "write_only", "point_select", "update_index", "update_non_index", "insert", "delete"}

// Query modes: sysbench's --db-ps-mode auto (server-side prepared statements, its default) is
// dbperf's "prepared"; --db-ps-mode disable (values written into the text) is "simple".
const (
	QueryPrepared = "prepared"
	QuerySimple   = "simple"
)

// Config holds oltp_common.lua's options (oltp_common.lua:33-77), sysbench's general ones and
// dbperf's run settings. Defaults are sysbench 1.0.20's.
type Config struct {
	Test            string
	Tables          int   // --tables; 1
	TableSize       int64 // --table-size; 10000
	RangeSize       int64 // --range-size; 100
	PointSelects    int   // --point-selects; 10 (1 in point_select)
	SimpleRanges    int   // --simple-ranges; 1
	SumRanges       int   // --sum-ranges; 1
	OrderRanges     int   // --order-ranges; 1
	DistinctRanges  int   // --distinct-ranges; 1
	IndexUpdates    int   // --index-updates; 1
	NonIndexUpdates int   // --non-index-updates; 1
	DeleteInserts   int   // --delete-inserts; 1
	RangeSelects    bool  // --range-selects; on
	AutoInc         bool  // --auto-inc; on
	SkipTrx         bool  // --skip-trx; off
	CreateSecondary bool  // --create-secondary; on
	Rand            RandConfig
	Threads         int           // --threads; 1
	Events          int64         // --events: events of the run step in all; 0, no limit
	Duration        time.Duration // --time: the run step's length; 10 s
	QueryMode       string        // prepared (--db-ps-mode auto) or simple (disable)
	IgnoreErrors    []uint16      // --mysql-ignore-errors: 1213, 1020, 1205
	IgnoreAll       bool          // --mysql-ignore-errors all
	Steps           []string
	Seed            uint64
	// ThreadFrom and ThreadTo are a shard's threads (--shard), [from, to) of --threads; 0, 0:
	// all. Sharded leaves out the checks a shard cannot make (the rows all shards inserted).
	ThreadFrom, ThreadTo int
	Sharded              bool
	Arrival              workload.Arrival
}

// DefaultConfig is oltp_read_write with sysbench's defaults.
func DefaultConfig() Config {
	return Config{Test: "read_write", Tables: 1, TableSize: 10000, RangeSize: 100, PointSelects: 10,
		SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1, IndexUpdates: 1, NonIndexUpdates: 1,
		DeleteInserts: 1, RangeSelects: true, AutoInc: true, CreateSecondary: true, Rand: DefaultRand(),
		Threads: 1, Duration: 10 * time.Second, QueryMode: QueryPrepared, IgnoreErrors: []uint16{1213, 1020, 1205},
		Steps: []string{StepPrepare, StepRun}}
}

// SetTest sets the test by its name, with or without oltp_ and .lua.
func (c *Config) SetTest(name string) error {
	n := strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(name), "oltp_"), ".lua")
	for _, t := range Tests {
		if n == t {
			c.Test = t
			return nil
		}
	}
	return fmt.Errorf("unknown test %q: give one of %s (sysbench's oltp_*.lua)", name, strings.Join(Tests, ", "))
}

// Validate reports every problem at once.
func (c *Config) Validate() error {
	var errs []error
	if err := c.SetTest(c.Test); err != nil {
		errs = append(errs, err)
	}
	if c.Tables < 1 {
		errs = append(errs, fmt.Errorf("--tables must be at least 1 (got %d)", c.Tables))
	}
	if c.TableSize < 1 || c.TableSize > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("--table-size must be 1 to %d (got %d)", math.MaxInt32, c.TableSize))
	}
	if c.RangeSize < 1 {
		errs = append(errs, fmt.Errorf("--range-size must be at least 1 (got %d)", c.RangeSize))
	}
	for _, n := range []int{c.PointSelects, c.SimpleRanges, c.SumRanges, c.OrderRanges, c.DistinctRanges, c.IndexUpdates, c.NonIndexUpdates, c.DeleteInserts} {
		if n < 0 {
			errs = append(errs, errors.New("the statement counts (--point-selects ... --delete-inserts) must be 0 or more"))
			break
		}
	}
	if err := c.Rand.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Threads < 1 {
		errs = append(errs, fmt.Errorf("--threads must be at least 1 (got %d)", c.Threads))
	}
	if c.Events < 0 || c.Events == 0 && c.Duration <= 0 {
		errs = append(errs, errors.New("give --events or --time (seconds) above 0"))
	}
	if c.QueryMode != QueryPrepared && c.QueryMode != QuerySimple {
		errs = append(errs, fmt.Errorf("--query-mode %q: give prepared (sysbench's --db-ps-mode auto) or simple (--db-ps-mode disable)", c.QueryMode))
	}
	if len(c.Steps) == 0 {
		errs = append(errs, errors.New("--steps is empty: give prepare, run or both"))
	}
	for _, s := range c.Steps {
		if s != StepPrepare && s != StepRun {
			errs = append(errs, fmt.Errorf("unknown step %q: the steps are prepare and run", s))
		}
	}
	return errors.Join(errs...)
}

// Counts are the statements of one event, by kind, as the test's event() runs them.
type Counts struct {
	Trx                                                         bool // BEGIN ... COMMIT around them
	PointSelects, SimpleRanges, SumRanges, OrderRanges          int
	DistinctRanges, IndexUpdates, NonIndexUpdates, DeleteInsert int
	Insert, Delete                                              bool // oltp_insert's, oltp_delete's one statement
}

// Event is the test's event body (oltp_*.lua:24-65).
func (c *Config) Event() Counts {
	var e Counts
	ranges := func() {
		if c.RangeSelects {
			e.SimpleRanges, e.SumRanges, e.OrderRanges, e.DistinctRanges = c.SimpleRanges, c.SumRanges, c.OrderRanges, c.DistinctRanges
		}
	}
	writes := func() {
		e.IndexUpdates, e.NonIndexUpdates, e.DeleteInsert = c.IndexUpdates, c.NonIndexUpdates, c.DeleteInserts
	}
	switch c.Test {
	case "read_write":
		e.Trx, e.PointSelects = !c.SkipTrx, c.PointSelects
		ranges()
		writes()
	case "read_only":
		e.Trx, e.PointSelects = !c.SkipTrx, c.PointSelects
		ranges()
	case "write_only":
		e.Trx = !c.SkipTrx
		writes()
	case "point_select":
		e.PointSelects = 1 // oltp_point_select.lua:25-27 forces 1
	case "update_index":
		e.IndexUpdates = c.IndexUpdates
	case "update_non_index":
		e.NonIndexUpdates = c.NonIndexUpdates
	case "insert":
		e.Insert = true
	case "delete":
		e.Delete = true
	}
	return e
}

// Statements is the event's statements in all, BEGIN and COMMIT included.
func (e Counts) Statements() int {
	n := e.PointSelects + e.SimpleRanges + e.SumRanges + e.OrderRanges + e.DistinctRanges + e.IndexUpdates + e.NonIndexUpdates + 2*e.DeleteInsert
	if e.Trx {
		n += 2
	}
	if e.Insert || e.Delete {
		n++
	}
	return n
}

// KeepsRows says whether the test leaves every table at --table-size rows.
func (c *Config) KeepsRows() bool { return c.Test != "insert" && c.Test != "delete" }

// LoadRows is the rows prepare loads per table: none for insert with --auto-inc off
// (oltp_insert.lua:24-36), else --table-size.
func (c *Config) LoadRows() int64 {
	if c.Test == "insert" && !c.AutoInc {
		return 0
	}
	return c.TableSize
}

// Used are the statements the event runs, which a connection prepares (prepare_statements in
// each oltp_*.lua; oltp_insert prepares none).
func (e Counts) Used() []Stmt {
	var out []Stmt
	add := func(ok bool, s ...Stmt) {
		if ok {
			out = append(out, s...)
		}
	}
	add(e.Trx, Begin, Commit)
	add(e.PointSelects > 0, PointSelect)
	add(e.SimpleRanges > 0, SimpleRange)
	add(e.SumRanges > 0, SumRange)
	add(e.OrderRanges > 0, OrderRange)
	add(e.DistinctRanges > 0, DistinctRange)
	add(e.IndexUpdates > 0, IndexUpdate)
	add(e.NonIndexUpdates > 0, NonIndexUpdate)
	add(e.DeleteInsert > 0, Delete, Insert)
	add(e.Delete, Delete)
	return out
}

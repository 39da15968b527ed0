package insertbench

import (
	"fmt"
	"slices"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// The Insert Benchmark's op types, with the reference's one-letter abbreviations (i_ips, max_q).
var (
	opInsert = measure.OpType{Name: "insert", Unit: "rows", Abbrev: "i"}
	opDelete = measure.OpType{Name: "delete", Unit: "rows", Abbrev: "d"}
	opQuery  = measure.OpType{Name: "query", Unit: "queries", Abbrev: "q"}
	opIndex  = measure.OpType{Name: "index", Unit: "rows", Abbrev: "x"}
	opSettle = measure.OpType{Name: "settle", Unit: "tables", Abbrev: "s"}
)

// Keys of the q steps' figures in summary.json: the inserts' target and achieved rates (rows a
// second, all clients) and whether they held 95% of the target.
const (
	keyTarget   = "insert_target_per_sec"
	keyAchieved = "insert_achieved_per_sec"
	keyMet      = "insert_target_met"
)

// Name is the workload's name in run.json and on the command line.
const Name = "insert"

func init() { archive.Declare(Name, Declaration()) }

// Figures implements workload.Workload: Declaration and the configured steps' insert patterns.
func (b *Bench) Figures() archive.Figures {
	f := Declaration()
	f.InsertPatterns = b.cfg.InsertPatterns()
	return f
}

// InsertPatterns are how the configured steps insert into each index (docs/insert-benchmark.md,
// "Insert patterns"). Each inserter appends ids in ascending order at the primary key's right
// end; the clients of a shared table take their ids from one counter, so they are one stream,
// and with a table per client each table has its own. Values of the secondary indexes'
// leading columns are uniform: random with respect to each. l.x's rows reach the primary key
// only (the indexes are built after them); deletes, settle and cleanup insert nothing.
func (c Config) InsertPatterns() []archive.InsertPattern {
	table := "pi1"
	if !c.SharedTable && c.Clients > 1 {
		table = fmt.Sprintf("pi1..pi%d, each", c.Clients)
	}
	// The secondary indexes exist after l.x, or in tables an earlier run loaded.
	indexed := !slices.Contains(c.Steps, "l.i0")
	var out []archive.InsertPattern
	for _, step := range c.Steps {
		info, err := parseStep(step)
		if err != nil {
			continue
		}
		switch info.kind {
		case kindLoad, kindIndex, kindInsertDelete, kindQuery:
			out = append(out, archive.NewInsertPattern(step, table, "pk", archive.Ascending(1, true)))
		}
		if info.kind == kindIndex {
			indexed = true
		}
		if indexed && (info.kind == kindInsertDelete || info.kind == kindQuery) {
			for _, idx := range indexNames {
				out = append(out, archive.NewInsertPattern(step, table, idx, archive.Random))
			}
		}
	}
	return out
}

// Declaration is what the Insert Benchmark declares to the archive and the reports: its op types
// and the reference's summary figures. Query figures of a q step whose inserts missed 95% of
// their target are not comparable (the reference's rule: the DBMS did less write work than the
// other's).
func Declaration() archive.Figures {
	col := func(name, op, stat string, better archive.Direction, compare, gated, headline bool, help string) archive.Column {
		return archive.Column{Name: name, Op: op, Stat: stat, Better: better, Summary: true, Compare: compare, Gated: gated,
			Headline: headline, Help: help}
	}
	const hi, lo = archive.HigherIsBetter, archive.LowerIsBetter
	return archive.Figures{
		Ops: []measure.OpType{opInsert, opDelete, opQuery, opIndex, opSettle},
		Columns: []archive.Column{
			col("ips", "insert", archive.StatPerSec, hi, true, false, true, "rows inserted per second, all clients"),
			col("dps", "delete", archive.StatPerSec, hi, true, false, false, "rows deleted per second, all clients (q steps keep the table's size)"),
			col("qps", "query", archive.StatPerSec, hi, true, true, true, "range queries per second, all clients"),
			col("xps", "index", archive.StatPerSec, hi, true, false, false, "rows indexed per second while the secondary indexes are built (l.x)"),
			col("i_p50", "insert", archive.StatP50, lo, false, false, false, "median latency of an insert statement (a batch of rows), µs"),
			col("i_p99", "insert", archive.StatP99, lo, true, false, true, "99th percentile latency of an insert statement (a batch of rows), µs"),
			col("i_max", "insert", archive.StatMax, lo, false, false, false, "worst latency of an insert statement, µs"),
			col("d_p99", "delete", archive.StatP99, lo, false, false, false, "99th percentile latency of a delete statement, µs"),
			col("q_p50", "query", archive.StatP50, lo, true, true, false, "median latency of a range query, µs"),
			col("q_p99", "query", archive.StatP99, lo, true, true, true, "99th percentile latency of a range query, µs"),
			col("q_p99.9", "query", archive.StatP999, lo, true, true, false, "99.9th percentile latency of a range query, µs"),
			col("q_max", "query", archive.StatMax, lo, false, true, false, "worst latency of a range query, µs"),
		},
		Gate: &archive.Gate{Column: "i_target", Met: keyMet, Achieved: keyAchieved, Target: keyTarget},
	}
}

package kv

import (
	"strings"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// The op types of the key-value steps. A multiget op is a batch: it counts multiGetBatch keys and
// one latency sample, as db_bench's multireadrandom.
var (
	opPut      = measure.OpType{Name: "put", Unit: "keys", Abbrev: "w"}
	opGet      = measure.OpType{Name: "get", Unit: "keys", Abbrev: "r"}
	opMultiGet = measure.OpType{Name: "multiget", Unit: "keys", Abbrev: "m"}
	opFwdRange = measure.OpType{Name: "fwdrange", Unit: "seeks", Abbrev: "f"}
	opRevRange = measure.OpType{Name: "revrange", Unit: "seeks", Abbrev: "v"}
	opMaintain = measure.OpType{Name: "maintain", Unit: "actions", Abbrev: "x"}
	opWait     = measure.OpType{Name: "compaction_wait", Unit: "waits", Abbrev: "c"}
)

// Name is the workload's name in run.json and on the command line.
const Name = "kv"

func init() { archive.Declare(Name, Declaration()) }

// Figures implements workload.Workload: Declaration and the configured steps' insert patterns.
func (b *Bench) Figures() archive.Figures {
	f := Declaration()
	f.InsertPatterns = b.cfg.InsertPatterns()
	return f
}

// InsertPatterns are how the configured steps write keys (docs/kv.md, "Insert patterns"):
// fillseq's one filler puts keys 0..keys-1 in order, at the right end of a new database; the
// overwriters and the whilewriting steps' writer put keys drawn uniformly or zipfian, random
// with respect to the key order. The other steps only read (flush_mt_l0 writes no key).
func (c Config) InsertPatterns() []archive.InsertPattern {
	var out []archive.InsertPattern
	for _, step := range c.Steps {
		switch {
		case step == FillSeq:
			out = append(out, archive.NewInsertPattern(step, "kv", "key", archive.Ascending(1, true)))
		case step == OverwriteSome, step == OverwriteAndWait, strings.HasSuffix(step, "whilewriting"):
			out = append(out, archive.NewInsertPattern(step, "kv", "key", archive.Random))
		}
	}
	return out
}

// Declaration is what the key-value benchmark declares to the archive and the reports: rates and
// latencies per op type, and the whilewriting steps' gate on their writer (w_target), without
// which their read figures (and ops_sec, their reads') do not compare. The reference's engine columns (lsm_sz, w_amp, stall%, ...) are step
// figures in summary.json's "workload" map, which `dbperf run kv` prints as the reference's row.
func Declaration() archive.Figures {
	const hi, lo = archive.HigherIsBetter, archive.LowerIsBetter
	col := func(name, op, stat string, better archive.Direction, compare bool) archive.Column {
		// The compact summary shows the step's figures below and the p99 of puts and gets.
		headline := name == "w_p99" || name == "r_p99"
		return archive.Column{Name: name, Op: op, Stat: stat, Better: better, Summary: true, Compare: compare, Headline: headline,
			Gated: op != opPut.Name && op != opWait.Name}
	}
	// step is a figure of the step as a whole, from summary.json's workload map.
	step := func(name, key, format string, better archive.Direction, help string) archive.Column {
		return archive.Column{Name: name, Key: key, Format: format, Better: better, Summary: true, Compare: true, Help: help, Headline: true,
			Gated: key == "ops_sec"}
	}
	return archive.Figures{
		Ops: []measure.OpType{opPut, opGet, opMultiGet, opFwdRange, opRevRange, opMaintain, opWait},
		Columns: []archive.Column{
			col("w_ops", "put", archive.StatPerSec, hi, true),
			col("r_ops", "get", archive.StatPerSec, hi, true),
			col("m_ops", "multiget", archive.StatPerSec, hi, true),
			col("f_ops", "fwdrange", archive.StatPerSec, hi, true),
			col("v_ops", "revrange", archive.StatPerSec, hi, true),
			col("w_p50", "put", archive.StatP50, lo, false),
			col("w_p99", "put", archive.StatP99, lo, true),
			col("w_max", "put", archive.StatMax, lo, false),
			col("r_p50", "get", archive.StatP50, lo, true),
			col("r_p99", "get", archive.StatP99, lo, true),
			col("r_p99.9", "get", archive.StatP999, lo, true),
			col("r_max", "get", archive.StatMax, lo, false),
			col("m_p99", "multiget", archive.StatP99, lo, true),
			col("f_p99", "fwdrange", archive.StatP99, lo, true),
			col("v_p99", "revrange", archive.StatP99, lo, true),
			col("c_max", "compaction_wait", archive.StatMax, lo, false),
			step("ops_sec", "ops_sec", "%.0f", hi, "the reference's ops_sec: the step's main operations a second, as db_bench counts them"),
			step("lsm_bytes", colLSM, "%.0f", lo, "the LSM's (or the B-tree file's) size at the step's end, bytes"),
			step("w_amp", colWAmp, "%.2f", lo, "write amplification: bytes written by flushes and compactions / bytes the step's writes ingested"),
			step("stall_pct", colStallPct, "%.1f", lo, "time writes were held back by the engine, % of the step"),
		},
		// The whilewriting steps' readers compare only when their writer held 95% of its rate.
		Gate: &archive.Gate{Column: "w_target", Met: keyWriterMet, Achieved: keyWriterAchieved, Target: keyWriterTarget},
	}
}

// Keys of the whilewriting steps' writer gate in summary.json: the writer's target and achieved
// KiB/s of key+value, and whether it held writerGateShare of the target.
const (
	keyWriterTarget   = "writer_target_kib_sec"
	keyWriterAchieved = "writer_kib_sec"
	keyWriterMet      = "writer_target_met"
	writerGateShare   = 0.95
)

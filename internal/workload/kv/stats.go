package kv

import (
	"math"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
)

// The reference's per-step summary columns from an engine's statistics (docs/kv.md defines
// each). before and after are the engine's counters (kvdriver.Monitored) when the step began and
// when its work ended; the engine was reopened for the step, but differences are taken anyway, so
// that process-wide counters (Badger's) count this step only. A column the engine cannot supply
// is left out, never estimated.
const (
	colLSM       = "lsm_sz_bytes"  // tables of the LSM (or the B-tree file) at the step's end
	colBlob      = "blob_sz_bytes" // value log or blob files at the step's end
	colCWGB      = "c_wgb"         // GiB written by flushes and compactions during the step
	colWAmp      = "w_amp"         // c_wgb bytes / bytes the step's writes ingested
	colCMBps     = "c_mbps"        // c_wgb in MiB per second of the step
	colCWSecs    = "c_wsecs"       // seconds of compaction work during the step
	colStallPct  = "stall_pct"     // time writes were held back, % of the step
	colNStall    = "nstall"        // times writes were held back
	colIngest    = "ingest_bytes"  // key+value bytes the step's writes put
	bytesPerGiB  = 1 << 30
	bytesPerMiB  = 1 << 20
	roundDigits  = 4
	percentScale = 100
)

// engineColumns computes the engine columns of a step that lasted seconds and whose writes put
// ingest bytes of key+value.
func engineColumns(before, after map[string]float64, ingest, seconds float64) map[string]any {
	out := map[string]any{colIngest: ingest}
	delta := func(name string) (float64, bool) {
		a, ok := after[name]
		if !ok {
			return 0, false
		}
		return a - before[name], true
	}
	if v, ok := after[kvdriver.CounterTablesBytes]; ok {
		out[colLSM] = v
	}
	if v, ok := after[kvdriver.CounterBlobBytes]; ok {
		out[colBlob] = v
	}
	flushed, okF := delta(kvdriver.CounterFlushBytes)
	compacted, okC := delta(kvdriver.CounterCompactionBytes)
	if okF || okC {
		written := flushed + compacted
		out[colCWGB] = round(written / bytesPerGiB)
		if ingest > 0 {
			out[colWAmp] = round(written / ingest)
		}
		if seconds > 0 {
			out[colCMBps] = round(written / bytesPerMiB / seconds)
		}
	}
	if v, ok := delta(kvdriver.CounterCompactionSeconds); ok {
		out[colCWSecs] = round(v)
	}
	if v, ok := delta(kvdriver.CounterStallSeconds); ok && seconds > 0 {
		out[colStallPct] = round(v / seconds * percentScale)
	}
	if v, ok := delta(kvdriver.CounterStalls); ok {
		out[colNStall] = v
	}
	return out
}

// round keeps roundDigits significant decimals, so summary.json stays readable.
func round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	scale := math.Pow(10, float64(roundDigits-1-int(math.Floor(math.Log10(math.Abs(v))))))
	return math.Round(v*scale) / scale
}

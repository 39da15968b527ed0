//go:build rocksdb

package kvdriver

import (
	"regexp"
	"strconv"
	"strings"
)

// Counters are RocksDB's running totals since open (flush_bytes, compaction_write_bytes,
// compaction_seconds, write_stall_seconds, ...) and properties (gauges: tables_bytes,
// blob_bytes, l0_files, compaction_debt_bytes, running_compactions, memtable_bytes,
// block_cache_bytes). With statistics off (db_bench's --statistics=0, the key-value workload's
// setups) the totals come from the stats dump that benchmark.sh parses, at its precision
// (flushes to 1 MB, compactions to 10 MB, benchmark.sh:564-596); with statistics on, from the
// tickers, exactly.
func (e *rocksEngine) Counters() (map[string]float64, error) {
	var c map[string]float64
	if e.stats {
		c = rocksTickerCounters(rocksTickers(e.opts.GetStatisticsString()))
	} else {
		c = rocksDumpCounters(e.db.GetProperty("rocksdb.stats"))
	}
	for name, prop := range map[string]string{
		CounterTablesBytes: "rocksdb.live-sst-files-size", CounterBlobBytes: "rocksdb.total-blob-file-size",
		"l0_files": "rocksdb.num-files-at-level0", "compaction_debt_bytes": "rocksdb.estimate-pending-compaction-bytes",
		"running_compactions": "rocksdb.num-running-compactions", "memtable_bytes": "rocksdb.cur-size-all-mem-tables",
		"block_cache_bytes": "rocksdb.block-cache-usage",
	} {
		if v, ok := e.db.GetIntProperty(prop); ok {
			c[name] = float64(v)
		}
	}
	return c, nil
}

func rocksTickerCounters(t map[string]float64) map[string]float64 {
	return map[string]float64{
		CounterFlushBytes:        t["rocksdb.flush.write.bytes"],
		CounterCompactionBytes:   t["rocksdb.compact.write.bytes"],
		"compaction_read_bytes":  t["rocksdb.compact.read.bytes"],
		"bytes_written":          t["rocksdb.bytes.written"],
		"wal_bytes":              t["rocksdb.wal.bytes"],
		CounterStallSeconds:      t["rocksdb.stall.micros"] / 1e6,
		"block_cache_hits":       t["rocksdb.block.cache.hit"],
		"block_cache_misses":     t["rocksdb.block.cache.miss"],
		CounterCompactionSeconds: t["rocksdb.compaction.times.micros.sum"] / 1e6,
	}
}

var (
	dumpFlush      = regexp.MustCompile(`Flush\(GB\): cumulative ([0-9.]+)`)
	dumpCompaction = regexp.MustCompile(`Cumulative compaction: ([0-9.]+) GB write, [0-9.]+ MB/s write, ([0-9.]+) GB read`)
	dumpIngest     = regexp.MustCompile(`Cumulative writes: .* ingest: ([0-9.]+) GB`)
	dumpWAL        = regexp.MustCompile(`Cumulative WAL: .* written: ([0-9.]+) GB`)
	dumpStall      = regexp.MustCompile(`Cumulative stall: ([0-9]+):([0-9]+):([0-9.]+) H:M:S`)
)

// rocksDumpCounters reads the "rocksdb.stats" dump: its cumulative lines (the first match, the
// DB's), and the Sum row's Comp(sec) (field 15, as benchmark.sh counts) of the first compaction stats table. Its
// "Cumulative compaction" includes flushes (booked as L0 compactions), taken out here.
func rocksDumpCounters(dump string) map[string]float64 {
	const gib = 1 << 30
	num := func(re *regexp.Regexp, i int) float64 {
		m := re.FindStringSubmatch(dump)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[i], 64)
		return v
	}
	flush := num(dumpFlush, 1) * gib
	c := map[string]float64{
		CounterFlushBytes:       flush,
		CounterCompactionBytes:  max(0, num(dumpCompaction, 1)*gib-flush),
		"compaction_read_bytes": num(dumpCompaction, 2) * gib,
		"bytes_written":         num(dumpIngest, 1) * gib,
		"wal_bytes":             num(dumpWAL, 1) * gib,
		CounterStallSeconds:     num(dumpStall, 1)*3600 + num(dumpStall, 2)*60 + num(dumpStall, 3),
	}
	for _, line := range strings.Split(dump, "\n") {
		f := strings.Fields(line)
		if len(f) > 15 && f[0] == "Sum" {
			if v, err := strconv.ParseFloat(f[14], 64); err == nil {
				c[CounterCompactionSeconds] = v
			}
			break
		}
	}
	return c
}

// rocksTickers reads Statistics::ToString: "name COUNT : n" for tickers, and
// "name P50 : .. COUNT : n SUM : s" for histograms (as name.count and name.sum).
func rocksTickers(s string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		name := f[0]
		if len(f) == 4 && f[1] == "COUNT" {
			if v, err := strconv.ParseFloat(f[3], 64); err == nil {
				out[name] = v
			}
			continue
		}
		for i := 1; i+2 < len(f); i++ {
			if (f[i] == "COUNT" || f[i] == "SUM") && f[i+1] == ":" {
				if v, err := strconv.ParseFloat(f[i+2], 64); err == nil {
					out[name+"."+strings.ToLower(f[i])] = v
				}
			}
		}
	}
	return out
}

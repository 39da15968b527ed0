//go:build rocksdb

package kvdriver

import (
	"strconv"
	"strings"
)

// rocksIntProperties are RocksDB's integer properties sampled each second (all levels,
// RocksDB's include/rocksdb/db.h), besides the file count of each level.
var rocksIntProperties = []string{
	"rocksdb.num-immutable-mem-table", "rocksdb.num-immutable-mem-table-flushed",
	"rocksdb.mem-table-flush-pending", "rocksdb.num-running-flushes", "rocksdb.compaction-pending",
	"rocksdb.num-running-compactions", "rocksdb.background-errors", "rocksdb.cur-size-active-mem-table",
	"rocksdb.cur-size-all-mem-tables", "rocksdb.size-all-mem-tables", "rocksdb.num-entries-active-mem-table",
	"rocksdb.num-entries-imm-mem-tables", "rocksdb.num-deletes-active-mem-table",
	"rocksdb.num-deletes-imm-mem-tables", "rocksdb.estimate-num-keys", "rocksdb.estimate-table-readers-mem",
	"rocksdb.num-snapshots", "rocksdb.num-live-versions", "rocksdb.estimate-live-data-size",
	"rocksdb.min-log-number-to-keep", "rocksdb.total-sst-files-size", "rocksdb.live-sst-files-size",
	"rocksdb.estimate-pending-compaction-bytes", "rocksdb.actual-delayed-write-rate",
	"rocksdb.is-write-stopped", "rocksdb.block-cache-capacity", "rocksdb.block-cache-usage",
	"rocksdb.block-cache-pinned-usage", "rocksdb.total-blob-file-size", "rocksdb.live-blob-file-size",
}

// rocksLevels is how many levels' file counts are read (RocksDB's default num_levels).
const rocksLevels = 7

// AllCounters are every statistics ticker when statistics are on (rocksdb.*, running totals), each histogram's count
// and sum (rocksdb.*.count, .sum), and rocksIntProperties and rocksdb.num-files-at-levelN
// (gauges).
func (e *rocksEngine) AllCounters() (map[string]float64, error) {
	out := map[string]float64{}
	if e.stats { // without statistics there are no tickers to read
		out = rocksTickers(e.opts.GetStatisticsString())
	}
	for _, p := range rocksIntProperties {
		if v, ok := e.db.GetIntProperty(p); ok {
			out[p] = float64(v)
		}
	}
	for l := range rocksLevels {
		p := "rocksdb.num-files-at-level" + strconv.Itoa(l)
		if v, err := strconv.ParseFloat(strings.TrimSpace(e.db.GetProperty(p)), 64); err == nil {
			out[p] = v
		}
	}
	return out, nil
}

// Gauges: the properties; the tickers and histograms are running totals.
func (e *rocksEngine) Gauges() []string {
	return append([]string{"rocksdb.num-files-at-level*"}, rocksIntProperties...)
}

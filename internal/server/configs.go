package server

import (
	"fmt"
	"strconv"
	"strings"
)

// The named configs reproduce the published Insert Benchmark setups of mdcallag/mytools
// (bench/conf/, read at commit e1ba3d9e). In each published pair the only differences between
// "cached by the DBMS" and "cached by the OS" are the DBMS's cache (10G vs 1G, a tenth) and, for
// InnoDB, O_DIRECT vs buffered IO; everything else (durability, binlog, redo/WAL, RocksDB's
// table options) is the same in both. Each setting carries its source as a comment in the
// written config file, so that a run's server config says where every value comes from.
//
// Deliberate differences, each for this host rather than for the benchmark: the by-DBMS cache is
// 4G (the published 10G needs a 16+ GB host; what matters is that it holds the database), the
// InnoDB redo log is 1G (the published 15G is preallocated on disk), and MariaDB 10.11 lacks a
// few of the published variables (noted where they are replaced).

// setting is one line of a server's config with where it comes from.
type setting struct {
	line, source string
}

// Source files of the published configs (bench/conf/... in mdcallag/mytools).
const (
	srcInno   = "nuc8i7.ub1804/my57/my.cnf.cy10a_bee"                // InnoDB, cached by DBMS
	srcInnoOS = "nuc8i7.ub1804/my57/my.cnf.cy10a_1g_bee"             // InnoDB, cached by OS
	srcMaria  = "arc/apr24.maria.ser4/ma110401_rel/my.cnf.cz11b_bee" // MariaDB 11.4 (InnoDB)
	srcRocks  = "nuc8i7.ub1804/fbmy56/etc/my.cnf.cy10_bee"           // MyRocks, cached by DBMS
	srcRockOS = "nuc8i7.ub1804/fbmy56/etc/my.cnf.cy10_1g_bee"        // MyRocks, cached by OS
	srcPG     = "nuc8i7.ub1804/pg15/conf.diff.cx8_bee"               // Postgres, cached by DBMS
	srcPGOS   = "arc/aug23.bee.pg15.tune/conf.diff.cx8_1g_bee"       // Postgres, cached by OS
)

// DBMSCacheSize is the DBMS's cache in cached-by-dbms, in MB; cached-by-os uses a tenth of it
// by default (the published ratio: 10G vs 1G, cy10a_bee:42 vs cy10a_1g_bee:42), or the size
// given as cached-by-os:SIZE.
const (
	DBMSCacheSize = 4096
	OSCacheSize   = DBMSCacheSize / 10
)

// common are the settings both configs share, per kind.
var common = map[string][]setting{
	"postgres": {
		{"max_parallel_workers_per_gather = 0", srcPG + ":2"},
		{"max_parallel_workers = 0", srcPG + ":3"},
		{"wal_sync_method = fdatasync", srcPG + ":5"},
		{"wal_level = replica", srcPG + ":6"},
		{"full_page_writes = on", srcPG + ":7"},
		{"track_io_timing = on", srcPG + ":8"},
		{"synchronous_commit = off", srcPG + ":9 (durability as published)"},
		{"bgwriter_lru_maxpages = 2000", srcPG + ":11"},
		{"bgwriter_delay = 100ms", srcPG + ":12"},
		{"wal_compression = off", srcPG + ":13"},
		{"max_wal_size = 40GB", srcPG + ":14"},
		{"min_wal_size = 20GB", srcPG + ":15"},
		{"checkpoint_timeout = 1800s", srcPG + ":19"},
		{"autovacuum_max_workers = 4", srcPG + ":20"},
		{"autovacuum_naptime = 10s", srcPG + ":21"},
		{"autovacuum_vacuum_cost_delay = 2ms", srcPG + ":22"},
		{"autovacuum_vacuum_cost_limit = 2000", srcPG + ":23"},
	},
	"mariadb": {
		{"log_bin = binlog", srcMaria + ":10 (binlog on, as published)"},
		{"max_binlog_size = 256M", srcMaria + ":11"},
		{"server_id = 77", srcMaria + ":12"},
		{"binlog_format = ROW", srcMaria + ":13"},
		{"sync_binlog = 0", srcMaria + ":39 (durability as published)"},
		{"character_set_server = latin1", srcMaria + ":26"},
		{"collation_server = latin1_swedish_ci", srcMaria + ":27 (MyRocks' published latin1_bin, " + srcRocks + ":21, would need a config per engine)"},
		{"eq_range_index_dive_limit = 10", srcMaria + ":28"},
		{"innodb_doublewrite = 1", srcMaria + ":31"},
		{"innodb_autoinc_lock_mode = 2", srcMaria + ":32"},
		{"innodb_flush_neighbors = 0", srcMaria + ":33"},
		{"innodb_purge_threads = 4", srcMaria + ":36"},
		{"innodb_flush_log_at_trx_commit = 2", srcMaria + ":38 (durability as published)"},
		{"innodb_log_file_size = 1G", srcMaria + ":45 has 15G, preallocated on disk: 1G here"},
		{"innodb_max_dirty_pages_pct_lwm = 80", srcMaria + ":47"},
		{"innodb_max_dirty_pages_pct = 90", srcMaria + ":48"},
		{"innodb_io_capacity = 10000", srcMaria + ":51"},
		{"innodb_io_capacity_max = 20000", srcMaria + ":52"},
		{"innodb_adaptive_hash_index = OFF", srcMaria + ":54"},
		{"innodb_change_buffering = none", srcMaria + ":61"},
		{"innodb_lru_scan_depth = 5000", srcMaria + ":66"},
		{"innodb_max_purge_lag = 500000", srcMaria + ":68"},
		{"innodb_max_purge_lag_delay = 1000000", srcMaria + ":69"},
		{"rocksdb_flush_log_at_trx_commit = 2", srcRocks + ":27 (durability as published)"},
		{"rocksdb_max_background_jobs = 4", srcRocks + ":33-34 set 3 compactions + 1 flush; MariaDB 10.11 has only max_background_jobs"},
		{"rocksdb_default_cf_options = level_compaction_dynamic_level_bytes=true;block_based_table_factory={cache_index_and_filter_blocks=1;filter_policy=bloomfilter:10:false;whole_key_filtering=1};optimize_filters_for_hits=true;max_write_buffer_number=4;write_buffer_size=32m;max_bytes_for_level_base=256m;compression_per_level=kNoCompression;bottommost_compression=kLZ4Compression", srcRocks + ":46"},
		{"rocksdb_block_size = 8192", srcRocks + ":49"},
		{"rocksdb_cache_index_and_filter_with_high_priority = ON", srcRocks + ":50 (index and filter blocks in the cache's protected pool)"},
		{"rocksdb_cache_high_pri_pool_ratio = 0.5", srcRocks + ":51"},
		{"userstat = ON", "dbperf: not in the published files; per-table and per-index statistics (TABLE_STATISTICS, INDEX_STATISTICS), which the monitor samples each second, as PostgreSQL keeps pg_stat_user_tables always (docs/counters.md)"},
	},
}

// byDBMS and byOS are what differs: the cache, and InnoDB's IO.
func byDBMS(kind string) []setting {
	mb := strconv.Itoa(DBMSCacheSize)
	if kind == "postgres" {
		return []setting{
			{"shared_buffers = " + mb + "MB", srcPG + ":10 has 10GB"},
			{"effective_cache_size = 8GB", "dbperf: the planner's estimate of all caches"},
		}
	}
	return []setting{
		{"innodb_buffer_pool_size = " + mb + "M", srcMaria + ":41 has 10G"},
		{"innodb_flush_method = O_DIRECT_NO_FSYNC", srcInno + ":31 (MariaDB 11's innodb_data_file_buffering=0, " + srcMaria + ":73, is not in 10.11)"},
		{"rocksdb_block_cache_size = " + mb + "M", srcRocks + ":30 has 10G"},
	}
}

func byOS(kind string, mb int) []setting {
	size := strconv.Itoa(mb)
	if kind == "postgres" {
		return []setting{
			{"shared_buffers = " + size + "MB", srcPGOS + ":10 has 1GB, a tenth of the by-DBMS size"},
			{"effective_cache_size = 8GB", "dbperf: the planner's estimate of all caches"},
		}
	}
	return []setting{
		{"innodb_buffer_pool_size = " + size + "M", srcInnoOS + ":42 has 1G, a tenth of the by-DBMS size"},
		{"innodb_flush_method = fsync", srcInnoOS + ":31 (buffered IO: reads come from the OS page cache)"},
		{"rocksdb_block_cache_size = " + size + "M", srcRockOS + ":30 has 1G (RocksDB reads are buffered in both)"},
	}
}

// Configs are the named configs' settings per kind, with their sources as comments (see
// configSettings for cached-by-os:SIZE).
var Configs = map[string]map[string][]string{
	"cached-by-dbms": {"postgres": render(configSettings("postgres", "cached-by-dbms", 0)), "mariadb": render(configSettings("mariadb", "cached-by-dbms", 0))},
	"cached-by-os":   {"postgres": render(configSettings("postgres", "cached-by-os", OSCacheSize)), "mariadb": render(configSettings("mariadb", "cached-by-os", OSCacheSize))},
}

func configSettings(kind, name string, osMB int) []setting {
	s := append([]setting(nil), common[kind]...)
	if name == "cached-by-dbms" {
		return append(s, byDBMS(kind)...)
	}
	return append(s, byOS(kind, osMB)...)
}

// render writes each setting after a comment line naming its source (a comment on its own line
// reads the same in postgresql.conf and in MariaDB's option files).
func render(s []setting) []string {
	out := make([]string, 0, 2*len(s))
	for _, x := range s {
		out = append(out, "# "+x.source, x.line)
	}
	return out
}

// ParseOSCache reads a named config "cached-by-os:SIZE" (SIZE as 64M, 512M, 2G): the cached-by-os
// config with the DBMS's cache at SIZE, in MB. ok is false for any other config.
func ParseOSCache(config string) (mb int, ok bool, err error) {
	rest, found := strings.CutPrefix(config, "cached-by-os:")
	if !found {
		return 0, false, nil
	}
	s := strings.ToUpper(strings.TrimSuffix(strings.ToUpper(rest), "B"))
	mult := 1
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1024, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		s = strings.TrimSuffix(s, "M")
	default:
		return 0, true, fmt.Errorf("--config %s: the by-OS cache size needs a unit, M or G (e.g. cached-by-os:256M)", config)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, true, fmt.Errorf("--config %s: the by-OS cache size must be a positive number of M or G (e.g. cached-by-os:256M)", config)
	}
	if n*mult < 16 {
		return 0, true, fmt.Errorf("--config %s: the by-OS cache must be at least 16M (MariaDB's and PostgreSQL's minimums are near it)", config)
	}
	return n * mult, true, nil
}

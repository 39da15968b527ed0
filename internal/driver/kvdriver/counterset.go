package kvdriver

import (
	"context"
	"expvar"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Every numeric counter of each embedded engine, for the monitor's counters.csv.gz
// (monitor.CounterSet; docs/counters.md lists them): the curated Counters plus the rest, each
// engine's own metrics under its name (pebble.*, rocksdb.*, badger.*).

// FullMonitored is an optional ability of an engine: every counter it keeps, beside its
// curated Counters, and which of them are gauges (path.Match patterns).
type FullMonitored interface {
	AllCounters() (map[string]float64, error)
	Gauges() []string
}

// curatedGauges are the levels among the engines' curated Counters (monitor.go, the engines'
// files); every other curated counter is a running total.
var curatedGauges = []string{CounterTablesBytes, CounterBlobBytes, "write_amp", "read_amp", "l0_files",
	"l0_sublevels", "l0_bytes", "tables", "memtable_*", "block_cache_bytes", "disk_usage_bytes",
	"compaction_in_progress", "compaction_debt_bytes", "running_compactions", "wal_files",
	"write_stalled_now", "open_read_txs", "free_pages", "pending_pages", "free_alloc_bytes",
	"freelist_inuse_bytes", "page_count", "freelist_count", "page_size", "wal_bytes_file"}

// engineGauges are the gauges of engines whose Counters are all levels (by Name).
var engineGauges = map[string][]string{"SQLite": {"*"}}

// DBMSGauges implements monitor.CounterSet.
func (s *DB) DBMSGauges() []string {
	if g, ok := engineGauges[s.Engine.Name()]; ok {
		return g
	}
	g := curatedGauges
	if f, ok := s.Engine.(FullMonitored); ok {
		g = append(append([]string(nil), g...), f.Gauges()...)
	}
	return g
}

// DBMSCounterSet implements monitor.CounterSet: the engine's Counters and, when it has them,
// all its other counters.
func (s *DB) DBMSCounterSet(context.Context) (c map[string]float64, err error) {
	err = s.monitored(func(m Monitored) error {
		if c, err = m.Counters(); err != nil {
			return err
		}
		if f, ok := m.(FullMonitored); ok {
			all, err := f.AllCounters()
			for k, v := range all {
				c[k] = v
			}
			return err
		}
		return nil
	})
	return c, err
}

// flatten adds every exported numeric field of v (a struct, followed through nested structs
// and arrays) to out, named prefix + the fields' snake_case names joined with dots; durations
// in seconds. Histograms, pointers, slices and maps are left out.
func flatten(prefix string, v reflect.Value, out map[string]float64) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := prefix + "." + snake(f.Name)
			if f.Anonymous {
				name = prefix
			}
			flatten(name, v.Field(i), out)
		}
	case reflect.Array:
		for i := range v.Len() {
			flatten(prefix+"."+strconv.Itoa(i), v.Index(i), out)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == reflect.TypeFor[time.Duration]() {
			out[prefix] = time.Duration(v.Int()).Seconds()
			return
		}
		out[prefix] = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		out[prefix] = float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		out[prefix] = v.Float()
	}
}

// snake turns a Go field name into snake_case: TableBytesIn -> table_bytes_in, WAL -> wal.
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// ---- Pebble

// pebbleGauges are the levels among Pebble's Metrics (pebble.*); the rest are running totals.
var pebbleGauges = []string{"pebble.block_cache.size", "pebble.block_cache.count",
	"pebble.compact.estimated_debt", "pebble.compact.in_progress_bytes", "pebble.compact.num_in_progress",
	"pebble.compact.num_problem_spans", "pebble.compact.marked_files", "pebble.flush.num_in_progress",
	"pebble.levels.*.sublevels", "pebble.levels.*.tables_count", "pebble.levels.*.tables_size",
	"pebble.levels.*.virtual_tables_*", "pebble.levels.*.estimated_references_size", "pebble.levels.*.score",
	"pebble.levels.*fill_factor", "pebble.levels.*.additional.value_blocks_size", "pebble.mem_table.*",
	"pebble.keys.*", "pebble.snapshots.*", "pebble.table.*", "pebble.blob_files.*", "pebble.file_cache.size",
	"pebble.file_cache.table_count", "pebble.file_cache.blob_file_count", "pebble.table_iters",
	"pebble.wal.files", "pebble.wal.obsolete_*", "pebble.wal.size", "pebble.wal.physical_size",
	"pebble.secondary_cache_metrics.*"}

// AllCounters are every numeric field of Pebble's Metrics, pebble.* (per level
// pebble.levels.N.*).
func (p *pebbleEngine) AllCounters() (map[string]float64, error) {
	out := map[string]float64{}
	flatten("pebble", reflect.ValueOf(p.db.Metrics()).Elem(), out)
	return out, nil
}

func (p *pebbleEngine) Gauges() []string { return pebbleGauges }

// ---- Badger

// badgerGauges: sizes, pending writes, tables being compacted, levels.
var badgerGauges = []string{"badger.badger_size_bytes_*", "badger.badger_write_pending_num_memtable*",
	"badger.badger_compaction_current_num_lsm*", "badger.level.*"}

// AllCounters are every badger_* expvar (maps by key: badger.NAME.KEY; process-wide, as
// Counters says) and each level's tables, size, score and stale data.
func (b *badgerEngine) AllCounters() (map[string]float64, error) {
	out := map[string]float64{}
	expvar.Do(func(kv expvar.KeyValue) {
		if !strings.HasPrefix(kv.Key, "badger_") {
			return
		}
		switch v := kv.Value.(type) {
		case *expvar.Int:
			out["badger."+kv.Key] = float64(v.Value())
		case *expvar.Map:
			v.Do(func(e expvar.KeyValue) {
				if i, ok := e.Value.(*expvar.Int); ok {
					out["badger."+kv.Key+"."+strings.ReplaceAll(e.Key, "/", "_")] = float64(i.Value())
				}
			})
		}
	})
	for _, l := range b.db.Levels() {
		p := "badger.level." + strconv.Itoa(l.Level) + "."
		out[p+"tables"], out[p+"size"] = float64(l.NumTables), float64(l.Size)
		out[p+"score"], out[p+"stale_data_size"] = l.Score, float64(l.StaleDatSize)
	}
	return out, nil
}

func (b *badgerEngine) Gauges() []string { return badgerGauges }

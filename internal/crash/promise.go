package crash

import "strings"

// What a setting promises about a crash kind, from the engines' own documentation
// (../shared/reference/counters-and-durability.md §8 has the sources).
const (
	Durable = "durable" // must show 0 lost commits, no corruption, a clean recovery
	Control = "control" // known unsafe: must show losses or failed recoveries
	NoClaim = "none"    // measured; nothing promised either way
	Refused = "refused" // the setting only matters for what the layer does not model
)

// Promise says what kind's settings promise under kill ("process" or "power"), and why.
func Promise(kind string, settings map[string]string, kill string) (string, string) {
	get := func(name, deflt string) string {
		for k, v := range settings {
			if strings.EqualFold(k, name) {
				return strings.ToLower(v)
			}
		}
		return deflt
	}
	power := kill == "power"
	switch kind {
	case "sqlite":
		sync, journal := get("synchronous", "full"), get("journal_mode", "delete")
		switch {
		case !power:
			return Durable, "SQLite: transactions are durable across application crashes whatever synchronous and journal_mode"
		case sync == "extra" || sync == "3" || ((sync == "full" || sync == "2") && journal == "wal"):
			return Durable, "SQLite: synchronous=" + sync + " with journal_mode=" + journal + " syncs every commit"
		case sync == "off" || sync == "0":
			return Control, "SQLite: synchronous=OFF never syncs: a power loss may lose or corrupt anything"
		}
		return NoClaim, "SQLite: synchronous=" + sync + " with journal_mode=" + journal + " may roll back recent commits after a power loss"
	case "pebble", "rocksdb":
		sync := get("sync", map[bool]string{true: "true", false: "false"}[kind == "pebble"])
		switch {
		case sync == "true":
			return Durable, kind + ": every write synced"
		case kind == "rocksdb" && !power:
			return Durable, "RocksDB: an unsynced write has reached the kernel when it returns; a process crash loses none"
		case power:
			return Control, kind + ": unsynced writes: a power loss loses those since the log was last synced (at a memtable flush)"
		}
		return NoClaim, "Pebble: unsynced writes are buffered in the process; a process crash may lose recent ones"
	case "bbolt":
		if get("nosync", "false") == "false" {
			return Durable, "bbolt: every commit fdatasyncs its pages and meta page"
		}
		if power {
			return Control, "bbolt: NoSync is documented as unsafe; a power loss may lose or corrupt commits"
		}
		return NoClaim, "bbolt: NoSync; pwrite reaches the kernel, nothing is promised"
	case "postgres":
		switch {
		case get("full_page_writes", "on") == "off" && power:
			return Refused, "full_page_writes=off only matters for torn page writes, which the power-loss layer does not model: refused under --kill power"
		case get("fsync", "on") == "off" && power:
			return Control, "PostgreSQL: fsync=off, the known-unsafe control: a power loss may lose or corrupt anything"
		case get("fsync", "on") == "off":
			return Durable, "PostgreSQL: fsync=off risks only OS or power failures; a crash of PostgreSQL itself loses nothing"
		case get("synchronous_commit", "on") == "off":
			return NoClaim, "PostgreSQL: synchronous_commit=off may lose the last commits (up to 3 x wal_writer_delay), as if they had aborted"
		}
		return Durable, "PostgreSQL: synchronous_commit=" + get("synchronous_commit", "on") + " waits for the WAL flush"
	case "mariadb-innodb":
		if (get("innodb_doublewrite", "1") == "0" || get("innodb_doublewrite", "1") == "off") && power {
			return Refused, "innodb_doublewrite=0 only matters for torn page writes, which the power-loss layer does not model: refused under --kill power"
		}
		switch v := get("innodb_flush_log_at_trx_commit", "1"); {
		case v == "1" || v == "3":
			return Durable, "InnoDB: innodb_flush_log_at_trx_commit=" + v + " flushes the redo log at every commit"
		case v == "2" && !power:
			return Durable, "InnoDB: innodb_flush_log_at_trx_commit=2 writes the redo log at commit: lost on power failure, not if mariadbd crashes"
		default:
			return NoClaim, "InnoDB: innodb_flush_log_at_trx_commit=" + v + " flushes the redo log about once a second"
		}
	case "mariadb-myrocks":
		if v := get("rocksdb_flush_log_at_trx_commit", "1"); v != "1" {
			return NoClaim, "MyRocks: rocksdb_flush_log_at_trx_commit=" + v + " syncs the WAL about once a second"
		}
		return Durable, "MyRocks: rocksdb_flush_log_at_trx_commit=1 syncs the WAL at every commit"
	case "badger":
		if get("syncwrites", "false") == "true" || !power {
			return Durable, "Badger: writes survive process crashes; SyncWrites adds msync for power loss"
		}
		return NoClaim, "Badger: SyncWrites=false may lose recent writes on a power loss"
	}
	return NoClaim, "no promise known for " + kind
}

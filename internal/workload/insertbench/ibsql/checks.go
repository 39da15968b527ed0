package ibsql

import (
	"fmt"
	"math"
	"strings"

	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// The statements of Stats, the verification after each step, per DBMS: each counts an index's
// entries by reading that index, which the DBMS is made (or checked) to use.

// PostgreSQL: the secondary indexes that exist (parameters table, table_pkey); sorting and the
// other scans are turned off, so that only the index delivers its order; EXPLAIN checks it.
const pgIndexesSQL = "SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexname <> $2"

var pgCountSettings = []string{"SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off"}

func pgIndexCount(t string, idx ib.Index) string {
	return fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s ORDER BY %s) ordered", t, strings.Join(ib.IndexColumns[idx][:], ", "))
}

// MySQL: the secondary indexes that exist (parameters table and the three index names); FORCE
// INDEX and a condition every entry meets make the server read the index rather than a cached
// row count; EXPLAIN checks the key.
const mysqlIndexesSQL = "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name IN (?, ?, ?)"

func mysqlIndexCount(t string, idx ib.Index) string {
	return fmt.Sprintf("SELECT count(*) FROM %s FORCE INDEX (%s) WHERE %s >= %d", t, indexName(t, idx), ib.IndexColumns[idx][0], math.MinInt32)
}

// SQLite: the indexes that exist (parameter table); INDEXED BY fails rather than use another.
const sqliteIndexesSQL = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"

func sqliteIndexCount(t string, idx ib.Index) string {
	return fmt.Sprintf("SELECT count(*) FROM %s INDEXED BY %s WHERE %s >= -1", t, indexName(t, idx), ib.IndexColumns[idx][0])
}

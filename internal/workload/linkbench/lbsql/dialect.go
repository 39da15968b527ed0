// Package lbsql is LinkBench on SQL databases: the original's schema and statements for each
// dialect (PostgreSQL, MySQL/MariaDB with InnoDB or MyRocks, SQLite) and its linkbench.Store
// over the connections the sqldriver targets expose. Every dialect gives the same results.
package lbsql

import (
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
)

// dialect is the LinkBench SQL of one DBMS.
type dialect struct {
	sqldriver.Dialect
	ddl   []string // drop and create the three tables; MySQL's name {engine} and {partition}
	begin string   // starts a write transaction
	// forUpdate locks the rows a SELECT reads (empty on SQLite, whose BEGIN IMMEDIATE locks the
	// database).
	forUpdate string
	// insertIfMissing inserts a link unless its key exists, affecting 1 row when it inserted.
	insertIfMissing string
	// loadLinksTail, loadCountsHead/Tail and countUpsert are the upsert forms.
	loadLinksTail  string
	loadCountsHead string
	loadCountsTail string
	countUpsert    string // format with the new-row count and the update of count
	// limit is "LIMIT offset, count" with the two placeholders in that order.
	limit string
}

// The columns of each table, in the order statements bind them.
const (
	linkColumns  = "id1, id2, link_type, visibility, data, time, version"
	countColumns = "id, link_type, count, time, version"
	nodeColumns  = "id, type, version, time, data"
)

// The original's MySQL DDL (README.md of facebookarchive/linkbench), with data as binary
// strings on every DBMS (the motif generator writes bytes up to 220, which are not UTF-8) and
// node ids assigned by the client.
var mysqlDDL = []string{
	"DROP TABLE IF EXISTS linktable", "DROP TABLE IF EXISTS counttable", "DROP TABLE IF EXISTS nodetable",
	`CREATE TABLE linktable (
  id1 bigint unsigned NOT NULL DEFAULT 0,
  id2 bigint unsigned NOT NULL DEFAULT 0,
  link_type bigint unsigned NOT NULL DEFAULT 0,
  visibility tinyint NOT NULL DEFAULT 0,
  data varbinary(255) NOT NULL DEFAULT '',
  time bigint unsigned NOT NULL DEFAULT 0,
  version int unsigned NOT NULL DEFAULT 0,
  PRIMARY KEY (link_type, id1, id2),
  KEY id1_type (id1, link_type, visibility, time, id2, version, data)
) ENGINE={engine}{partition}`,
	`CREATE TABLE counttable (
  id bigint unsigned NOT NULL DEFAULT 0,
  link_type bigint unsigned NOT NULL DEFAULT 0,
  count int unsigned NOT NULL DEFAULT 0,
  time bigint unsigned NOT NULL DEFAULT 0,
  version bigint unsigned NOT NULL DEFAULT 0,
  PRIMARY KEY (id, link_type)
) ENGINE={engine}`,
	`CREATE TABLE nodetable (
  id bigint unsigned NOT NULL,
  type int unsigned NOT NULL,
  version bigint unsigned NOT NULL,
  time int unsigned NOT NULL,
  data mediumblob NOT NULL,
  PRIMARY KEY (id)
) ENGINE={engine}`,
}

// The mdcallag fork's PostgreSQL schema with bigint for numeric(20) (ids, types and times all fit
// in 63 bits, and bigint compares as fast as the DBMS can) and bytea for the data.
var postgresDDL = []string{
	"DROP TABLE IF EXISTS linktable", "DROP TABLE IF EXISTS counttable", "DROP TABLE IF EXISTS nodetable",
	`CREATE TABLE linktable (
  id1 bigint NOT NULL DEFAULT 0,
  id2 bigint NOT NULL DEFAULT 0,
  link_type bigint NOT NULL DEFAULT 0,
  visibility smallint NOT NULL DEFAULT 0,
  data bytea NOT NULL DEFAULT '',
  time bigint NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (link_type, id1, id2))`,
	"CREATE INDEX id1_type ON linktable (id1, link_type, visibility, time, id2, version, data)",
	`CREATE TABLE counttable (
  id bigint NOT NULL DEFAULT 0,
  link_type bigint NOT NULL DEFAULT 0,
  count int NOT NULL DEFAULT 0,
  time bigint NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (id, link_type))`,
	`CREATE TABLE nodetable (
  id bigint NOT NULL PRIMARY KEY,
  type int NOT NULL,
  version bigint NOT NULL,
  time int NOT NULL,
  data bytea NOT NULL)`,
}

// SQLite keeps linktable and counttable clustered on their primary keys (WITHOUT ROWID), as
// InnoDB and MyRocks do.
var sqliteDDL = []string{
	"DROP TABLE IF EXISTS linktable", "DROP TABLE IF EXISTS counttable", "DROP TABLE IF EXISTS nodetable",
	`CREATE TABLE linktable (
  id1 INTEGER NOT NULL, id2 INTEGER NOT NULL, link_type INTEGER NOT NULL,
  visibility INTEGER NOT NULL, data BLOB NOT NULL, time INTEGER NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (link_type, id1, id2)) WITHOUT ROWID`,
	"CREATE INDEX id1_type ON linktable (id1, link_type, visibility, time, id2, version, data)",
	`CREATE TABLE counttable (
  id INTEGER NOT NULL, link_type INTEGER NOT NULL, count INTEGER NOT NULL,
  time INTEGER NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (id, link_type)) WITHOUT ROWID`,
	`CREATE TABLE nodetable (
  id INTEGER PRIMARY KEY, type INTEGER NOT NULL, version INTEGER NOT NULL,
  time INTEGER NOT NULL, data BLOB NOT NULL)`,
}

var postgres = dialect{
	Dialect: sqldriver.PostgresDialect, ddl: postgresDDL, begin: "BEGIN", forUpdate: " FOR UPDATE",
	insertIfMissing: "INSERT INTO linktable (" + linkColumns + ") VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
	loadLinksTail:   " ON CONFLICT (link_type, id1, id2) DO UPDATE SET visibility = EXCLUDED.visibility",
	loadCountsHead:  "INSERT INTO counttable",
	loadCountsTail:  " ON CONFLICT (id, link_type) DO UPDATE SET count = EXCLUDED.count, time = EXCLUDED.time, version = EXCLUDED.version",
	countUpsert: "INSERT INTO counttable (" + countColumns + ") VALUES ($1, $2, %s, $3, 0) ON CONFLICT (id, link_type) DO UPDATE SET " +
		"count = %s, version = counttable.version + 1, time = EXCLUDED.time",
	limit: "LIMIT $6 OFFSET $5",
}

var sqlite = dialect{
	Dialect: sqldriver.SQLiteDialect, ddl: sqliteDDL, begin: "BEGIN IMMEDIATE",
	insertIfMissing: "INSERT INTO linktable (" + linkColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
	loadLinksTail:   " ON CONFLICT (link_type, id1, id2) DO UPDATE SET visibility = excluded.visibility",
	loadCountsHead:  "INSERT OR REPLACE INTO counttable",
	countUpsert: "INSERT INTO counttable (" + countColumns + ") VALUES (?, ?, %s, ?, 0) ON CONFLICT (id, link_type) DO UPDATE SET " +
		"count = %s, version = counttable.version + 1, time = excluded.time",
	limit: "LIMIT ?, ?",
}

// mysql is the original's statements (LinkStoreMysql.java), with placeholders.
var mysql = dialect{
	Dialect: sqldriver.MySQLDialect, ddl: mysqlDDL, begin: "BEGIN", forUpdate: " FOR UPDATE",
	// The update changes nothing, so an existing row affects 0 rows (the client does not ask
	// for found rows), but it locks that row as the original's upsert does.
	insertIfMissing: "INSERT INTO linktable (" + linkColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE id1 = id1",
	loadLinksTail:   " ON DUPLICATE KEY UPDATE visibility = VALUES(visibility)",
	loadCountsHead:  "REPLACE INTO counttable",
	countUpsert: "INSERT INTO counttable (" + countColumns + ") VALUES (?, ?, %s, ?, 0) ON DUPLICATE KEY UPDATE " +
		"count = %s, version = version + 1, time = VALUES(time)",
	limit: "LIMIT ?, ?",
}

// The count updates: a new row's count and the update of an existing one
// (LinkStoreMysql.java:377-398, 560-577).
func (d dialect) countIncrement() string {
	return fmt.Sprintf(d.countUpsert, "1", d.qualified("count")+" + 1")
}

func (d dialect) countDecrement() string {
	c := d.qualified("count")
	return fmt.Sprintf(d.countUpsert, "0", "CASE WHEN "+c+" = 0 THEN 0 ELSE "+c+" - 1 END")
}

// qualified names counttable's existing column in an upsert's update (PostgreSQL and SQLite
// need the table name; MySQL does not take it there).
func (d dialect) qualified(col string) string {
	if d.Name == "mysql" {
		return col
	}
	return "counttable." + col
}

// values is a multi-row VALUES list of rows x cols placeholders.
func (d dialect) values(rows, cols int) string {
	var b strings.Builder
	p := 1
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteString(d.Placeholder(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}

func (d dialect) loadLinks(n int) string {
	return "INSERT INTO linktable (" + linkColumns + ") VALUES " + d.values(n, 7) + d.loadLinksTail
}

func (d dialect) loadCounts(n int) string {
	return d.loadCountsHead + " (" + countColumns + ") VALUES " + d.values(n, 5) + d.loadCountsTail
}

func (d dialect) loadNodes(n int) string {
	return "INSERT INTO nodetable (" + nodeColumns + ") VALUES " + d.values(n, 5)
}

// keyWhere is the condition on a link's primary key; parameters link_type, id1, id2 from first.
func (d dialect) keyWhere(first int) string {
	return fmt.Sprintf("link_type = %s AND id1 = %s AND id2 = %s", d.Placeholder(first), d.Placeholder(first+1), d.Placeholder(first+2))
}

func (d dialect) selectVisibility() string {
	return "SELECT visibility FROM linktable WHERE " + d.keyWhere(1) + d.forUpdate
}

// updateLink sets visibility, data, time, version (LinkStoreMysql.java:400-415).
func (d dialect) updateLink() string {
	return fmt.Sprintf("UPDATE linktable SET visibility = %s, data = %s, time = %s, version = %s WHERE ",
		d.Placeholder(1), d.Placeholder(2), d.Placeholder(3), d.Placeholder(4)) + d.keyWhere(5)
}

func (d dialect) hideLink() string {
	return "UPDATE linktable SET visibility = 0 WHERE " + d.keyWhere(1)
}

// getLinks is MULTIGET_LINK (LinkStoreMysql.java:636-680): no visibility filter.
func (d dialect) getLinks(n int) string {
	ph := make([]string, n)
	for i := range ph {
		ph[i] = d.Placeholder(i + 3)
	}
	return fmt.Sprintf("SELECT %s FROM linktable WHERE id1 = %s AND link_type = %s AND id2 IN (%s)",
		linkColumns, d.Placeholder(1), d.Placeholder(2), strings.Join(ph, ", "))
}

// linkList is GET_LINKS_LIST (LinkStoreMysql.java:707-753) with id2 as the tie-breaker of equal
// times, so that every DBMS returns the same page; parameters id1, link_type, min and max time,
// offset, limit. The MySQL form forces the covering index, as the original does.
func (d dialect) linkList() string {
	hint := ""
	if d.Name == "mysql" {
		hint = " FORCE INDEX (id1_type)"
	}
	return fmt.Sprintf("SELECT %s FROM linktable%s WHERE id1 = %s AND link_type = %s AND time >= %s AND time <= %s AND visibility = 1 ORDER BY time DESC, id2 DESC %s",
		linkColumns, hint, d.Placeholder(1), d.Placeholder(2), d.Placeholder(3), d.Placeholder(4), d.limit)
}

func (d dialect) countLinks() string {
	return fmt.Sprintf("SELECT count FROM counttable WHERE id = %s AND link_type = %s", d.Placeholder(1), d.Placeholder(2))
}

func (d dialect) countVisible() string {
	return fmt.Sprintf("SELECT count(*) FROM linktable WHERE id1 = %s AND link_type = %s AND visibility = 1", d.Placeholder(1), d.Placeholder(2))
}

// Node statements (LinkStoreMysql.java:937-1072); ADD_NODE carries its id.
func (d dialect) addNode() string { return d.loadNodes(1) }

func (d dialect) updateNode() string {
	return fmt.Sprintf("UPDATE nodetable SET version = %s, time = %s, data = %s WHERE id = %s AND type = %s",
		d.Placeholder(1), d.Placeholder(2), d.Placeholder(3), d.Placeholder(4), d.Placeholder(5))
}

func (d dialect) deleteNode() string {
	return fmt.Sprintf("DELETE FROM nodetable WHERE id = %s AND type = %s", d.Placeholder(1), d.Placeholder(2))
}

func (d dialect) getNode() string {
	return fmt.Sprintf("SELECT %s FROM nodetable WHERE id = %s", nodeColumns, d.Placeholder(1))
}

// The scans of the checks.
const (
	scanLinksSQL   = "SELECT " + linkColumns + " FROM linktable ORDER BY id1, link_type, id2"
	scanCountsSQL  = "SELECT " + countColumns + " FROM counttable ORDER BY id, link_type"
	scanVisibleSQL = "SELECT id1, link_type, count(*) FROM linktable WHERE visibility = 1 GROUP BY id1, link_type ORDER BY id1, link_type"
	scanNodesSQL   = "SELECT " + nodeColumns + " FROM nodetable ORDER BY id"
)

// Package ibsql is the Insert Benchmark on SQL databases: its schema and statements for every
// dialect (the reference's SQL text) and its insertbench.Store over the connections the
// sqldriver targets expose. The drivers know nothing of this package.
package ibsql

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// dialect builds the Insert Benchmark's SQL for one DBMS, on the driver's dialect basics
// (placeholders).
type dialect struct {
	sqldriver.Dialect
	createTable string // format with the table name
	// indexHint is inserted after the table name of range queries (MySQL's FORCE INDEX);
	// format with table and index name.
	indexHint string
	// indexDDL is how the three secondary indexes are created.
	indexDDL indexForm
	// deleteLimit selects MySQL's delete form, DELETE ... ORDER BY transactionid LIMIT n, instead
	// of the IN subquery (MySQL cannot LIMIT a subquery of IN).
	deleteLimit bool
	// literalInsert writes an INSERT's values out (iibench.py's form, appendInsertLiteral)
	// rather than binding them, with MySQL's string rules (a backslash escapes).
	literalInsert bool
	// dateTimeText: dateandtime is a DATETIME read back as 'YYYY-MM-DD HH:MM:SS' (UTC), not
	// unix seconds.
	dateTimeText bool
	// markTable marks a table as dbperf's (format with the table name), so that a later l.i0
	// replaces it without --drop and cleanup removes it, while another's table of the same name
	// is left alone; empty where the DBMS has no table comments (SQLite).
	markTable string
	// foreignTables lists which of the given tables exist without dbperf's mark (placeholder 1:
	// the names, an array on PostgreSQL; MySQL's takes them as a formatted IN list).
	foreignTables string
}

// tableMark is the comment dbperf gives the tables it creates.
const tableMark = "created by dbperf"

// indexForm is how a dialect creates the three secondary indexes of a table.
type indexForm int

const (
	createEach indexForm = iota // one CREATE INDEX each (PostgreSQL, SQLite)
	alterAll                    // one ALTER TABLE ... ADD INDEX, ADD INDEX, ADD INDEX (InnoDB)
	alterEach                   // one ALTER TABLE ... ADD INDEX each (MyRocks)
)

var postgres = dialect{
	Dialect:   sqldriver.PostgresDialect,
	markTable: "COMMENT ON TABLE %s IS '" + tableMark + "'",
	foreignTables: "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace " +
		"AND c.relname = ANY($1) AND coalesce(obj_description(c.oid, 'pg_class'), '') <> '" + tableMark + "' ORDER BY 1",
	createTable: `CREATE TABLE %s (
  transactionid bigserial PRIMARY KEY,
  dateandtime timestamp without time zone,
  cashregisterid int NOT NULL,
  customerid int NOT NULL,
  productid int NOT NULL,
  price int NOT NULL,
  data varchar(4000))`,
}

// SQLite keeps transactionid as the rowid (a clustered primary key, like InnoDB's) and
// dateandtime as unix seconds (SQLite has no timestamp type; integers are its compact form).
var sqlite = dialect{
	Dialect: sqldriver.SQLiteDialect,
	createTable: `CREATE TABLE %s (
  transactionid INTEGER PRIMARY KEY,
  dateandtime datetime,
  cashregisterid int NOT NULL,
  customerid int NOT NULL,
  productid int NOT NULL,
  price int NOT NULL,
  data varchar(4000))`,
}

// mysqlDialect is iibench's MySQL schema in the given engine (as ENGINE= names it). The indexes
// are added by one ALTER TABLE on InnoDB and by one ALTER TABLE each on MyRocks, as the
// reference's drivers do.
func mysqlDialect(engine string, rocksDB bool) dialect {
	form := alterAll
	if rocksDB {
		form = alterEach
	}
	return dialect{
		Dialect: sqldriver.MySQLDialect,
		createTable: `CREATE TABLE %s (
  transactionid bigint NOT NULL AUTO_INCREMENT,
  dateandtime datetime,
  cashregisterid int NOT NULL,
  customerid int NOT NULL,
  productid int NOT NULL,
  price int NOT NULL,
  data varchar(4000),
  PRIMARY KEY (transactionid)) ENGINE=` + engine,
		markTable:     "ALTER TABLE %s COMMENT = '" + tableMark + "'",
		foreignTables: "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (%s) AND table_comment <> '" + tableMark + "' ORDER BY 1",
		indexHint:     "FORCE INDEX (%[2]s)",
		indexDDL:      form,
		deleteLimit:   true,
		literalInsert: true,
		dateTimeText:  true,
	}
}

// recreateTable is the DDL that drops a table if it exists and creates it with only its
// primary key.
func (d dialect) recreateTable(t string) []string {
	q := []string{"DROP TABLE IF EXISTS " + t, fmt.Sprintf(d.createTable, t)}
	if d.markTable != "" {
		q = append(q, fmt.Sprintf(d.markTable, t))
	}
	return q
}

// execer runs one statement; each driver's connection provides one.
type execer func(ctx context.Context, q string) error

// createTables runs recreateTable for each table.
func (d dialect) createTables(ctx context.Context, exec execer, tables []string) error {
	for _, t := range tables {
		for _, q := range d.recreateTable(t) {
			if err := exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
	}
	return nil
}

func indexName(t string, idx ib.Index) string { return t + "_" + idx.String() }

// createIndex is one index's DDL (the reference creates them one statement each on Postgres).
func (d dialect) createIndex(t string, idx ib.Index) string {
	return fmt.Sprintf("CREATE INDEX %s ON %s (%s)", indexName(t, idx), t, strings.Join(ib.IndexColumns[idx][:], ", "))
}

// createIndexes is the DDL that creates the three secondary indexes of t, in the dialect's form.
func (d dialect) createIndexes(t string) []string {
	var out, adds []string
	for idx := range ib.NumIndexes {
		add := fmt.Sprintf("ADD INDEX %s (%s)", indexName(t, idx), strings.Join(ib.IndexColumns[idx][:], ", "))
		switch d.indexDDL {
		case alterAll:
			adds = append(adds, add)
		case alterEach:
			out = append(out, "ALTER TABLE "+t+" "+add)
		default:
			out = append(out, d.createIndex(t, idx))
		}
	}
	if len(adds) > 0 {
		out = append(out, "ALTER TABLE "+t+" "+strings.Join(adds, ", "))
	}
	return out
}

const insertColumns = "transactionid, dateandtime, cashregisterid, customerid, productid, price, data"

// insert is a multi-row INSERT of n rows, 7 parameters a row.
func (d dialect) insert(t string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", t, insertColumns)
	p := 1
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("(")
		for c := range 7 {
			if c > 0 {
				b.WriteString(",")
			}
			b.WriteString(d.Placeholder(p))
			p++
		}
		b.WriteString(")")
	}
	return b.String()
}

// deleteOldest is the reference's Postgres form (or with deleteLimit its MySQL form), bounded
// above as well so that concurrent deleters of a shared table never touch each other's rows:
// parameters from, to, limit.
func (d dialect) deleteOldest(t string) string {
	if d.deleteLimit {
		return fmt.Sprintf("DELETE FROM %s WHERE transactionid >= %s AND transactionid < %s ORDER BY transactionid LIMIT %s",
			t, d.Placeholder(1), d.Placeholder(2), d.Placeholder(3))
	}
	return fmt.Sprintf("DELETE FROM %s WHERE transactionid IN (SELECT transactionid FROM %s WHERE transactionid >= %s AND transactionid < %s ORDER BY transactionid LIMIT %s)",
		t, t, d.Placeholder(1), d.Placeholder(2), d.Placeholder(3))
}

// rangeQuery is the covering range query on one index; parameter x.
func (d dialect) rangeQuery(t string, idx ib.Index) string {
	cols := ib.IndexColumns[idx]
	op := ">="
	if idx.Strict() {
		op = ">"
	}
	hint := ""
	if d.indexHint != "" {
		hint = " " + fmt.Sprintf(d.indexHint, t, indexName(t, idx))
	}
	return fmt.Sprintf("SELECT %s FROM %s%s WHERE %s %s %s ORDER BY %s LIMIT %d",
		strings.Join(cols[:], ", "), t, hint, cols[0], op, d.Placeholder(1), strings.Join(cols[:], ", "), ib.RowsPerQuery)
}

// pointQuery selects n ids with an IN list.
func (d dialect) pointQuery(t string, n int) string {
	ph := make([]string, n)
	for i := range ph {
		ph[i] = d.Placeholder(i + 1)
	}
	return fmt.Sprintf("SELECT transactionid, productid, data FROM %s WHERE transactionid IN (%s)", t, strings.Join(ph, ", "))
}

func (d dialect) tableStats(t string) string {
	return fmt.Sprintf("SELECT count(*), coalesce(min(transactionid), 0), coalesce(max(transactionid), 0) FROM %s", t)
}

// stamp is a batch's dateandtime literal, formatted once a second rather than once a statement:
// time.Format showed in the client's profile.
type stamp struct {
	sec  int64
	text string
}

func (s *stamp) literal(sec int64) string {
	if s.text == "" || s.sec != sec {
		s.sec, s.text = sec, time.Unix(sec, 0).UTC().Format(time.DateTime)
	}
	return s.text
}

// appendInsertLiteral appends a multi-row INSERT with the values written out, as the reference
// client builds it (iibench.py formats its statements rather than binding parameters): it costs
// the client far less CPU than binding 7 parameters a row. ts is the batch's dateandtime
// literal, the same for every row. backslash says that the DBMS reads a backslash in a string
// literal as an escape (MySQL's default), so that data holding one is written in hex instead.
func appendInsertLiteral(b []byte, t string, rows []ib.Row, ts string, backslash bool) []byte {
	b = append(b, "INSERT INTO "...)
	b = append(b, t...)
	b = append(b, " ("+insertColumns+") VALUES "...)
	for i := range rows {
		r := &rows[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '(')
		b = appendUint(b, uint64(r.ID)) // ids, like the other columns, are never negative
		b = append(b, ",'"...)
		b = append(b, ts...)
		b = append(b, "',"...)
		b = appendUint(b, uint64(r.CashRegister))
		b = append(b, ',')
		b = appendUint(b, uint64(r.Customer))
		b = append(b, ',')
		b = appendUint(b, uint64(r.Product))
		b = append(b, ',')
		b = appendUint(b, uint64(r.Price))
		b = append(b, ',')
		if backslash && bytes.IndexByte(r.Data, '\\') >= 0 {
			// X'...' reads the same whatever the sql_mode (NO_BACKSLASH_ESCAPES or not).
			b = append(b, "X'"...)
			b = hex.AppendEncode(b, r.Data)
		} else {
			b = append(b, '\'')
			b = appendQuoted(b, r.Data)
		}
		b = append(b, "')"...)
	}
	return b
}

// appendQuoted appends s as the inside of a standard SQL string literal (quotes doubled). The
// generated data has no quote (base64 and padding), so it is one copy, not a byte at a time.
func appendQuoted(b, s []byte) []byte {
	if bytes.IndexByte(s, '\'') < 0 {
		return append(b, s...)
	}
	for _, c := range s {
		if c == '\'' {
			b = append(b, '\'')
		}
		b = append(b, c)
	}
	return b
}

// The reference's text statements with the values written out (iibench.py's MySQL forms:
// generate_pdc_query_mysql_pg ibp:588-598, generate_market_query_mysql_pg ibp:645-655,
// generate_register_query_mysql_pg ibp:702-712, generate_pk_query_mysql_pg ibp:745-748, deletes
// ibp:1178-1183), byte for byte except the table name; the index hint only where the dialect
// has one (the reference leaves two spaces without it).

func (d dialect) rangeQueryText(b []byte, t string, idx ib.Index, x int64) []byte {
	hint := ""
	if d.indexHint != "" {
		hint = fmt.Sprintf(d.indexHint, t, indexName(t, idx))
	}
	switch idx {
	case ib.PDC:
		b = fmt.Appendf(b, "SELECT price,dateandtime,customerid FROM %s %s WHERE (price >= %d) ORDER BY price, dateandtime, customerid LIMIT %d", t, hint, x, ib.RowsPerQuery)
	case ib.MarketSegment:
		b = fmt.Appendf(b, "SELECT productid, customerid, price FROM %s %s WHERE (productid >= %d) ORDER BY productid, customerid, price LIMIT %d", t, hint, x, ib.RowsPerQuery)
	default:
		b = fmt.Appendf(b, "SELECT cashregisterid,customerid,price FROM %s %s WHERE (cashregisterid > %d) ORDER BY cashregisterid, customerid, price LIMIT %d", t, hint, x, ib.RowsPerQuery)
	}
	return b
}

func pointQueryText(b []byte, t string, ids []int64) []byte {
	b = fmt.Appendf(b, "SELECT transactionid, productid, data FROM %s WHERE transactionid in (", t)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, ')')
}

// deleteOldestText is the reference's delete of the n oldest rows from from; bounded adds
// "transactionid < from+n" for a table shared by several deleters (a dbperf addition).
func (d dialect) deleteOldestText(b []byte, t string, from, n int64, bounded bool) []byte {
	bound := ""
	if bounded {
		bound = fmt.Sprintf(" and transactionid < %d", from+n)
	}
	if d.deleteLimit {
		return fmt.Appendf(b, "delete from %s where transactionid >= %d%s order by transactionid asc limit %d", t, from, bound, n)
	}
	return fmt.Appendf(b, "delete from %s where transactionid in (select transactionid from %s where transactionid >= %d%s order by transactionid asc limit %d)", t, t, from, bound, n)
}

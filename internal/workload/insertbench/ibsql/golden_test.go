package ibsql

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

var update = flag.Bool("update", false, "rewrite testdata/*.sql from the current statements")

// goldenDialects are the Insert Benchmark's dialects by the name of their golden file, each with
// the Stats statements of its DBMS and whether its literal INSERT escapes backslashes.
type goldenDialect struct {
	name      string
	d         dialect
	checks    []string
	count     func(t string, idx ib.Index) string
	backslash bool
}

var goldenDialects = []goldenDialect{
	{"postgres", postgres, append([]string{pgIndexesSQL}, pgCountSettings...), pgIndexCount, false},
	{"sqlite", sqlite, []string{sqliteIndexesSQL}, sqliteIndexCount, false},
	{"mysql-innodb", mysqlDialect("InnoDB", false), []string{mysqlIndexesSQL}, mysqlIndexCount, true},
	{"mysql-rocksdb", mysqlDialect("ROCKSDB", true), []string{mysqlIndexesSQL}, mysqlIndexCount, true},
}

// statements writes every statement the Insert Benchmark sends in dialect g, for table t.
func statements(g goldenDialect, t string) []byte {
	var b bytes.Buffer
	put := func(what, q string) { fmt.Fprintf(&b, "-- %s\n%s;\n\n", what, q) }
	qs := g.d.recreateTable(t)
	for i, q := range qs {
		put(fmt.Sprintf("create tables (%d of %d)", i+1, len(qs)), q)
	}
	if g.d.foreignTables != "" {
		put("tables of the same names not created by dbperf", g.d.foreignTables)
	}
	if g.d.indexDDL == createEach {
		for idx := range ib.NumIndexes {
			put("create index "+idx.String(), g.d.createIndex(t, idx))
		}
	} else {
		for i, q := range g.d.createIndexes(t) {
			put(fmt.Sprintf("create indexes (%d)", i+1), q)
		}
	}
	if g.d.literalInsert || g.d.Name == "postgres" {
		rows := []ib.Row{
			{ID: 1, DateAndTime: 1767323045, CashRegister: 2, Customer: 3, Product: 4, Price: 5, Data: []byte("aa'b")},
			{ID: 2, DateAndTime: 1767323045, CashRegister: 6, Customer: 7, Product: 8, Price: 9, Data: []byte(`a\'`)},
		}
		put("insert (literal, 2 rows)", string(appendInsertLiteral(nil, t, rows, "2026-01-02 03:04:05", g.backslash)))
	} else {
		put("insert (bound, 2 rows)", g.d.insert(t, 2))
	}
	if g.d.Name != "sqlite" { // the reference's text forms, sent by default
		put("delete oldest, the reference's text (from 101, 50 rows)", string(g.d.deleteOldestText(nil, t, 101, 50, false)))
		put("delete oldest, text, shared table (from 101, 50 rows)", string(g.d.deleteOldestText(nil, t, 101, 50, true)))
	}
	if g.d.deleteLimit {
		for idx := range ib.NumIndexes {
			put("range query "+idx.String()+", the reference's text (from 7)", string(g.d.rangeQueryText(nil, t, idx, 7)))
		}
		put("point query, the reference's text (3 ids)", string(pointQueryText(nil, t, []int64{3, 1, 2})))
	}
	put("delete oldest, prepared (from, to, limit)", g.d.deleteOldest(t))
	for idx := range ib.NumIndexes {
		put("range query "+idx.String()+", prepared", g.d.rangeQuery(t, idx))
	}
	put("point query, prepared (3 ids)", g.d.pointQuery(t, 3))
	put("stats", g.d.tableStats(t))
	for _, q := range g.checks {
		put("stats: indexes", q)
	}
	for idx := range ib.NumIndexes {
		q := g.count(t, idx)
		if g.d.Name != "sqlite" {
			put("stats: plan of "+idx.String(), "EXPLAIN "+q)
		}
		put("stats: entries of "+idx.String(), q)
	}
	return b.Bytes()
}

// TestGoldenSQL compares every statement of every dialect with testdata/DIALECT.sql, so that no
// change of the SQL goes unnoticed; go test -run GoldenSQL -update rewrites the files.
func TestGoldenSQL(t *testing.T) {
	for _, g := range goldenDialects {
		t.Run(g.name, func(t *testing.T) {
			got := statements(g, "pi1")
			path := filepath.Join("testdata", g.name+".sql")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run GoldenSQL -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the %s statements changed; if that is intended, go test -run GoldenSQL -update\n--- got\n%s\n--- want\n%s", g.name, got, want)
			}
		})
	}
}

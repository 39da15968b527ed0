package ibsql

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// literalPayloads are data values a literal INSERT must quote right: quotes, backslashes,
// both, a double quote, "?", empty.
var literalPayloads = [][]byte{[]byte("a'b"), []byte(`a\b`), []byte(`a\'b''`), []byte(`"q" ?`), []byte(`\`), []byte("'"), {}}

// literalRows are rows first.. with literalPayloads as their data.
func literalRows(first int64) []ib.Row {
	rows := make([]ib.Row, len(literalPayloads))
	ib.NewGenerator(rand.New(rand.NewPCG(2, 2)), ib.DataSpec{Min: 10, Max: 20}).Fill(rows, first, 1795363200)
	for i := range rows {
		rows[i].Data = literalPayloads[i]
	}
	return rows
}

// insertContract inserts literalRows on c, reads them back, then sends a batch whose
// middle row's id exists: the batch fails with the server's error (dup is its text) and none
// of its other rows is in the table, so a client counting rows only after success counts none.
func insertContract(t *testing.T, c ib.Conn, table string, first int64, dup string) {
	t.Helper()
	ctx := context.Background()
	rows := literalRows(first)
	if err := c.Insert(ctx, table, rows); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	got, err := c.PointQuery(ctx, table, ids, nil)
	if err != nil || len(got) != len(rows) {
		t.Fatalf("point query: %d rows, %v; want %d", len(got), err, len(rows))
	}
	for _, g := range got {
		if want := literalPayloads[g.ID-first]; !bytes.Equal(g.Data, want) {
			t.Errorf("id %d: data %q, want %q", g.ID, g.Data, want)
		}
	}
	batch := literalRows(first + 100)
	batch[3].ID = first // exists
	err = c.Insert(ctx, table, batch)
	if err == nil || !strings.Contains(err.Error(), dup) {
		t.Fatalf("a batch with an existing id: %v, want the server's %s", err, dup)
	}
	left, err := c.PointQuery(ctx, table, []int64{first + 100, first + 101, first + 102, first + 104, first + 105}, nil)
	if err != nil || len(left) != 0 {
		t.Errorf("the failed batch's other rows: %d in the table, %v; want none", len(left), err)
	}
	if n, err := c.DeleteOldest(ctx, table, first, first+int64(len(rows))); err != nil || n != int64(len(rows)) {
		t.Errorf("delete after the failed batch: %d rows, %v; want %d", n, err, len(rows))
	}
}

// TestMySQLLiteralsEverySQLMode: the literal INSERT's data reads back the same on the
// socket path and through database/sql whatever the session's sql_mode (backslash escapes on
// or off, ANSI_QUOTES), and a failed batch inserts none of its rows. No existing test changes
// sql_mode.
func TestMySQLLiteralsEverySQLMode(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"innodb", "rocksdb"} {
		st := openMySQLTest(t, engine)
		for mi, mode := range []string{"", "NO_BACKSLASH_ESCAPES", "ANSI_QUOTES,NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"} {
			t.Run(fmt.Sprintf("%s/%q", engine, mode), func(t *testing.T) {
				table := fmt.Sprintf("review_%s_%d", engine, mi)
				if err := st.CreateTables(ctx, []string{table}); err != nil {
					t.Fatal(err)
				}
				wire, plain := myConns(t, st)
				for pi, c := range []*sqlConn{wire, plain} {
					if _, err := c.c.ExecContext(ctx, "SET SESSION sql_mode = '"+mode+"'"); err != nil {
						t.Fatal(err)
					}
					insertContract(t, c, table, int64(1000*(pi+1)), "1062")
				}
			})
		}
	}
}

// TestPGLiterals: the same on PostgreSQL, on the socket path and through pgx.
func TestPGLiterals(t *testing.T) {
	for pi, path := range []driver.ClientPath{driver.ClientKernel, driver.ClientDriver} {
		t.Run(string(path), func(t *testing.T) {
			table := fmt.Sprintf("review_pg_%d", pi)
			st := openPostgresPath(t, table, path)
			c, err := st.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			insertContract(t, c, table, 1000, "23505")
		})
	}
}

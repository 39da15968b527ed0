package sysbench

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// bulkBytes is the most a load statement holds: sysbench's bulk insert sends one statement
// per 512 KiB (db_driver.c:45-46, 880-931). dbperf packs a fixed number of rows, the most whose
// longest text fits, so the step's length is known.
const bulkBytes = 512 * 1024

// rowsPerStatement is how many rows of the longest form fit in bulkBytes.
func rowsPerStatement() int64 {
	longest := len("(2147483647, 2147483647, '") + len(CTemplate) + len("', '") + len(PadTemplate) + len("'),")
	return int64(bulkBytes / longest)
}

// CreateTable is oltp_common.lua's CREATE TABLE (150-197) for a dialect: id SERIAL on
// PostgreSQL, AUTO_INCREMENT on MySQL with --auto-inc, an INTEGER primary key (SQLite's rowid)
// on SQLite; engine is MySQL's /*! ENGINE = ... */.
func CreateTable(dialect string, table int, autoInc bool, engine string) string {
	idDef, engineDef := "INTEGER NOT NULL", ""
	switch dialect {
	case "postgres":
		if autoInc {
			idDef = "SERIAL"
		}
	case "mysql":
		if autoInc {
			idDef = "INTEGER NOT NULL AUTO_INCREMENT"
		}
		if engine == "" {
			engine = "innodb"
		}
		engineDef = "/*! ENGINE = " + engine + " */"
	}
	return fmt.Sprintf("CREATE TABLE sbtest%d(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) %s ", table, idDef, engineDef)
}

// Engine is a store's MySQL storage engine, if it has one.
type Engine interface{ Engine() string }

// loader is one prepare thread: its tables, the one it is loading, and the rows left.
type loader struct {
	b      *Bench
	conn   Conn
	g      *Rand
	tables []int
	cur    int   // index in tables
	next   int64 // the next row's id (1-based)
	buf    []byte
	c, pad []byte
}

// planPrepare is `sysbench TEST prepare` (oltp_common.lua:81-89, 199-241): tables dropped and
// created, then each loaded by one thread with multi-row INSERTs of k = rand.default(1,
// table_size) and c, pad from their templates, then, with --create-secondary, CREATE INDEX k_N.
func (b *Bench) planPrepare(ctx context.Context, conns []Conn) (*workload.StepPlan, error) {
	engine := ""
	if e, ok := b.store.(Engine); ok {
		engine = e.Engine()
	}
	threads := b.threads(StepPrepare)
	n := min(b.cfg.Threads, b.cfg.Tables)
	tablesOf := func(w int) []int {
		var ts []int
		for t := w + 1; t <= b.cfg.Tables; t += n {
			ts = append(ts, t)
		}
		return ts
	}
	var mine []int
	for _, w := range threads {
		mine = append(mine, tablesOf(w)...)
	}
	for _, t := range mine {
		if err := b.store.Exec(ctx, "DROP TABLE IF EXISTS sbtest"+strconv.Itoa(t)); err != nil {
			return nil, fmt.Errorf("dropping sbtest%d: %w", t, err)
		}
		if err := b.store.Exec(ctx, CreateTable(b.store.Dialect(), t, b.cfg.AutoInc, engine)); err != nil {
			return nil, fmt.Errorf("creating sbtest%d: %w", t, err)
		}
	}
	rows := b.cfg.LoadRows()
	per := rowsPerStatement()
	stmts := max(1, (rows+per-1)/per) // one call per statement; a table of no rows still gets its index
	plan := &workload.StepPlan{Progress: OpLoad, Total: rows * int64(len(mine)), Main: OpLoad, Write: OpLoad, Read: workload.None}
	s := &plan.Step
	s.Name, s.Ops = StepPrepare, prepareOps
	for i, conn := range conns {
		w := threads[i]
		l := &loader{b: b, conn: conn, g: NewRand(b.cfg.Rand, b.rng(StepPrepare, w)), next: 1, tables: tablesOf(w)}
		s.Workers = append(s.Workers, runner.Worker{Name: fmt.Sprintf("prepare %d", w+1), Primary: true,
			Schedule: runner.ClosedLoop{Limit: stmts * int64(len(l.tables))}, Do: l.do})
	}
	if len(s.Workers) == 0 { // a shard beyond the prepare threads: nothing of its own to load
		s.Workers = append(s.Workers, runner.Worker{Name: "prepare (none)", Primary: true, Schedule: runner.ClosedLoop{Limit: 1},
			Do: func(context.Context, int) (measure.Op, int64, error) { return OpLoad, 0, nil }})
	}
	b.loaded = true
	return plan, nil
}

// do sends one load statement; after a table's last, it creates the k index. A retry sends
// the same statement again.
func (l *loader) do(ctx context.Context, attempt int) (measure.Op, int64, error) {
	cfg := &l.b.cfg
	table := l.tables[l.cur]
	rows := cfg.LoadRows()
	n := min(rowsPerStatement(), rows-l.next+1)
	if attempt == 0 && n > 0 {
		l.fill(table, n)
	}
	if n > 0 {
		if _, err := l.conn.Text(ctx, l.buf); err != nil {
			return OpLoad, 0, err
		}
	}
	if l.next+n > rows && cfg.CreateSecondary {
		if _, err := l.conn.Text(ctx, fmt.Appendf(nil, "CREATE INDEX k_%d ON sbtest%d(k)", table, table)); err != nil {
			return OpLoad, n, err
		}
	}
	l.next += n
	if l.next > rows {
		l.cur, l.next = l.cur+1, 1
	}
	return OpLoad, n, nil
}

// fill writes the INSERT of n rows from l.next into l.buf (oltp_common.lua:204-231).
func (l *loader) fill(table int, n int64) {
	cfg := &l.b.cfg
	l.buf = append(l.buf[:0], "INSERT INTO sbtest"...)
	l.buf = strconv.AppendInt(l.buf, int64(table), 10)
	if cfg.AutoInc {
		l.buf = append(l.buf, "(k, c, pad) VALUES"...)
	} else {
		l.buf = append(l.buf, "(id, k, c, pad) VALUES"...)
	}
	size := uint32(cfg.TableSize)
	for i := range n {
		l.c, l.pad = l.g.String(l.c, CTemplate), l.g.String(l.pad, PadTemplate)
		if i > 0 {
			l.buf = append(l.buf, ',')
		}
		l.buf = append(l.buf, '(')
		if !cfg.AutoInc {
			l.buf = strconv.AppendInt(l.buf, l.next+i, 10)
			l.buf = append(l.buf, ", "...)
		}
		l.buf = strconv.AppendUint(l.buf, uint64(l.g.Default(1, size)), 10)
		l.buf = append(l.buf, ", '"...)
		l.buf = append(l.buf, l.c...)
		l.buf = append(l.buf, "', '"...)
		l.buf = append(l.buf, l.pad...)
		l.buf = append(l.buf, "')"...)
	}
}

package ibsql

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// The three hot paths of the q and load steps on both servers, each reporting this process's
// CPU per operation (user and system apart), so that a regression of the client's own cost shows
// in `go test -bench`:
//
//	DBPERF_TEST_POSTGRES=postgres://postgres:PW@127.0.0.1:15497/dbperf \
//	DBPERF_TEST_MYSQL=mysql://dbperf:PW@127.0.0.1:13397/dbperf \
//	go test -run x -bench 'Hot' -benchtime 20000x -count 3 ./internal/workload/insertbench/ibsql/
//
// Each skips when its server's variable is unset. The C clients' figures on the same statements
// come from scripts/client-cost.sh (docs/performance.md).

// benchStore opens the target in the environment variable env, or skips.
func benchStore(b *testing.B, env string) ib.Store {
	dsn := os.Getenv(env)
	if dsn == "" {
		b.Skipf("%s is not set: give a server's target URL (dbperf server start ...) to run this benchmark", env)
	}
	t := testtargets.Open(b, dsn)
	st, ok := Bind(t)
	if !ok {
		b.Fatalf("%T is not a SQL target", t)
	}
	return st
}

// workerContext is a cancelable context, as the runner gives its workers: database/sql and the
// driver watch such a context on every statement (a goroutine, a channel hand-off), which they
// skip for context.Background().
func workerContext(b *testing.B) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return ctx
}

const hotTable, hotRows = "bench_hot", 100000

// hotConn returns a connection and makes sure hotTable holds hotRows rows with its indexes.
func hotConn(b *testing.B, st ib.Store) ib.Conn {
	ctx := context.Background()
	conn, err := st.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	if s, err := st.Stats(ctx, hotTable); err == nil && s.Rows == hotRows && s.IndexRows != nil {
		return conn
	}
	if err := st.CreateTables(ctx, []string{hotTable}); err != nil {
		b.Fatal(err)
	}
	gen := ib.NewGenerator(rand.New(rand.NewPCG(2, 2)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
	rows := make([]ib.Row, 100)
	for id := int64(1); id <= hotRows; id += 100 {
		gen.Fill(rows, id, 1795363200)
		if err := conn.Insert(ctx, hotTable, rows); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.CreateIndexes(ctx, hotTable); err != nil {
		b.Fatal(err)
	}
	if s, ok := st.(ib.Settler); ok {
		if _, err := s.Settle(ctx, []string{hotTable}, time.Time{}, 0.01); err != nil {
			b.Fatal(err)
		}
	}
	return conn
}

// benchRange runs b.N range queries (a random index each, as a querier does).
func benchRange(b *testing.B, conn ib.Conn) {
	ctx := workerContext(b)
	gen := ib.NewGenerator(rand.New(rand.NewPCG(3, 3)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
	var out []ib.IndexRow
	var err error
	b.ResetTimer()
	cpu := hostproc.ProcessCPU()
	for range b.N {
		idx := gen.PickIndex()
		if out, err = conn.RangeQuery(ctx, hotTable, idx, gen.RangeStart(idx), out[:0]); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, b.N, "query")
}

// benchPoint runs b.N point queries of ib.RowsPerQuery ids each.
func benchPoint(b *testing.B, conn ib.Conn) {
	ctx := workerContext(b)
	gen := ib.NewGenerator(rand.New(rand.NewPCG(4, 4)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
	ids := make([]int64, ib.RowsPerQuery)
	var out []ib.PointRow
	var err error
	b.ResetTimer()
	cpu := hostproc.ProcessCPU()
	for range b.N {
		gen.PointIDs(ids, 1, hotRows)
		if out, err = conn.PointQuery(ctx, hotTable, ids, out[:0]); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, b.N, "query")
}

// benchInsert runs b.N of l.i0's 100-row statements into a fresh table with only its primary
// key; the figures are per statement (a hundredth of that per row).
func benchInsert(b *testing.B, st ib.Store) {
	ctx := workerContext(b)
	if err := st.CreateTables(ctx, []string{"bench_hot_l0"}); err != nil {
		b.Fatal(err)
	}
	conn, err := st.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	gen := ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
	rows := make([]ib.Row, 100)
	b.ResetTimer()
	cpu := hostproc.ProcessCPU()
	for i := range b.N {
		gen.Fill(rows, int64(i)*100+1, 1795363200)
		if err := conn.Insert(ctx, "bench_hot_l0", rows); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, b.N, "stmt")
}

func BenchmarkHotPostgres(b *testing.B) {
	st := benchStore(b, "DBPERF_TEST_POSTGRES")
	conn := hotConn(b, st)
	b.Run("range", func(b *testing.B) { benchRange(b, conn) })
	b.Run("point", func(b *testing.B) { benchPoint(b, conn) })
	b.Run("insert100", func(b *testing.B) { benchInsert(b, st) })
}

func BenchmarkHotMariaDB(b *testing.B) {
	st := benchStore(b, "DBPERF_TEST_MYSQL")
	conn := hotConn(b, st)
	b.Run("range", func(b *testing.B) { benchRange(b, conn) })
	b.Run("point", func(b *testing.B) { benchPoint(b, conn) })
	b.Run("insert100", func(b *testing.B) { benchInsert(b, st) })
}

// BenchmarkInsertText is l.i0's own work per 100-row statement without a server: drawing the
// rows and writing the literal INSERT (sysbench, its C counterpart, only formats the text).
//
// "warm" builds statements back to back. "cold" first overwrites 64 MiB, more than the last
// level of cache, before each (outside the timing), as the DBMS and the host's other work do on
// a shared machine while the client waits for a reply: what the client's own memory costs when
// it has to come back from DRAM, which is how dbperf meets it in a real step. Each cold
// statement takes milliseconds of untimed eviction, so it runs only with a count:
// -benchtime 2000x.
func BenchmarkInsertText(b *testing.B) {
	for _, cold := range []bool{false, true} {
		name := map[bool]string{false: "warm", true: "cold"}[cold]
		b.Run(name, func(b *testing.B) {
			if bt := flag.Lookup("test.benchtime"); cold && !strings.HasSuffix(bt.Value.String(), "x") {
				b.Skip("cold evicts 64 MiB before each statement: give a count, -benchtime 2000x")
			}
			gen := ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
			rows := make([]ib.Row, 100)
			var buf, evict []byte
			var ts stamp
			if cold {
				evict = make([]byte, 64<<20)
			}
			for i := 0; b.Loop(); i++ {
				if cold {
					b.StopTimer()
					for j := 0; j < len(evict); j += 64 {
						evict[j]++
					}
					b.StartTimer()
				}
				gen.Fill(rows, int64(i)*100+1, 1795363200)
				buf = appendInsertLiteral(buf[:0], "bench_hot_l0", rows, ts.literal(rows[0].DateAndTime), true)
			}
		})
	}
}

package ibsql

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/hostproc"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/jackc/pgx/v5"
)

// The client's own CPU per operation against a real PostgreSQL (dbperf server start postgres;
// DBPERF_TEST_POSTGRES=postgres://postgres@127.0.0.1:15432/dbperf):
//
//	go test -run x -bench Postgres -benchtime 200000x -count 5 ./internal/workload/insertbench/ibsql/ | tee bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest bench.txt
//
// cpu-us/row and cpu-us/query are this process's user+system CPU (the server's processes are
// not in it) divided by the rows or queries; user-us and sys-us split it.

func benchPostgres(b *testing.B) *pgStore {
	return benchStore(b, "DBPERF_TEST_POSTGRES").(*pgStore)
}

func reportCPU(b *testing.B, before hostproc.CPUTime, n int, unit string) {
	d := hostproc.ProcessCPU().Sub(before)
	b.ReportMetric(float64(d.Total().Nanoseconds())/1e3/float64(n), "cpu-us/"+unit)
	b.ReportMetric(float64(d.User.Nanoseconds())/1e3/float64(n), "user-us/"+unit)
	b.ReportMetric(float64(d.System.Nanoseconds())/1e3/float64(n), "sys-us/"+unit)
}

// BenchmarkPostgresInsertL0 inserts b.N rows in l.i0's 100-row statements into a table with only
// its primary key: the client side of l.i0 (row generation, statement building, the round trip).
// "literal" is what dbperf does (the reference's literal multi-row INSERT, over wire.Postgres's
// socket path); "literal-pgconn" sends it through pgconn; "bound" binds the 700 parameters
// through pgx instead, for comparison.
func BenchmarkPostgresInsertL0(b *testing.B) {
	p := benchPostgres(b)
	ctx := context.Background()
	for _, mode := range []string{"literal", "literal-pgconn", "bound"} {
		b.Run(mode, func(b *testing.B) {
			if err := p.CreateTables(ctx, []string{"bench_l0"}); err != nil {
				b.Fatal(err)
			}
			conn, err := p.Connect(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			pc := inner(conn).(*pgConn)
			pc.noWire = mode != "literal"
			gen := ib.NewGenerator(rand.New(rand.NewPCG(1, 1)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
			rows := make([]ib.Row, 100)
			var args []any
			b.ResetTimer()
			cpu := hostproc.ProcessCPU()
			for id := int64(1); id <= int64(b.N); id += 100 {
				n := min(100, int64(b.N)-id+1)
				gen.Fill(rows[:n], id, 1795363200)
				if mode != "bound" {
					err = conn.Insert(ctx, "bench_l0", rows[:n])
				} else {
					args = args[:0]
					for i := range rows[:n] {
						r := &rows[i]
						args = append(args, r.ID, time.Unix(r.DateAndTime, 0).UTC(), r.CashRegister, r.Customer, r.Product, r.Price, r.Data)
					}
					var px *pgx.Conn
					if px, err = pc.pgx(); err == nil {
						_, err = px.Exec(ctx, postgres.insert("bench_l0", int(n)), args...)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, b.N, "row")
		})
	}
}

// BenchmarkPostgresRangeQuery runs b.N range queries (the three kinds in turn) on an indexed
// table of 100,000 rows: the client side of a qr step's querier.
func BenchmarkPostgresRangeQuery(b *testing.B) {
	p := benchPostgres(b)
	ctx := context.Background()
	const table = "bench_qr"
	var st ib.TableStats
	if s, err := p.Stats(ctx, table); err == nil {
		st = s
	}
	conn, err := p.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if st.Rows != 100000 || st.IndexRows == nil {
		if err := p.CreateTables(ctx, []string{table}); err != nil {
			b.Fatal(err)
		}
		gen := ib.NewGenerator(rand.New(rand.NewPCG(2, 2)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
		rows := make([]ib.Row, 100)
		for id := int64(1); id <= 100000; id += 100 {
			gen.Fill(rows, id, 1795363200)
			if err := conn.Insert(ctx, table, rows); err != nil {
				b.Fatal(err)
			}
		}
		if err := p.CreateIndexes(ctx, table); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Settle(ctx, []string{table}, time.Time{}, 1); err != nil {
			b.Fatal(err)
		}
	}
	// "wire" is what dbperf does (wire.Postgres); "pgconn" runs the same prepared statement through
	// pgconn; "pgx.Rows" scans it through pgx's rows API.
	for _, mode := range []string{"wire", "pgconn", "pgx.Rows"} {
		b.Run(mode, func(b *testing.B) {
			pc := inner(conn).(*pgConn)
			pc.noWire = mode != "wire"
			gen := ib.NewGenerator(rand.New(rand.NewPCG(3, 3)), ib.DataSpec{Min: 10, Max: 20, RandomPct: 50})
			var out []ib.IndexRow
			b.ResetTimer()
			cpu := hostproc.ProcessCPU()
			for i := range b.N {
				idx := ib.Index(i % int(ib.NumIndexes))
				x := gen.RangeStart(idx)
				if mode != "pgx.Rows" {
					out, err = conn.RangeQuery(ctx, table, idx, x, out[:0])
				} else {
					out, err = rowsRangeQuery(ctx, pc, table, idx, x, out[:0])
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, b.N, "query")
		})
	}
}

// rowsRangeQuery is the range query through pgx.Rows and Scan.
func rowsRangeQuery(ctx context.Context, c *pgConn, t string, idx ib.Index, x int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	pc, err := c.pgx()
	if err != nil {
		return out, err
	}
	rows, err := pc.Query(ctx, c.table(t).rangeQuery[idx], x)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var a, b, d int32
		var ts time.Time
		var r ib.IndexRow
		if idx == ib.PDC {
			err = rows.Scan(&a, &ts, &d)
			r = ib.IndexRow{int64(a), ts.Unix(), int64(d)}
		} else {
			err = rows.Scan(&a, &b, &d)
			r = ib.IndexRow{int64(a), int64(b), int64(d)}
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

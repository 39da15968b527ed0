package lbsql

import (
	"context"
	"os"
	"testing"

	"github.com/dbperf/dbperf/internal/hostproc"
	"github.com/dbperf/dbperf/internal/testtargets"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// BenchmarkHotLinkBench runs LinkBench operations on each server through the connection's own
// socket (driver/wire, "wire": what dbperf does) and through the driver ("driver": pgx, or
// database/sql with go-sql-driver/mysql), reporting this process's CPU per operation, user and
// system apart, so that a regression of the client's own cost shows in `go test -bench`:
//
//	DBPERF_TEST_POSTGRES=postgres://postgres:PW@127.0.0.1:15497/dbperf \
//	DBPERF_TEST_MYSQL=mysql://dbperf:PW@127.0.0.1:13397/dbperf \
//	go test -run x -bench HotLinkBench -benchtime 5000x -count 3 ./internal/workload/linkbench/lbsql/
//
// The operations are the request mix's most frequent read (GET_LINKS_LIST), a write (ADD_LINK
// on an existing link: a transaction of an upsert, a locking read and an update) and a node read
// (GET_NODE), on 1,000 nodes with 10 links each in a database of its own (dbperf_lbbench). Each
// server skips when its variable is unset.
func BenchmarkHotLinkBench(b *testing.B) {
	for _, srv := range []struct{ name, env string }{{"postgres", "DBPERF_TEST_POSTGRES"}, {"mariadb", "DBPERF_TEST_MYSQL"}} {
		b.Run(srv.name, func(b *testing.B) {
			st := benchStore(b, srv.env)
			for _, path := range []struct {
				name string
				lean bool
			}{{"wire", true}, {"driver", false}} {
				c, err := st.connect(context.Background(), path.lean)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				b.Run(path.name+"/get_link_list", func(b *testing.B) { benchOp(b, c, getLinkList) })
				b.Run(path.name+"/add_link", func(b *testing.B) { benchOp(b, c, addLink) })
				b.Run(path.name+"/get_node", func(b *testing.B) { benchOp(b, c, getNode) })
			}
		})
	}
}

const benchNodes, benchDegree = 1000, 10

func getLinkList(ctx context.Context, c *Conn, i int, out []lb.Link) ([]lb.Link, error) {
	return c.GetLinkList(ctx, int64(i%benchNodes+1), lb.FirstLinkType, 0, 1<<62, 0, 10000, out[:0])
}

func addLink(ctx context.Context, c *Conn, i int, out []lb.Link) ([]lb.Link, error) {
	l := lb.Link{ID1: int64(i%benchNodes + 1), LinkType: lb.FirstLinkType, ID2: int64(i%benchDegree + 1),
		Visibility: lb.VisibilityDefault, Data: []byte("a link's data, updated"), Time: int64(i), Version: int64(i)}
	_, err := c.AddLink(ctx, &l, int64(i))
	return out, err
}

func getNode(ctx context.Context, c *Conn, i int, out []lb.Link) ([]lb.Link, error) {
	_, found, err := c.GetNode(ctx, lb.NodeType, int64(i%benchNodes+1))
	if err == nil && !found {
		panic("a loaded node was not found")
	}
	return out, err
}

// benchOp runs op b.N times under a cancelable context, as the runner's workers have.
func benchOp(b *testing.B, c *Conn, op func(context.Context, *Conn, int, []lb.Link) ([]lb.Link, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out []lb.Link
	var err error
	b.ResetTimer()
	cpu := hostproc.ProcessCPU()
	for i := range b.N {
		if out, err = op(ctx, c, i, out); err != nil {
			b.Fatal(err)
		}
	}
	d := hostproc.ProcessCPU().Sub(cpu)
	b.ReportMetric(float64(d.Total().Nanoseconds())/1e3/float64(b.N), "cpu-us/op")
	b.ReportMetric(float64(d.User.Nanoseconds())/1e3/float64(b.N), "user-us/op")
	b.ReportMetric(float64(d.System.Nanoseconds())/1e3/float64(b.N), "sys-us/op")
}

// benchStore opens the server in env's variable, in database dbperf_lbbench, with the tables
// loaded; it skips when the variable is unset.
func benchStore(b *testing.B, env string) *Store {
	dsn := os.Getenv(env)
	if dsn == "" {
		b.Skipf("%s is not set: give a server's target URL (dbperf server start ...) to run this benchmark", env)
	}
	ctx := context.Background()
	st := openStore(b, testtargets.WithDatabase(dsn, "dbperf_lbbench"))
	c, err := st.connect(ctx, true)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var nodes []lb.Node
	var links []lb.Link
	var counts []lb.Count
	for id := int64(1); id <= benchNodes; id++ {
		nodes = append(nodes, lb.Node{ID: id, Type: lb.NodeType, Version: 1, Time: 1, Data: []byte("a node's data")})
		for j := int64(1); j <= benchDegree; j++ {
			links = append(links, lb.Link{ID1: id, LinkType: lb.FirstLinkType, ID2: j, Visibility: lb.VisibilityDefault,
				Data: []byte("a link's data"), Time: j, Version: 0})
		}
		counts = append(counts, lb.Count{ID1: id, LinkType: lb.FirstLinkType, Count: benchDegree, Time: benchDegree})
	}
	for i := 0; i < len(links); i += 1000 {
		if err := c.LoadLinks(ctx, links[i:min(i+1000, len(links))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.LoadCounts(ctx, counts); err != nil {
		b.Fatal(err)
	}
	if err := c.LoadNodes(ctx, nodes); err != nil {
		b.Fatal(err)
	}
	return st
}

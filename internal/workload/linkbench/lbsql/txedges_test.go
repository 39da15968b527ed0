package lbsql

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/testtargets"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// edgeStores opens every SQL server target (MySQL in both query modes, PostgreSQL) on the
// lean client path (kernel) and, in the last mode, through the driver.
func edgeStores(t *testing.T) map[string]*Store {
	t.Helper()
	out := map[string]*Store{}
	for name, target := range sqlTargets(t, "lbsql_edges", "edges") {
		if strings.HasPrefix(name, "sqlite") {
			continue
		}
		modes := []string{""}
		if strings.HasPrefix(name, "mysql") {
			modes = []string{QuerySimple, QueryPrepared}
		}
		for _, pm := range []struct {
			path driver.ClientPath
			mode string
		}{{driver.ClientKernel, modes[0]}, {driver.ClientKernel, modes[len(modes)-1]}, {driver.ClientDriver, modes[len(modes)-1]}} {
			path, mode := pm.path, pm.mode
			tg := testtargets.OpenPath(t, target, path)
			s, ok, err := Bind(tg, 0, mode)
			if !ok || err != nil {
				t.Fatalf("%s: bind %v %v", name, ok, err)
			}
			st := s.(*Store)
			if err := st.CreateTables(context.Background()); err != nil {
				t.Fatal(err)
			}
			out[name+"-"+st.QueryMode()+"-"+string(path)] = st
		}
	}
	return out
}

// edgeConn opens a connection to st after creating its tables again (the query modes of one
// server share them).
func edgeConn(t *testing.T, st *Store) *Conn {
	t.Helper()
	if err := st.CreateTables(context.Background()); err != nil {
		t.Fatal(err)
	}
	return edgeConnNoCreate(t, st)
}

// TestPayloadsEverySQLMode: every byte value, quotes, backslashes, NUL, invalid UTF-8,
// "?", empty, nil and a 1 MiB payload come back unchanged, and integers at the ends of int64
// too, whatever the session's sql_mode (backslash escapes on or off, ANSI_QUOTES). No existing
// test runs the lean path's literals against a server in another sql_mode.
func TestPayloadsEverySQLMode(t *testing.T) {
	ctx := context.Background()
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	payloads := [][]byte{all[:128], all[128:], {0, '\'', '\\', '"'}, {0xff, 0xfe, 0xc3}, []byte("a ? b x'00' \\' ''"), {}, nil}
	for name, st := range edgeStores(t) {
		modes := []string{""}
		if st.d.Name == "mysql" {
			modes = []string{"", "NO_BACKSLASH_ESCAPES", "ANSI_QUOTES,NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"}
		}
		for mi, mode := range modes {
			t.Run(fmt.Sprintf("%s/%q", name, mode), func(t *testing.T) {
				c := edgeConn(t, st)
				if st.d.Name == "mysql" {
					if _, err := c.c.exec(ctx, "SET SESSION sql_mode = '"+mode+"'"); err != nil {
						t.Fatal(err)
					}
				}
				id1 := int64(1000 * (mi + 1))
				big := bytes.Repeat([]byte{'\\', '\'', 0}, (1<<20)/3)
				for i, p := range append(payloads, big) {
					if p == nil && !st.lean {
						continue // the generator never makes nil; the driver sends it as NULL
					}
					n := lb.Node{ID: id1 + int64(i), Type: lb.NodeType, Version: 1, Time: 1, Data: p}
					if err := c.AddNode(ctx, &n); err != nil {
						t.Fatalf("node payload %d: %v", i, err)
					}
					got, found, err := c.GetNode(ctx, lb.NodeType, n.ID)
					if err != nil || !found || !bytes.Equal(got.Data, p) || got.Data == nil {
						t.Errorf("node payload %d (%d bytes): got %d bytes (nil %v), found %v, %v", i, len(p), len(got.Data), got.Data == nil, found, err)
					}
					if i == len(payloads) {
						continue // too long for a link
					}
					l := lb.Link{ID1: id1, ID2: int64(i), LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault, Data: p, Time: math.MaxInt64 - int64(i), Version: 0}
					if _, err := c.AddLink(ctx, &l, 1); err != nil {
						t.Fatalf("link payload %d: %v", i, err)
					}
					out, err := c.GetLinks(ctx, id1, lb.FirstLinkType, []int64{int64(i)}, nil)
					if err != nil || len(out) != 1 || !bytes.Equal(out[0].Data, p) || out[0].Time != l.Time {
						t.Errorf("link payload %d: got %+v, %v", i, out, err)
					}
				}
				out, err := c.GetLinkList(ctx, id1, lb.FirstLinkType, 0, math.MaxInt64, 0, 100, nil)
				want := len(payloads)
				if !st.lean {
					want-- // no nil payload
				}
				if err != nil || len(out) != want {
					t.Fatalf("link list: %d rows, %v; want %d", len(out), err, want)
				}
				for j, l := range out { // newest first: id2 0 has the highest time
					if p := payloads[j]; l.ID2 != int64(j) || !bytes.Equal(l.Data, p) || l.Time != math.MaxInt64-int64(j) {
						t.Errorf("link list row %d: id2 %d, time %d, data %x; want %d, %x", j, l.ID2, l.Time, l.Data, j, p)
					}
				}
				if n, err := c.CountLinks(ctx, id1, lb.FirstLinkType); err != nil || n != int64(want) {
					t.Errorf("count: %d, %v; want %d", n, err, want)
				}
			})
		}
	}
}

// TestMySQLIntegerEnds: the ends of int64 written into MySQL's text and read back.
func TestMySQLIntegerEnds(t *testing.T) {
	ctx := context.Background()
	for name, st := range edgeStores(t) {
		if st.d.Name != "mysql" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			c := edgeConn(t, st)
			var lo, hi, zero int64
			err := c.c.query(ctx, "SELECT ?, ?, ?", []any{int64(math.MinInt64), int64(math.MaxInt64), 0}, func(r rows) error {
				for r.Next() {
					if err := r.Scan(&lo, &hi, &zero); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil || lo != math.MinInt64 || hi != math.MaxInt64 || zero != 0 {
				t.Errorf("got %d %d %d, %v", lo, hi, zero, err)
			}
		})
	}
}

// edgeCheckClean checks, after a write transaction failed on c, that c is not left inside a
// transaction (a node it adds now is visible to another connection at once) and that the
// failed transaction's link (id1, id2) is not in the table.
func edgeCheckClean(t *testing.T, st *Store, c *Conn, id1, id2, node int64) {
	t.Helper()
	ctx := context.Background()
	if err := c.AddNode(ctx, &lb.Node{ID: node, Type: lb.NodeType, Version: 1, Time: 1, Data: []byte("n")}); err != nil {
		t.Fatalf("add node after the failure: %v", err)
	}
	other := edgeConnNoCreate(t, st)
	if _, found, err := other.GetNode(ctx, lb.NodeType, node); err != nil || !found {
		t.Errorf("the node added after the failure is not visible to another connection (found %v, %v): the failed transaction was left open", found, err)
	}
	if out, err := other.GetLinks(ctx, id1, lb.FirstLinkType, []int64{id2}, nil); err != nil || len(out) != 0 {
		t.Errorf("the failed add_link's link: %d rows, %v; want none (rolled back)", len(out), err)
	}
}

func edgeConnNoCreate(t *testing.T, st *Store) *Conn {
	t.Helper()
	c, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return inner(c).(*Conn)
}

// TestAddLinkCountFails: add_link inserts the link, then its count update fails (the
// count is at its column's maximum): the operation returns the server's error, not success,
// the insert is rolled back and the connection is clean for the next operation.
func TestAddLinkCountFails(t *testing.T) {
	ctx := context.Background()
	for name, st := range edgeStores(t) {
		t.Run(name, func(t *testing.T) {
			c := edgeConn(t, st)
			max := int64(math.MaxInt32)
			if st.d.Name == "mysql" {
				max = math.MaxUint32
			}
			if err := c.LoadCounts(ctx, []lb.Count{{ID1: 900, LinkType: lb.FirstLinkType, Count: max, Time: 1}}); err != nil {
				t.Fatal(err)
			}
			l := lb.Link{ID1: 900, ID2: 901, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault, Data: []byte("x"), Time: 5}
			_, err := c.AddLink(ctx, &l, 7)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "out of range") {
				t.Fatalf("add_link with the count at its maximum: %v, want the server's out-of-range error", err)
			}
			edgeCheckClean(t, st, c, 900, 901, 9001)
		})
	}
}

// TestAddLinkLockTimeout: add_link inserts its link, then waits for the count row another
// session holds until the server's lock timeout (MySQL 1205, which leaves InnoDB's transaction
// open with the insert in it; PostgreSQL 55P03): the error is returned and the transaction
// rolled back, so neither the link nor a half-open transaction outlives it.
func TestAddLinkLockTimeout(t *testing.T) {
	ctx := context.Background()
	for name, st := range edgeStores(t) {
		if strings.Contains(name, "rocksdb") {
			continue // MyRocks' lock timeout is its own variable
		}
		t.Run(name, func(t *testing.T) {
			c := edgeConn(t, st)
			if err := c.LoadCounts(ctx, []lb.Count{{ID1: 910, LinkType: lb.FirstLinkType, Count: 3, Time: 1}}); err != nil {
				t.Fatal(err)
			}
			holder := edgeConnNoCreate(t, st)
			if _, err := holder.c.exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if _, err := holder.c.exec(ctx, "UPDATE counttable SET count = 4 WHERE id = 910"); err != nil {
				t.Fatal(err)
			}
			timeout, code := "SET SESSION innodb_lock_wait_timeout = 1", "1205"
			if st.d.Name != "mysql" {
				timeout, code = "SET lock_timeout = '1s'", "55P03"
			}
			if _, err := c.c.exec(ctx, timeout); err != nil {
				t.Fatal(err)
			}
			l := lb.Link{ID1: 910, ID2: 911, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault, Data: []byte("x"), Time: 5}
			_, err := c.AddLink(ctx, &l, 7)
			if _, rerr := holder.c.exec(ctx, "ROLLBACK"); rerr != nil {
				t.Fatal(rerr)
			}
			if err == nil || !strings.Contains(err.Error(), code) {
				t.Fatalf("add_link blocked past the lock timeout: %v, want the server's %s", err, code)
			}
			edgeCheckClean(t, st, c, 910, 911, 9101)
			if n, err := c.CountLinks(ctx, 910, lb.FirstLinkType); err != nil || n != 3 {
				t.Errorf("count after the rolled-back add_link: %d, %v; want 3", n, err)
			}
		})
	}
}

// TestAddLinkDeadlock: add_link (link inserted, waiting for the count row) deadlocks with
// a heavier transaction that holds the count row and inserts the same link; the server aborts
// add_link (MySQL 1213, PostgreSQL 40P01): the error is returned with the server's text, the
// transaction rolled back, the connection clean.
func TestAddLinkDeadlock(t *testing.T) {
	ctx := context.Background()
	for name, st := range edgeStores(t) {
		if strings.Contains(name, "rocksdb") {
			continue // MyRocks detects no deadlocks by default
		}
		t.Run(name, func(t *testing.T) {
			c := edgeConn(t, st)
			var counts []lb.Count
			for id := int64(920); id < 970; id++ {
				counts = append(counts, lb.Count{ID1: id, LinkType: lb.FirstLinkType, Count: 3, Time: 1})
			}
			if err := c.LoadCounts(ctx, counts); err != nil {
				t.Fatal(err)
			}
			holder, watcher := edgeConnNoCreate(t, st), edgeConnNoCreate(t, st)
			waiting, code := "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'INSERT INTO counttable%'", "1213"
			if st.d.Name != "mysql" {
				waiting, code = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()", "40P01"
				if _, err := holder.c.exec(ctx, "SET deadlock_timeout = '20s'"); err != nil { // add_link's check comes first
					t.Fatal(err)
				}
			}
			for _, q := range []string{"BEGIN", "UPDATE counttable SET count = count + 1 WHERE id >= 920 AND id < 970"} {
				if _, err := holder.c.exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			l := lb.Link{ID1: 920, ID2: 921, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault, Data: []byte("x"), Time: 5}
			done := make(chan error, 1)
			go func() { _, err := c.AddLink(ctx, &l, 7); done <- err }()
			for n := int64(0); n == 0; { // add_link inserted its link and updates the count
				var err error
				if n, err = watcher.readInt(ctx, waiting); err != nil {
					t.Fatal(err)
				}
			}
			_, herr := holder.c.exec(ctx, c.d.insertIfMissing, l.ID1, l.ID2, l.LinkType, int64(1), []byte{}, int64(1), int64(0))
			err := <-done
			if _, rerr := holder.c.exec(ctx, "ROLLBACK"); rerr != nil {
				t.Fatal(rerr)
			}
			if err == nil {
				t.Skipf("the server chose the other transaction as the victim (%v)", herr)
			}
			if !strings.Contains(err.Error(), code) {
				t.Fatalf("add_link in a deadlock: %v, want the server's %s", err, code)
			}
			edgeCheckClean(t, st, c, 920, 921, 9201)
		})
	}
}

// TestPGCommitFails: add_link whose COMMIT fails with a serialization failure (40001,
// raised here by a deferred constraint trigger the test adds, which runs at COMMIT) returns the
// server's error, not success, and leaves neither its link, nor its count, nor an open
// transaction.
func TestPGCommitFails(t *testing.T) {
	ctx := context.Background()
	for name, st := range edgeStores(t) {
		if st.d.Name != "postgres" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			c := edgeConn(t, st)
			for _, q := range []string{
				"CREATE OR REPLACE FUNCTION edge_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'commit refused' USING ERRCODE = '40001'; END $$",
				"CREATE CONSTRAINT TRIGGER edge_refuse AFTER INSERT OR UPDATE ON counttable DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.id = 930) EXECUTE FUNCTION edge_refuse()",
			} {
				if _, err := c.c.exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			l := lb.Link{ID1: 930, ID2: 931, LinkType: lb.FirstLinkType, Visibility: lb.VisibilityDefault, Data: []byte("a"), Time: 5}
			_, err := c.AddLink(ctx, &l, 7)
			if err == nil || !strings.Contains(err.Error(), "40001") || !strings.Contains(err.Error(), "commit refused") {
				t.Fatalf("add_link failing at COMMIT: %v, want the server's 40001", err)
			}
			edgeCheckClean(t, st, c, 930, 931, 9301)
			if n, err := c.CountLinks(ctx, 930, lb.FirstLinkType); err != nil || n != 0 {
				t.Errorf("count after the failed COMMIT: %d, %v; want 0", n, err)
			}
		})
	}
}

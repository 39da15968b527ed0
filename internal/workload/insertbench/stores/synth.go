package stores

import (
	"context"
	"sync"

	"github.com/dbperf/dbperf/internal/driver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// synthStore is the Insert Benchmark on the synthetic target (driver.Synth): each table is its
// row count and id range, every statement answers at once (or after the target's latency), and
// queries return no row. It measures the client's own cost: its ceiling, and how shards raise
// it (docs/scale-out.md). Run it with --no-verify: its range queries find nothing to check.
type synthStore struct {
	t      *driver.Synth
	mu     sync.Mutex
	tables map[string]*ib.TableStats
}

func bindSynth(t driver.Target) (ib.Store, bool) {
	s, ok := t.(*driver.Synth)
	if !ok {
		return nil, false
	}
	return &synthStore{t: s, tables: map[string]*ib.TableStats{}}, true
}

func (s *synthStore) CreateTables(_ context.Context, tables []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tables {
		s.tables[t] = &ib.TableStats{}
	}
	return nil
}

func (s *synthStore) CreateIndexes(_ context.Context, table string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.tables[table]; st != nil {
		st.IndexRows = []int64{st.Rows, st.Rows, st.Rows}
	}
	return nil
}

func (s *synthStore) Connect(context.Context) (ib.Conn, error) { return synthConn{s}, nil }

func (s *synthStore) Stats(_ context.Context, table string) (ib.TableStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.tables[table]; st != nil {
		return *st, nil
	}
	return ib.TableStats{}, nil
}

// change applies a statement to a table's counts under the lock.
func (s *synthStore) change(table string, fn func(st *ib.TableStats)) {
	s.mu.Lock()
	st := s.tables[table]
	if st == nil {
		st = &ib.TableStats{}
		s.tables[table] = st
	}
	fn(st)
	for i := range st.IndexRows {
		st.IndexRows[i] = st.Rows
	}
	s.mu.Unlock()
}

type synthConn struct{ s *synthStore }

func (c synthConn) Insert(_ context.Context, table string, rows []ib.Row) error {
	c.s.t.Wait()
	if len(rows) == 0 {
		return nil
	}
	c.s.change(table, func(st *ib.TableStats) {
		if st.Rows == 0 {
			st.MinID = rows[0].ID
		}
		st.Rows += int64(len(rows))
		st.MaxID = max(st.MaxID, rows[len(rows)-1].ID)
	})
	return nil
}

func (c synthConn) DeleteOldest(_ context.Context, table string, from, to int64) (n int64, err error) {
	c.s.t.Wait()
	c.s.change(table, func(st *ib.TableStats) {
		n = min(max(to-from, 0), st.Rows)
		st.Rows -= n
		st.MinID = from + n
	})
	return n, nil
}

func (c synthConn) RangeQuery(_ context.Context, _ string, _ ib.Index, _ int64, out []ib.IndexRow) ([]ib.IndexRow, error) {
	c.s.t.Wait()
	return out, nil
}

func (c synthConn) PointQuery(_ context.Context, _ string, _ []int64, out []ib.PointRow) ([]ib.PointRow, error) {
	c.s.t.Wait()
	return out, nil
}

func (c synthConn) Close() error { return nil }

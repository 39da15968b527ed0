package script

import (
	"context"
	"testing"
)

// nopConn is a connection that does nothing: what is left is the script layer's own cost.
type nopConn struct{}

func (nopConn) Exec(context.Context, *Stmt) ([]Result, error) { return nil, nil }
func (nopConn) Rollback(context.Context) error                { return nil }
func (nopConn) InTransaction() bool                           { return false }
func (nopConn) Close() error                                  { return nil }

type nopStore struct{ fakeStore }

func (nopStore) Connect(context.Context) (Conn, error) { return nopConn{}, nil }

// BenchmarkClientTPCB is a tpcb-like transaction's cost in the script layer alone (its \set
// expressions, the statements' arguments, the op bookkeeping) in each query mode, with a
// connection that does nothing.
func BenchmarkClientTPCB(b *testing.B) {
	for _, mode := range []Mode{ModeSimple, ModeExtended, ModePrepared} {
		b.Run(mode.String(), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Sources = []Source{{Builtin: "tpcb-like", Weight: 1}}
			cfg.Mode, cfg.Steps = mode, []string{StepRun}
			bench, err := New(cfg, &nopStore{fakeStore{dialect: "postgres"}})
			if err != nil {
				b.Fatal(err)
			}
			cs, err := bench.clients(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, _, err := cs[0].do(context.Background(), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Package stores binds LinkBench to an opened target: each driver family's binding (the SQL of
// lbsql, the table-over-KV layout of lbkv) is one line of the registry below.
package stores

import (
	"context"
	"fmt"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
	"github.com/dbperf/dbperf/internal/workload/linkbench/lbkv"
	"github.com/dbperf/dbperf/internal/workload/linkbench/lbsql"
)

// Options are the target-specific choices of a binding.
type Options struct {
	Partitions int    // MySQL: PARTITION BY KEY(id1) PARTITIONS n on linktable; 0 for none
	QueryMode  string // SQL: simple, prepared, or "" for the DBMS's reference form (lbsql.Bind)
}

// For returns LinkBench's store on an opened target.
func For(t driver.Target, o Options) (lb.Store, error) {
	if _, mysql := t.(*sqldriver.MySQL); o.Partitions > 0 && !mysql {
		return nil, fmt.Errorf("--partitions applies to MySQL targets only, not %s", t.Info(context.Background()).Target)
	}
	if st, ok, err := lbsql.Bind(t, o.Partitions, o.QueryMode); ok {
		return st, err
	}
	if st, ok := lbkv.Bind(t); ok {
		if o.QueryMode != "" {
			return nil, fmt.Errorf("--query-mode applies to SQL targets only, not %s", t.Info(context.Background()).Target)
		}
		return st, nil
	}
	return nil, fmt.Errorf("target %s cannot run LinkBench", t.Info(context.Background()).Target)
}

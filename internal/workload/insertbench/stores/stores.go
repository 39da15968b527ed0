// Package stores binds the Insert Benchmark to an opened target: each driver family's binding
// (the benchmark's SQL, its table-over-KV layout) is one line of the registry below.
package stores

import (
	"context"
	"fmt"

	"github.com/dbperf/dbperf/internal/driver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
	"github.com/dbperf/dbperf/internal/workload/insertbench/ibkv"
	"github.com/dbperf/dbperf/internal/workload/insertbench/ibsql"
)

// binders are the Insert Benchmark's bindings by driver family; each returns false for a target
// of another family.
var binders = []struct {
	family string
	bind   func(driver.Target) (ib.Store, bool)
}{
	{"sql", ibsql.Bind},  // postgres, mysql, sqlite
	{"kv", ibkv.Bind},    // pebble, bbolt
	{"synth", bindSynth}, // the synthetic target: the client alone (synth.go)
}

// For returns the Insert Benchmark's store on an opened target. Bind a target once: a store may
// cache what it knows of the tables.
func For(t driver.Target) (ib.Store, error) {
	for _, b := range binders {
		if st, ok := b.bind(t); ok {
			return st, nil
		}
	}
	return nil, fmt.Errorf("target %s cannot run the Insert Benchmark", t.Info(context.Background()).Target)
}

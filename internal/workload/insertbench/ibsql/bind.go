package ibsql

import (
	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// Bind returns the Insert Benchmark's store on an opened SQL target; false when t is not one.
// A new SQL driver needs a dialect (dialect.go) and a case here.
func Bind(t driver.Target) (ib.Store, bool) {
	switch t := t.(type) {
	case *sqldriver.Postgres:
		return &pgStore{t: t}, true
	case *sqldriver.MySQL:
		return newMyStore(t), true
	case *sqldriver.SQLite:
		return &liteStore{t: t}, true
	}
	return nil, false
}

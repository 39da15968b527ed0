//go:build !rocksdb

package kvdriver

import (
	"context"
	"errors"

	"github.com/dbperf/dbperf/internal/driver"
)

// Without the rocksdb build tag the binary stays pure Go; the kind is still listed, and opening it
// says how to get it (as cockroachdb/pebble's cmd/pebble does).
func init() {
	driver.Register(driver.Kind{
		Name: "rocksdb", Usage: "rocksdb[:DIR]",
		Summary: "RocksDB through cgo: needs a binary built with -tags rocksdb (see README)",
		Open: func(context.Context, driver.Spec) (driver.Target, error) {
			return nil, errors.New("this dbperf was built without RocksDB: install librocksdb-dev and build with `go build -tags rocksdb ./cmd/dbperf`")
		},
	})
}

package kvdriver

import "github.com/dbperf/dbperf/internal/monitor"

// Every key-value store has each ability the monitor looks for. The assertions live in a test
// so that the drivers do not import the monitor (docs/architecture.md, the imports table).
var (
	_ monitor.Processes = (*DB)(nil)
	_ monitor.DataDir   = (*DB)(nil)
	_ monitor.Size      = (*DB)(nil)
	_ monitor.Counters  = (*DB)(nil)
)

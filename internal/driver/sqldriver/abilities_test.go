package sqldriver

import "github.com/dbperf/dbperf/internal/monitor"

// Every SQL target has each ability the monitor looks for. The assertions live in a test so
// that the drivers do not import the monitor (docs/architecture.md, the imports table).
var (
	_ monitor.Processes = (*Postgres)(nil)
	_ monitor.DataDir   = (*Postgres)(nil)
	_ monitor.Size      = (*Postgres)(nil)
	_ monitor.Counters  = (*Postgres)(nil)

	_ monitor.Processes = (*MySQL)(nil)
	_ monitor.DataDir   = (*MySQL)(nil)
	_ monitor.Size      = (*MySQL)(nil)
	_ monitor.Counters  = (*MySQL)(nil)

	_ monitor.Processes = (*SQLite)(nil)
	_ monitor.DataDir   = (*SQLite)(nil)
	_ monitor.Size      = (*SQLite)(nil)
	_ monitor.Counters  = (*SQLite)(nil)
)

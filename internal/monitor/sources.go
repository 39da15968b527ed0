// Package monitor samples the host and the DBMS on the runner's clock, once per interval, so
// that a per-second row of throughput lines up with CPU, IO and DBMS counters of the same
// second, and per-operation figures are divisions of the two.
package monitor

import "context"

// What a target can tell the monitor. Each is an optional ability, found with a type assertion
// on the opened target; a target that lacks one simply has fewer columns.

// Processes names the operating-system processes of the DBMS on this host, so their CPU, RSS and
// VSZ can be read from /proc: the postmaster and its children for PostgreSQL, mariadbd for
// MariaDB, this process for an embedded engine (Embedded reports that case). An error or an
// empty list means the DBMS runs elsewhere or cannot be found.
type Processes interface {
	DBMSProcesses(ctx context.Context) (pids []int, embedded bool, err error)
}

// DataDir is the directory holding the database on this host: its device's IO is measured, and
// its size on disk is the reference's dbgb2.
type DataDir interface {
	DataDir(ctx context.Context) (string, error)
}

// Size is the database's size as the DBMS reports it (the reference's dbgb1), in bytes.
type Size interface {
	DatabaseSize(ctx context.Context) (int64, error)
}

// Counters are the DBMS's own counters and gauges, sampled once per interval: PostgreSQL's
// pg_stat_database, pg_stat_bgwriter and WAL bytes; MySQL's SHOW GLOBAL STATUS; Pebble's
// Metrics; bbolt's and SQLite's statistics. Names are stable across samples; a counter that only
// grows is reported as its running total (the monitor turns totals into per-second rates only
// in reports, never by guessing here).
type Counters interface {
	DBMSCounters(ctx context.Context) (map[string]float64, error)
}

// CounterSet is every numeric counter the DBMS keeps, for counters.csv.gz: the Counters' names
// and values and beside them the rest (per table and per index rows, named by table or index;
// every status variable; per-level LSM figures). One call a second, under the monitor's query
// timeout; a part that could not be read is left out and the error says why. DBMSGauges names
// the gauges (path.Match patterns); every other name is a running total, whose rates the
// reports take.
type CounterSet interface {
	DBMSCounterSet(ctx context.Context) (map[string]float64, error)
	DBMSGauges() []string
}

// CountersSettler is a target whose counters publish its work late (PostgreSQL: a backend's
// last second of statistics when it exits, or 10 s after it went idle). At a step's end, its
// connections closed, the monitor asks it to wait, bounded, until the step's work is published,
// and takes the last tick's running totals after it, so that a short step does not read 0
// (docs/counters.md).
type CountersSettler interface {
	SettleCounters(ctx context.Context) error
}

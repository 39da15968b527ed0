package sqldriver

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgStatsIdle is how late an idle backend may publish its statistics. PostgreSQL 15+ flushes a
// backend's pending statistics at a transaction's end at most once per PGSTAT_MIN_INTERVAL
// (1 s); a backend that goes idle less than that after its last flush keeps them pending until
// its idle timer, PGSTAT_IDLE_INTERVAL (10 s), or its next transaction, or its exit, which
// flushes them (pgstat.c, pgstat_report_stat; the exit hook runs before the backend leaves
// pg_stat_activity). pg_stat_force_next_flush() (15+) acts on the calling backend only: no
// backend can make another flush. The margin covers the timer's wake-up on a busy host.
const pgStatsIdle = 10100 * time.Millisecond

// pgSettleSQL tells, for the client backends of the target's database other than the
// monitor's and the target's admin connection ($2: its checks between steps are not the
// step's work), how many were busy within pgStatsIdle (not idle, or idle for less than it),
// and how many the monitor may not see (NULL state without pg_read_all_stats).
const pgSettleSQL = `SELECT count(*) FILTER (WHERE state <> 'idle' OR clock_timestamp() - state_change < $1::interval),
	count(*) FILTER (WHERE state IS NULL)
	FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
	AND pid <> pg_backend_pid() AND pid <> $2`

// SettleCounters implements monitor.CountersSettler: it waits, until ctx ends, for every client
// backend of the database that was busy within pgStatsIdle to be gone (a closed connection's
// backend flushes as it exits) or to have been idle past it, so that the step's work is
// published. Backends it cannot see, it cannot wait for.
func (p *Postgres) SettleCounters(ctx context.Context) error {
	admin := int32(0)
	p.adminMu.Lock()
	if p.admin != nil {
		admin = int32(p.admin.PgConn().PID())
	}
	p.adminMu.Unlock()
	for {
		var busy, hidden int
		err := p.withMonitor(ctx, func(_ *pgMonitor, c *pgx.Conn) error {
			return c.QueryRow(ctx, pgSettleSQL, pgStatsIdle.String(), admin).Scan(&busy, &hidden)
		})
		if err != nil || busy == 0 || hidden > 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

package sqldriver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The settle step as the reference's iq.sh does it (vac_my and vac_pg, mdcallag/mytools
// bench/ibench/iq.sh:44-210): the DBMS's own maintenance, then a wait counted from the settle's
// start, so that the q steps begin from the same state as the published runs.

// SettleOptions say how long a settle lasts and how its fixed pauses scale.
type SettleOptions struct {
	// Until is the end of the settle's wait, counted from its start (iq.sh:52-53): settings
	// changed for the settle (InnoDB's dirty-page targets) stay changed until then.
	Until time.Time
	// Scale multiplies the reference's fixed pauses (MyRocks: 30 s without the compaction table,
	// 10-s polls, 20 s between the memtable flush and the L0 compaction). 1 is the reference's;
	// the small default run scales them down and says so in run.json.
	Scale float64
}

// pause sleeps d scaled, or until ctx ends.
func (o SettleOptions) pause(ctx context.Context, d time.Duration) error {
	return sleepCtx(ctx, time.Duration(float64(d)*o.Scale))
}

// waitUntil sleeps until o.Until and says how long that was.
func (o SettleOptions) waitUntil(ctx context.Context) (time.Duration, error) {
	d := time.Until(o.Until)
	if d <= 0 {
		return 0, nil
	}
	return d, sleepCtx(ctx, d)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// Settle is the reference's vac_my (iq.sh:97-210): RESET MASTER when the binlog is on
// (iq.sh:120); ANALYZE TABLE of every table in parallel in the background (iq.sh:122-126),
// waited for at the end (iq.sh:191-195); then InnoDB's dirty-page targets at 1% and idle flush at
// 100% for the whole wait, restored after it (iq.sh:128-139, 197-203), or MyRocks' wait for
// compaction, memtable flush, pause and L0 compaction (iq.sh:141-182). It returns what it did.
func (m *MySQL) Settle(ctx context.Context, tables []string, o SettleOptions) (string, error) {
	var done []string
	if note := m.resetBinlog(ctx); note != "" {
		done = append(done, note)
	}
	start := time.Now()
	analyzeErrs := make([]error, len(tables))
	var wg sync.WaitGroup
	for i, t := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			analyzeErrs[i] = m.analyze(ctx, t)
		}()
	}
	var err error
	if m.engine.rocksDB() {
		done, err = m.settleRocksDB(ctx, o, done)
	} else {
		done, err = m.settleInnoDB(ctx, o, done)
	}
	wg.Wait()
	done = append(done, fmt.Sprintf("analyze table of %d tables in parallel, done %s after the settle's start", len(tables), since(start)))
	if err != nil {
		return strings.Join(done, "; "), err
	}
	return strings.Join(done, "; "), errors.Join(analyzeErrs...)
}

// ResetBinlog runs RESET MASTER when the server writes a binlog, as the reference does before
// and after each step (np.sh:65, 523) and in settle (iq.sh:120), so that binlogs do not fill the
// disk; it says what it did, or "" when there is no binlog.
func (m *MySQL) ResetBinlog(ctx context.Context) string { return m.resetBinlog(ctx) }

func (m *MySQL) resetBinlog(ctx context.Context) string {
	var on int
	if err := m.db.QueryRowContext(ctx, "SELECT @@GLOBAL.log_bin").Scan(&on); err != nil || on == 0 {
		return ""
	}
	if err := m.exec(ctx, "RESET MASTER"); err != nil {
		return "reset master failed: " + err.Error()
	}
	return "reset master"
}

// analyze runs ANALYZE TABLE, which reports failure as a row rather than an error.
func (m *MySQL) analyze(ctx context.Context, t string) error {
	rows, err := m.db.QueryContext(ctx, "ANALYZE TABLE "+t)
	if err != nil {
		return fmt.Errorf("ANALYZE TABLE %s: %v", t, err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, op, msgType, msg sql.NullString
		if err := rows.Scan(&table, &op, &msgType, &msg); err != nil {
			return err
		}
		if strings.EqualFold(msgType.String, "error") {
			return fmt.Errorf("ANALYZE TABLE %s: %s", t, msg.String)
		}
	}
	return rows.Err()
}

// settleInnoDB sets innodb_max_dirty_pages_pct_lwm and innodb_max_dirty_pages_pct to 1 and
// innodb_idle_flush_pct to 100 (iq.sh:136-139; the last is MySQL 8.0.18+ only and skipped where
// absent, as the reference's 2>/dev/null does), keeps them for the whole wait, and restores them
// (iq.sh:197-203). The page cleaner's pace is the server's: no wait for zero dirty pages.
func (m *MySQL) settleInnoDB(ctx context.Context, o SettleOptions, done []string) ([]string, error) {
	type set struct {
		name, old, new string
	}
	var changed []set
	restore := func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mysqlDialTimeout)
		defer cancel()
		for i := len(changed) - 1; i >= 0; i-- { // reverse: pct before lwm, as iq.sh:199-200
			if err := m.exec(rctx, "SET GLOBAL "+changed[i].name+" = "+changed[i].old); err != nil {
				done = append(done, fmt.Sprintf("restoring %s to %s failed: %v", changed[i].name, changed[i].old, err))
			}
		}
	}
	before, _ := m.dirtyPages(ctx)
	for _, s := range []set{{"innodb_max_dirty_pages_pct_lwm", "", "1"}, {"innodb_max_dirty_pages_pct", "", "1"}, {"innodb_idle_flush_pct", "", "100"}} {
		if err := m.db.QueryRowContext(ctx, "SELECT @@GLOBAL."+s.name).Scan(&s.old); err != nil {
			done = append(done, s.name+" not set: this server has no such variable (the reference skips it too)")
			continue
		}
		if err := m.exec(ctx, "SET GLOBAL "+s.name+" = "+s.new); err != nil {
			restore()
			return done, fmt.Errorf("SET GLOBAL %s = %s: %v", s.name, s.new, err)
		}
		changed = append(changed, s)
	}
	var names []string
	for _, s := range changed {
		names = append(names, s.name+"="+s.new)
	}
	waited, err := o.waitUntil(ctx)
	after, _ := m.dirtyPages(ctx)
	restore()
	done = append(done, fmt.Sprintf("innodb %s for the wait of %s, then restored; dirty pages %d before, %d after",
		strings.Join(names, ", "), waited.Round(time.Millisecond), before, after))
	return done, err
}

func (m *MySQL) dirtyPages(ctx context.Context) (int64, error) {
	var name string
	var n int64
	err := m.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'").Scan(&name, &n)
	return n, err
}

// settleRocksDB is iq.sh:141-182: wait until information_schema.rocksdb_active_compaction_stats
// is empty (10-s polls; without that table, 30 s and go on), flush the memtable
// (rocksdb_force_flush_memtable_now), pause 20 s, then compact L0 (rocksdb_compact_lzero_now,
// "only works on releases from mid 2023", iq.sh:180). Never rocksdb_force_flush_memtable_and_
// lzero_now: "Not safe to use, see issues 1200 and 1295" (iq.sh:178-179).
func (m *MySQL) settleRocksDB(ctx context.Context, o SettleOptions, done []string) ([]string, error) {
	start := time.Now()
	for polls := 1; ; polls++ {
		var n int
		err := m.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.rocksdb_active_compaction_stats").Scan(&n)
		if err != nil {
			if ctx.Err() != nil {
				return done, ctx.Err()
			}
			done = append(done, fmt.Sprintf("no information_schema.rocksdb_active_compaction_stats in this MyRocks: paused %s instead, as the reference does (iq.sh:159-163)",
				time.Duration(float64(30*time.Second)*o.Scale).Round(time.Millisecond)))
			if err := o.pause(ctx, 30*time.Second); err != nil {
				return done, err
			}
			break
		}
		if n == 0 {
			done = append(done, fmt.Sprintf("rocksdb compaction stopped after %d polls (%s)", polls, since(start)))
			break
		}
		if err := o.pause(ctx, 10*time.Second); err != nil {
			return done, err
		}
	}
	if err := m.exec(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1"); err != nil {
		return done, fmt.Errorf("rocksdb memtable flush: %v", err)
	}
	done = append(done, "rocksdb_force_flush_memtable_now")
	if err := o.pause(ctx, 20*time.Second); err != nil {
		return done, err
	}
	err := m.exec(ctx, "SET GLOBAL rocksdb_compact_lzero_now = 1")
	var myErr *mysql.MySQLError
	switch {
	case err == nil:
		done = append(done, "rocksdb_compact_lzero_now")
	case errors.As(err, &myErr) && myErr.Number == 1193: // unknown system variable
		done = append(done, "no L0 compaction: this MyRocks lacks rocksdb_compact_lzero_now (the reference's; from mid-2023 releases, iq.sh:180), "+
			"and the unsafe rocksdb_force_flush_memtable_and_lzero_now is not used (iq.sh:178)")
	default:
		return done, fmt.Errorf("rocksdb_compact_lzero_now: %v", err)
	}
	waited, err := o.waitUntil(ctx)
	done = append(done, "waited "+waited.Round(time.Millisecond).String())
	return done, err
}

// Settle is the reference's vac_pg (iq.sh:44-95): VACUUM (VERBOSE, ANALYZE, INDEX_CLEANUP ON)
// of every table at once, one connection each (iq.sh:66-86), then CHECKPOINT (iq.sh:88), then
// the rest of the wait. It returns what it did.
func (p *Postgres) Settle(ctx context.Context, tables []string, o SettleOptions) (string, error) {
	start := time.Now()
	errs := make([]error, len(tables))
	var wg sync.WaitGroup
	for i, t := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := p.Connect(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close(context.WithoutCancel(ctx))
			if _, err := c.Exec(ctx, "VACUUM (ANALYZE, INDEX_CLEANUP ON) "+t); err != nil {
				errs[i] = fmt.Errorf("VACUUM %s: %w", t, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	done := []string{fmt.Sprintf("vacuum (analyze, index_cleanup on) of %d tables in parallel in %s", len(tables), since(start))}
	if _, err := p.Admin().Exec(ctx, "CHECKPOINT"); err != nil {
		done = append(done, "no checkpoint ("+err.Error()+")")
	} else {
		done = append(done, "checkpoint")
	}
	waited, err := o.waitUntil(ctx)
	done = append(done, "waited "+waited.Round(time.Millisecond).String())
	return strings.Join(done, "; "), err
}

package counters_test

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
)

// stallCF is the column family TestInducedStallMyRocks stalls: its own, so that its counters
// move for its event alone and its options change no other table's.
const stallCF = "dbperf_induced_stall"

// TestInducedStallMyRocks: a real write slowdown in one column family is counted in that
// family's stall counters (rocksdb_cf_stalls.CF.*, from SHOW ENGINE ROCKSDB STATUS), which
// are named among the counters that moved. The event lowers the family's L0 slowdown trigger
// to 2 files (and its compaction trigger with it, which RocksDB requires) and flushes twice
// while rows arrive: a flush that leaves 2 files in L0 slows writes until the compaction it
// starts has merged them (milliseconds; RocksDB counts the slowdown when the flush is
// installed, whatever the host's speed). The family's options are put back at the end.
func TestInducedStallMyRocks(t *testing.T) {
	u, err := url.Parse(envURL(t, "DBPERF_TEST_MYSQL"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/dbperf_counters_induced"
	q := u.Query()
	q.Set("engine", "rocksdb")
	u.RawQuery = q.Encode()
	tg := open(t, u.String())
	db := tg.(*sqldriver.MySQL).DB()
	ctx := context.Background()
	for _, s := range []string{"DROP TABLE IF EXISTS induced_stall",
		"CREATE TABLE induced_stall (id bigint AUTO_INCREMENT, v varchar(300), PRIMARY KEY (id) COMMENT 'cfname=" + stallCF + "') ENGINE=rocksdb"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	restore := cfOptions(t, db, stallCF, "LEVEL0_FILE_NUM_COMPACTION_TRIGGER", "LEVEL0_SLOWDOWN_WRITES_TRIGGER", "LEVEL0_STOP_WRITES_TRIGGER")
	t.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), "SET GLOBAL rocksdb_update_cf_options = ?", stallCF+"={"+restore+"}"); err != nil {
			t.Errorf("putting back %s's options (%s): %v", stallCF, restore, err)
		}
	})
	load := func(ctx context.Context) error {
		_, err := db.ExecContext(ctx, "INSERT INTO induced_stall (v) VALUES (REPEAT('x', 200)), (REPEAT('y', 200)), (REPEAT('z', 200))")
		return err
	}
	flush := func() error {
		if err := load(ctx); err != nil { // the memtable holds rows, so the flush writes a file
			return err
		}
		_, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1")
		return err
	}
	event := func() error {
		if _, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_update_cf_options = ?",
			stallCF+"={level0_file_num_compaction_trigger=2;level0_slowdown_writes_trigger=2;level0_stop_writes_trigger=100}"); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		return flush()
	}
	total := "rocksdb_cf_stalls." + stallCF + ".total"
	before := counter(t, tg, total)
	moved := induced(t, tg, archive.Target{Kind: "mysql", Settings: map[string]any{"engine": "rocksdb"}}, load, event,
		func() bool { return counter(t, tg, total) > before })
	if after := counter(t, tg, total); !(after > before) {
		t.Fatalf("%s: %g before the event, %g after: no stall counted", total, before, after)
	}
	if !named(moved, "rocksdb_cf_stalls."+stallCF+".level0_slowdown", "rocksdb_cf_stalls."+stallCF+".level0_slowdown_with_compaction") {
		t.Errorf("a slowdown in %s: the counters that moved do not name its stall counters: %v", stallCF, names(moved))
	}
}

// cfOptions reads a column family's options as rocksdb_update_cf_options writes them:
// "level0_file_num_compaction_trigger=4;...".
func cfOptions(t *testing.T, db *sql.DB, cf string, options ...string) string {
	t.Helper()
	var out []string
	for _, o := range options {
		var v string
		if err := db.QueryRow("SELECT VALUE FROM information_schema.ROCKSDB_CF_OPTIONS WHERE CF_NAME = ? AND OPTION_TYPE = ?", cf, o).Scan(&v); err != nil {
			t.Fatalf("%s's %s: %v", cf, o, err)
		}
		out = append(out, strings.ToLower(o)+"="+v)
	}
	return strings.Join(out, ";")
}

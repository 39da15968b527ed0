package insertbench_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/session"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// Between steps the check is a bounded sample that still finds a missing row at the FIFO's
// head; after the last step it is the full check; run.json says which ran when.
func TestChecksBetweenStepsAreBounded(t *testing.T) {
	for name, ts := range testTargets(t) {
		if name != "sqlite" && name != "postgres" && name != "mysql-innodb" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			_, store := openStore(t, ts)
			cfg := ib.DefaultConfig()
			cfg.Clients, cfg.Rows, cfg.Seed = 1, 500, 3
			cfg.Steps = []string{"l.i0", "l.x"}
			bench, err := ib.New(cfg, store)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "run")
			d, err := archive.Create(dir, archive.Run{Settings: bench.Settings()})
			if err != nil {
				t.Fatal(err)
			}
			if err := (&session.Session{Workload: bench, Dir: d, Out: io.Discard, Verify: true}).Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			meta, steps, err := archive.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			checks, _ := meta.Settings["checks"].(map[string]any)
			if !strings.HasPrefix(checks["between steps"].(string), "sample") || !strings.HasPrefix(checks["after l.x"].(string), "full") {
				t.Errorf("run.json checks = %v", meta.Settings["checks"])
			}
			if c, _ := steps[0].Workload["check"].(string); !strings.HasPrefix(c, "sample") {
				t.Errorf("l.i0's check = %q, want the sample", c)
			}
			if c, _ := steps[1].Workload["check"].(string); !strings.HasPrefix(c, "full") {
				t.Errorf("l.x's check = %q, want the full check", c)
			}

			conn, err := store.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.DeleteOldest(context.Background(), "pi1", 1, 2); err != nil {
				t.Fatal(err)
			}
			problems, err := bench.Verify(context.Background(), "l.i0")
			if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "9 of the ids 1..10 exist") {
				t.Errorf("sample check after deleting id 1: %q, %v", problems, err)
			}
			problems, err = bench.Verify(context.Background(), "l.x")
			if err != nil || len(problems) == 0 || !strings.Contains(problems[0], "has 599 rows") /* 500 + l.x's 100 */ {
				t.Errorf("full check after deleting id 1: %q, %v", problems, err)
			}
		})
	}
}

// No silent destruction: l.i0 refuses to drop a table of its names that dbperf did not create
// unless --drop; cleanup removes dbperf's tables and only those.
func TestNoSilentDrop(t *testing.T) {
	for name, ts := range testTargets(t) {
		var exec func(q string) error
		tg, store := openStore(t, ts)
		switch x := tg.(type) {
		case *sqldriver.Postgres:
			exec = func(q string) error { _, err := x.Admin().Exec(context.Background(), q); return err }
		case *sqldriver.MySQL:
			if name != "mysql-innodb" {
				continue
			}
			exec = func(q string) error { _, err := x.DB().Exec(q); return err }
		default:
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, q := range []string{"DROP TABLE IF EXISTS pi1", "CREATE TABLE pi1 (x int)", "DROP TABLE IF EXISTS pi2", "CREATE TABLE pi2 (x int)"} {
				if err := exec(q); err != nil {
					t.Fatal(err)
				}
			}
			cfg := ib.DefaultConfig()
			cfg.Clients, cfg.Rows, cfg.Steps = 1, 200, []string{"l.i0", "cleanup"}
			bench, err := ib.New(cfg, store)
			if err != nil {
				t.Fatal(err)
			}
			if err := bench.CheckStart(context.Background(), "the target"); err == nil || !strings.Contains(err.Error(), "pi1") || !strings.Contains(err.Error(), "--drop") {
				t.Fatalf("l.i0 over another's table pi1: %v", err)
			}
			cfg.Drop = true
			if bench, err = ib.New(cfg, store); err != nil {
				t.Fatal(err)
			}
			if err := bench.CheckStart(context.Background(), "the target"); err != nil {
				t.Fatalf("with --drop: %v", err)
			}
			dir := filepath.Join(t.TempDir(), "run")
			d, err := archive.Create(dir, archive.Run{})
			if err != nil {
				t.Fatal(err)
			}
			if err := (&session.Session{Workload: bench, Dir: d, Out: io.Discard}).Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			_, steps, err := archive.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(steps[1].Workload["dropped_tables"], steps[1].Workload["kept_tables"]); got != "[pi1] []" {
				t.Errorf("cleanup dropped, kept = %s; want [pi1] []", got)
			}
			// pi2 is another's: l.i0 of a 2-client run without --drop refuses it still.
			cfg.Clients, cfg.Drop = 2, false
			if bench, err = ib.New(cfg, store); err != nil {
				t.Fatal(err)
			}
			if err := bench.CheckStart(context.Background(), "the target"); err == nil || strings.Contains(err.Error(), "pi1") || !strings.Contains(err.Error(), "pi2") {
				t.Errorf("after cleanup: %v; want only pi2 named", err)
			}
			exec("DROP TABLE IF EXISTS pi2")
		})
	}
}

// --step-seconds ends load steps early; the client's account stays exact, so the next step and
// the checks find the FIFO where it is.
func TestStepSecondsEndsLoadSteps(t *testing.T) {
	_, store := openStore(t, testTargets(t)["sqlite"])
	cfg := ib.DefaultConfig()
	cfg.Clients, cfg.Rows, cfg.L1Rows, cfg.StepSeconds = 1, 50_000_000, 50_000_000, 0.5
	cfg.Steps = []string{"l.i0", "l.x", "l.i1"}
	bench, err := ib.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	d, err := archive.Create(dir, archive.Run{})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&session.Session{Workload: bench, Dir: d, Out: io.Discard, Verify: true}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, steps, err := archive.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{0, 2} {
		if n := steps[s].Ops["insert"].Count; n == 0 || n >= 50_000_000 || !steps[s].Verified {
			t.Errorf("%s: %d rows inserted, verified %v; want some, fewer than asked, and verified", steps[s].Step, n, steps[s].Verified)
		}
	}
}

package stores

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
	"github.com/dbperf/dbperf/internal/testtargets"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// Every embedded kind binds, with the settle step; a target of no family does not.
func TestFor(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"sqlite:" + filepath.Join(dir, "s.db"), "pebble:" + filepath.Join(dir, "p"), "bbolt:" + filepath.Join(dir, "b.db")} {
		tg := testtargets.Open(t, s)
		st, err := For(tg)
		if err != nil {
			t.Errorf("%s: %v", s, err)
		} else if _, ok := st.(ib.Settler); !ok {
			t.Errorf("%s: %T is not a Settler", s, st)
		}
		tg.Close()
	}
	if _, err := For(alien{}); err == nil || !strings.Contains(err.Error(), "alien:x cannot run the Insert Benchmark") {
		t.Errorf("a target of no family: %v", err)
	}
}

type alien struct{}

func (alien) Info(context.Context) driver.Info { return driver.Info{Target: "alien:x"} }
func (alien) Close() error                     { return nil }

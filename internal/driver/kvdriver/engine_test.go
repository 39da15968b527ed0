package kvdriver

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/driver"
)

var engines = []struct {
	kind string
	path func(dir string) string
}{
	{"pebble", func(dir string) string { return dir + "/db" }},
	{"bbolt", func(dir string) string { return dir + "/f.db" }},
}

func openTarget(t *testing.T, spec string) driver.Target {
	t.Helper()
	s, err := driver.Parse(spec)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	tg, err := driver.Open(context.Background(), s)
	if err != nil {
		t.Fatalf("Open(%q): %v", spec, err)
	}
	return tg
}

func TestStoreTemporary(t *testing.T) {
	for _, e := range engines {
		t.Run(e.kind, func(t *testing.T) {
			tg := openTarget(t, e.kind)
			s := tg.(*DB)
			dir := s.tempDir
			if dir == "" {
				t.Fatal("no temporary directory for a target without a path")
			}
			if info := tg.Info(context.Background()); info.Settings["temporary"] != true || info.Target != e.kind {
				t.Fatalf("Info = %+v", info)
			}
			if _, err := os.Stat(dir); err != nil {
				t.Fatal(err)
			}
			if err := tg.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("temporary directory %s remains after Close (stat: %v)", dir, err)
			}
		})
	}
}

func TestOpenBadPath(t *testing.T) {
	f := t.TempDir() + "/file"
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A path below a regular file cannot be opened by either engine.
	for _, e := range engines {
		s, err := driver.Parse(e.kind + ":" + f + "/sub/db")
		if err != nil {
			t.Fatal(err)
		}
		if tg, err := driver.Open(context.Background(), s); err == nil {
			tg.Close()
			t.Errorf("%s: opening a path below a file succeeded", e.kind)
		} else if !strings.Contains(err.Error(), "cannot open "+e.kind) {
			t.Errorf("%s: error %q does not say what could not be opened", e.kind, err)
		}
	}
}

package clientprocs

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	const s = time.Second
	for _, c := range []struct {
		name       string
		procs, max int
		cpu, wall  time.Duration
		want       int
	}{
		{"idle client keeps one processor", 1, 8, 0, s, 1},
		{"a third of a core with one processor: no change", 1, 8, s / 3, s, 1},
		{"0.4 of a core with one processor: doubled", 1, 8, 4 * s / 10, s, 2},
		{"a whole core with one processor: doubled, not more", 1, 8, s, s, 2},
		{"0.7 cores with two processors: still under 0.8", 2, 8, 7 * s / 10, s, 2},
		{"0.8 cores with two processors: four", 2, 8, 8 * s / 10, s, 4},
		{"never above the CPUs Go may use", 4, 6, 4 * s, s, 6},
		{"at the most already", 2, 2, 2 * s, s, 2},
		{"no wall time: no decision", 1, 8, s, 0, 1},
		{"never lowered", 4, 8, 0, s, 4},
	} {
		if got := Next(c.procs, c.max, c.cpu, c.wall); got != c.want {
			t.Errorf("%s: Next(%d, %d, %v, %v) = %d, want %d", c.name, c.procs, c.max, c.cpu, c.wall, got, c.want)
		}
	}
}

// A process that reports a busy core at every look gets two processors (or all it may use, if
// fewer); Stop gives GOMAXPROCS back. The CPU time is injected: the test must not depend on
// how busy the machine is.
func TestGovernorRaisesAndRestores(t *testing.T) {
	orig := runtime.GOMAXPROCS(0)
	var busy atomic.Bool
	begin := time.Now()
	g := start(func() time.Duration {
		if !busy.Load() {
			return 0
		}
		return time.Since(begin) * 3 // three cores busy: enough to raise at any processor count
	})
	if got := runtime.GOMAXPROCS(0); got != 1 || g.Procs() != 1 {
		t.Fatalf("after Start GOMAXPROCS is %d (Procs %d), want 1", got, g.Procs())
	}
	if orig > 1 && g.Most() != 1 {
		t.Fatalf("Most before any load = %d, want 1", g.Most())
	}
	busy.Store(true)
	deadline := time.Now().Add(time.Minute)
	for g.Procs() < min(2, orig) {
		if time.Now().After(deadline) {
			t.Fatalf("processors still %d after a minute of reported load", g.Procs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if m := g.Most(); m < min(2, orig) {
		t.Fatalf("Most = %d after a raise to %d", m, g.Procs())
	}
	g.Stop()
	if got := runtime.GOMAXPROCS(0); got != orig {
		t.Fatalf("after Stop GOMAXPROCS is %d, want %d", got, orig)
	}
	var none *Governor
	none.Stop()
	if none.Procs() != 0 || none.Most() != 0 {
		t.Fatal("a nil Governor reports processors")
	}
}

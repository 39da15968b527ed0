package runner

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestLagRecord(t *testing.T) {
	var l Lag
	for _, late := range []time.Duration{0, time.Millisecond, LateWakeup - 1, LateWakeup, 40 * time.Millisecond} {
		l.record(late)
	}
	if l.Paced != 5 || l.Late != 2 || l.Max != 40*time.Millisecond {
		t.Errorf("after wake-ups 0, 1ms, 5ms-1ns, 5ms, 40ms: %+v; want 5 paced, 2 late, max 40ms", l)
	}
	var nilLag *Lag
	nilLag.record(time.Second) // a schedule without a Lag records nothing and does not fail
	l.Add(Lag{Paced: 1, Late: 1, Max: time.Second})
	if l.Paced != 6 || l.Late != 3 || l.Max != time.Second {
		t.Errorf("after Add: %+v", l)
	}
}

// TestLagCountsOnlySleeps: a paced worker that keeps up sleeps before every operation but the
// first (due at the start) and wakes on time; one that falls behind because its operations are
// slow (the DBMS's doing) does not sleep, and its lateness is not the client's.
func TestLagCountsOnlySleeps(t *testing.T) {
	for _, c := range []struct {
		name      string
		op        time.Duration
		wantPaced int64
	}{
		{"10/s, 10ms ops: sleeps before ops 1..9", 10 * time.Millisecond, 9},
		{"10/s, 300ms ops: never sleeps after op 0", 300 * time.Millisecond, 0},
	} {
		synctest.Test(t, func(t *testing.T) {
			var lag Lag
			tick := Tick{Sleep: CoarseSleep, Start: time.Now(), Lag: &lag}
			s := ConstantRate{PerSec: 10, Limit: 10}
			for ; ; tick.N++ {
				if _, ok := s.Next(t.Context(), tick); !ok {
					break
				}
				time.Sleep(c.op)
			}
			if lag.Paced != c.wantPaced || lag.Late != 0 || lag.Max != 0 {
				t.Errorf("%s: %+v, want %d paced, none late", c.name, lag, c.wantPaced)
			}
		})
	}
}

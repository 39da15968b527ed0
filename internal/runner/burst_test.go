package runner

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestConstantRateBurst: at 100/s with a 100 ms burst, operations 0-9 are all due at the start,
// 10-19 at 100 ms, and so on (a token bucket refilled every 100 ms), where without a burst each
// is due 10 ms after the one before; the rate over whole periods is the same.
func TestConstantRateBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tick := Tick{Sleep: CoarseSleep, Start: start}
		even, burst := ConstantRate{PerSec: 100, Limit: 30}, ConstantRate{PerSec: 100, Limit: 30, Burst: 100 * time.Millisecond}
		for n := int64(0); n < 30; n++ {
			tick.N = n
			got, ok := burst.Next(t.Context(), tick)
			if want := start.Add(time.Duration(n/10) * 100 * time.Millisecond); !ok || !got.Equal(want) {
				t.Fatalf("burst: op %d due %v after the start, want %v", n, got.Sub(start), want.Sub(start))
			}
		}
		synctest.Wait()
		start = time.Now()
		tick = Tick{Sleep: CoarseSleep, Start: start}
		for n := int64(0); n < 30; n++ {
			tick.N = n
			if got, _ := even.Next(t.Context(), tick); !got.Equal(start.Add(time.Duration(n) * 10 * time.Millisecond)) {
				t.Fatalf("even: op %d due %v after the start", n, got.Sub(start))
			}
		}
	})
}

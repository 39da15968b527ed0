package driver

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSynthTarget: synth and synth:LATENCY open; a latency that is no duration is refused; the
// latency is what every operation waits.
func TestSynthTarget(t *testing.T) {
	for s, want := range map[string]time.Duration{"synth": 0, "synth:100us": 100 * time.Microsecond} {
		spec, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := Open(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if st := tg.(*Synth); st.Latency != want || tg.Info(context.Background()).Engine != "synthetic" {
			t.Errorf("%s: latency %s", s, st.Latency)
		}
		t0 := time.Now()
		tg.(*Synth).Wait()
		if time.Since(t0) < want {
			t.Errorf("%s: an operation took %s, less than its latency", s, time.Since(t0))
		}
	}
	spec, _ := Parse("synth:fast")
	if _, err := Open(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "not a duration") {
		t.Errorf("synth:fast: %v", err)
	}
}

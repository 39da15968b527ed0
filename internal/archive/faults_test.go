package archive

import (
	"testing"
	"time"
)

// The faults line names the kinds, most first, the retries and reconnects, and each window
// without the target, saying when one lasted to the step's end.
func TestFaultsLine(t *testing.T) {
	at := time.Date(2026, 11, 26, 3, 10, 1, 0, time.Local)
	f := &Faults{Errors: map[string]int64{"deadlock": 2, "connection_lost": 8, "other": 2}, Retries: 10, Reconnects: 6,
		Unreachable: []Window{{Start: at, End: at.Add(4200 * time.Millisecond), Seconds: 4.2}, {Start: at.Add(time.Minute), Seconds: 60}}}
	want := "faults: connection_lost 8, deadlock 2, other 2; 10 retries, 6 reconnects; without the target 4.2s from 03:10:01, without the target 60.0s from 03:11:01 to the step's end"
	if got := f.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := (&Faults{Retries: 3}).String(); got != "faults: no errors; 3 retries, 0 reconnects" {
		t.Errorf("got %s", got)
	}
}

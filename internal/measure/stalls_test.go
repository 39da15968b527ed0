package measure

import (
	"reflect"
	"testing"
	"time"
)

func TestDetectStalls(t *testing.T) {
	sec := func(ts, rate float64, max time.Duration) Second {
		return Second{T: ts, Seconds: 1, Rate: rate, MaxLatency: max}
	}
	ms := time.Millisecond
	secs := []Second{
		sec(1, 1000, 5*ms), sec(2, 1000, 5*ms), sec(3, 400, 5*ms), // below half the median: a stall
		sec(4, 300, 5*ms),                               // the same stall goes on
		sec(5, 1000, 5*ms), sec(6, 1000, 2*time.Second), // an operation over 1 s: a second stall
		sec(7, 1000, 5*ms),
		{T: 7.2, Seconds: 0.2, Rate: 10, MaxLatency: ms}, // short last interval: not judged by rate
	}
	got := DetectStalls(secs, DefaultStallRule)
	want := Stalls{Count: 2, LongestSec: 2, TotalSec: 3, At: []float64{3, 4, 6}, Rule: "rate < 0.5 x median, or an operation > 1s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DetectStalls = %+v, want %+v", got, want)
	}
	if got := DetectStalls(nil, DefaultStallRule); got.Count != 0 || got.TotalSec != 0 {
		t.Errorf("no seconds: %+v", got)
	}
}

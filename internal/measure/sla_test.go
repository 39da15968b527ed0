package measure_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

func TestParseSLA(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"query:p99<2ms", "query:p99<2ms", ""},
		{"get_link:p99.9<10ms", "get_link:p99.9<10ms", ""},
		{"insert:p50<500us", "insert:p50<500µs", ""},
		{"query:p100<2ms", "", "must be above 0 and below 100"},
		{"query:p99<2", "", "not of the form"},
		{"query p99<2ms", "", "not of the form"},
		{"query:p99<0s", "", "not a positive duration"},
	} {
		s, err := measure.ParseSLA(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseSLA(%q) error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || s.String() != c.want):
			t.Errorf("ParseSLA(%q) = %q, %v; want %q", c.in, s, err, c.want)
		}
	}
}

// TestSLAArithmetic: three seconds of 100 operations each, 1ms apart from 1ms to 100ms, except
// the second second, all at 150ms. p99 < 100ms holds in seconds 1 and 3 (their p99 is 99ms) and
// fails in second 2; over the step 200 of 300 operations are within the bound: goodput
// 200/3 s, 66.7%, and the step's p99 (150ms) misses it.
func TestSLAArithmetic(t *testing.T) {
	check := measure.SLACheck{SLA: measure.SLA{Op: "q", Percentile: 99, Bound: 100 * time.Millisecond}}
	total := measure.NewPacked()
	for sec := range 3 {
		h := measure.NewPacked()
		for i := 1; i <= 100; i++ {
			v := time.Duration(i) * time.Millisecond
			if sec == 1 {
				v = 150 * time.Millisecond
			}
			h.RecordValue(int64(v))
		}
		check.Interval(h)
		total.Merge(h)
	}
	check.Interval(measure.NewPacked()) // an idle second is not judged
	r := check.Result(&measure.OpInterval{Hist: total}, 3)
	if r.Met || r.ViolatedSeconds != 1 || r.Seconds != 3 || r.GoodputPerSec != 66.667 || r.WithinPct != 66.667 {
		t.Errorf("%+v; want not met, 1 of 3 seconds violated, goodput 66.667/s, 66.667%% within", r)
	}
	if r.ValueUs < 149_900 || r.ValueUs > 150_100 {
		t.Errorf("step p99 %v µs, want 150ms within the histogram's precision", r.ValueUs)
	}
}

package search

import (
	"math"
	"testing"
	"time"
)

// queue is a simulated target whose latency grows with load as an M/M/1 queue's: the p99 of
// response time at arrival rate λ with service rate μ is ln(100) / (μ - λ). Its SLA p99 < 2 ms
// holds up to the knee λ* = μ - ln(100)/0.002.
type queue struct{ mu float64 }

func (q queue) p99(rate float64) time.Duration {
	if rate >= q.mu {
		return time.Hour
	}
	return time.Duration(math.Log(100) / (q.mu - rate) * float64(time.Second))
}

func (q queue) knee(bound time.Duration) float64 { return q.mu - math.Log(100)/bound.Seconds() }

func TestSearchFindsTheKnee(t *testing.T) {
	for _, c := range []struct {
		name  string
		mu    float64
		start float64
	}{
		{"knee above the start", 50_000, 1000},
		{"knee below the start", 5_000, 40_000},
		{"knee far above", 900_000, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := queue{c.mu}
			cfg := Config{Start: c.start, Min: 1, Max: 10e6, Resolution: 0.02, MaxTrials: 40}
			r, err := Run(cfg, func(rate float64) (Outcome, error) {
				return Outcome{Pass: q.p99(rate) < 2*time.Millisecond}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			knee := q.knee(2 * time.Millisecond)
			if r.Rate > knee || r.Rate < knee*(1-cfg.Resolution) || r.Bounded {
				t.Errorf("found %.0f (fail %.0f, %d trials, %s), the knee is %.0f", r.Rate, r.Fail, len(r.Trials), r.Reason, knee)
			}
			// Doubling or halving to the knee, then halving a factor-2 bracket on a log scale down
			// to the resolution: each bounded by a base-2 logarithm, plus one trial of each.
			bound := math.Ceil(math.Abs(math.Log2(knee/c.start))) + math.Ceil(math.Log2(math.Ln2/math.Log1p(cfg.Resolution))) + 2
			if float64(len(r.Trials)) > bound {
				t.Errorf("%d trials, more than bracketing then bisecting needs (%v)", len(r.Trials), bound)
			}
		})
	}
}

func TestSearchBounds(t *testing.T) {
	cfg := Config{Start: 100, Min: 10, Max: 1000, Resolution: 0.05, MaxTrials: 20}
	all, _ := Run(cfg, func(float64) (Outcome, error) { return Outcome{Pass: true}, nil })
	if !all.Bounded || all.Rate != 1000 || all.Fail != 0 {
		t.Errorf("always passing: %+v, want bounded at the max rate", all)
	}
	none, _ := Run(cfg, func(float64) (Outcome, error) { return Outcome{Pass: false, Why: "p99"}, nil })
	if !none.Bounded || none.Rate != 0 || none.Fail != 10 {
		t.Errorf("never passing: %+v, want bounded at the min rate", none)
	}
	few, _ := Run(Config{Start: 100, Min: 1, Max: 1e9, Resolution: 0.0001, MaxTrials: 3},
		func(rate float64) (Outcome, error) { return Outcome{Pass: rate < 150}, nil })
	if len(few.Trials) != 3 || math.Abs(few.Rate-math.Sqrt(100*200)) > 1e-9 || few.Fail != 200 {
		t.Errorf("3 trials: %+v", few)
	}
	if err := (Config{Start: 0, Min: 1, Max: 1, Resolution: 2, MaxTrials: 1}).Validate(); err == nil {
		t.Error("a bad config was accepted")
	}
}

// TestSearchWhole: a closed loop's client count; the SLA holds up to 13 clients. Doubling from
// 1 brackets it between 8 and 16, then the middle whole numbers find 13 and 14 as neighbours.
func TestSearchWhole(t *testing.T) {
	var tried []float64
	r, err := Run(Config{Start: 1, Min: 1, Max: 1024, Resolution: 0.5, MaxTrials: 20, Whole: true}, func(n float64) (Outcome, error) {
		if n != math.Floor(n) {
			t.Fatalf("tried %v clients", n)
		}
		tried = append(tried, n)
		return Outcome{Pass: n <= 13}, nil
	})
	if err != nil || r.Rate != 13 || r.Fail != 14 {
		t.Errorf("found %v (fail %v) after %v: want 13 and 14", r.Rate, r.Fail, tried)
	}
	down, _ := Run(Config{Start: 64, Min: 1, Max: 1024, Resolution: 0.5, MaxTrials: 20, Whole: true}, func(n float64) (Outcome, error) {
		return Outcome{Pass: n <= 5}, nil
	})
	if down.Rate != 5 || down.Fail != 6 {
		t.Errorf("from above: found %v (fail %v), want 5 and 6", down.Rate, down.Fail)
	}
}

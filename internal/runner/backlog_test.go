package runner_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/runner"
)

// event is one producer action at a time after the start: adding units, or saying it is done.
type event struct {
	at   time.Duration
	add  int64
	done bool
}

func add(at time.Duration, n int64) event { return event{at: at, add: n} }
func done(at time.Duration) event         { return event{at: at, done: true} }

// claim is a Claim as seen by a consumer: what it covers, when it was due and when Take returned,
// both from the start.
type claim struct {
	first, n int64
	due, at  time.Duration
}

const ms = time.Millisecond

func TestBacklogTake(t *testing.T) {
	for _, tt := range []struct {
		name      string
		producers int
		events    []event
		take      int64
		from      time.Duration // when the consumer starts taking
		claims    []claim
		end       time.Duration // when Take returned false
	}{
		{"claims of 5 from adds of 5 are contiguous, each due at its add", 1,
			[]event{add(10*ms, 5), add(20*ms, 5), add(30*ms, 5), done(40 * ms)}, 5, 0,
			[]claim{{0, 5, 10 * ms, 10 * ms}, {5, 5, 20 * ms, 20 * ms}, {10, 5, 30 * ms, 30 * ms}}, 40 * ms},
		{"a claim spanning adds waits for, and is due at, the add that completes it", 1,
			[]event{add(10*ms, 3), add(20*ms, 4), add(30*ms, 6), done(40 * ms)}, 5, 0,
			[]claim{{0, 5, 20 * ms, 20 * ms}, {5, 5, 30 * ms, 30 * ms}, {10, 3, 30 * ms, 40 * ms}}, 40 * ms},
		{"an add of 12 serves two claims of 5 at once, and the 2 left once the producer is done", 1,
			[]event{add(10*ms, 12), done(20 * ms)}, 5, 0,
			[]claim{{0, 5, 10 * ms, 10 * ms}, {5, 5, 10 * ms, 10 * ms}, {10, 2, 10 * ms, 20 * ms}}, 20 * ms},
		{"10 units at done are two full claims of 5, and nothing is left", 1,
			[]event{add(10*ms, 10), done(20 * ms)}, 5, 0,
			[]claim{{0, 5, 10 * ms, 10 * ms}, {5, 5, 10 * ms, 10 * ms}}, 20 * ms},
		{"claims of 1 follow the adds one unit at a time", 1,
			[]event{add(10*ms, 2), add(20*ms, 1), done(30 * ms)}, 1, 0,
			[]claim{{0, 1, 10 * ms, 10 * ms}, {1, 1, 10 * ms, 10 * ms}, {2, 1, 20 * ms, 20 * ms}}, 30 * ms},
		{"with two producers, the backlog goes on after the first is done", 2,
			[]event{add(10*ms, 5), done(20 * ms), add(30*ms, 5), done(40 * ms)}, 5, 0,
			[]claim{{0, 5, 10 * ms, 10 * ms}, {5, 5, 30 * ms, 30 * ms}}, 40 * ms},
		{"with two producers, a short remainder waits for the second one's done", 2,
			[]event{add(10*ms, 3), done(20 * ms), done(50 * ms)}, 5, 0,
			[]claim{{0, 3, 10 * ms, 50 * ms}}, 50 * ms},
		{"a producer that adds nothing ends the backlog when done", 1,
			[]event{done(10 * ms)}, 5, 0,
			nil, 10 * ms},
		{"a late consumer's claims are due when their units were produced, then it waits again", 1,
			[]event{add(10*ms, 5), add(20*ms, 5), add(30*ms, 5), add(60*ms, 5), done(70 * ms)}, 5, 40 * ms,
			[]claim{{0, 5, 10 * ms, 40 * ms}, {5, 5, 20 * ms, 40 * ms}, {10, 5, 30 * ms, 40 * ms}, {15, 5, 60 * ms, 60 * ms}}, 70 * ms},
		{"a late consumer's claim spanning adds is due at the add that completed it", 1,
			[]event{add(10*ms, 3), add(20*ms, 4), add(30*ms, 6), done(40 * ms)}, 5, 50 * ms,
			[]claim{{0, 5, 20 * ms, 50 * ms}, {5, 5, 30 * ms, 50 * ms}, {10, 3, 30 * ms, 50 * ms}}, 50 * ms},
		{"without producers there is nothing to take", 0,
			nil, 5, 0,
			nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := runner.NewBacklog(tt.producers)
				start := time.Now()
				var produced int64
				go func() {
					for _, e := range tt.events {
						time.Sleep(start.Add(e.at).Sub(time.Now()))
						if e.done {
							b.ProducerDone()
						} else {
							b.Add(e.add)
						}
					}
				}()
				for _, e := range tt.events {
					produced += e.add
				}
				time.Sleep(tt.from)
				var got []claim
				for {
					c, ok := b.Take(t.Context(), tt.take)
					if !ok {
						break
					}
					got = append(got, claim{c.First, c.N, c.Due.Sub(start), time.Since(start)})
				}
				if end := time.Since(start); end != tt.end {
					t.Errorf("Take returned false at %v, want %v", end, tt.end)
				}
				if !slices.Equal(got, tt.claims) {
					t.Errorf("claims (first, n, due, at) = %v\nwant %v", got, tt.claims)
				}
				if c := b.Claimed(); c != produced {
					t.Errorf("Claimed() = %d, want all %d produced", c, produced)
				}
				// Once empty and done, the backlog stays so.
				if c, ok := b.Take(t.Context(), 1); ok {
					t.Errorf("Take after the end = %+v, true; want false", c)
				}
			})
		})
	}
}

func TestBacklogTakeCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := runner.NewBacklog(1)
		b.Add(3)
		ctx, cancel := context.WithTimeout(t.Context(), 50*ms)
		defer cancel()
		start := time.Now()
		if c, ok := b.Take(ctx, 5); ok {
			t.Errorf("Take(5) of 3 = %+v, true; want false once ctx ends", c)
		}
		if d := time.Since(start); d != 50*ms {
			t.Errorf("Take gave up after %v, want 50ms", d)
		}
		if c := b.Claimed(); c != 0 {
			t.Errorf("Claimed() = %d after a cancelled Take, want 0", c)
		}
		// The units are still there for the next consumer.
		b.Add(2)
		if c, ok := b.Take(t.Context(), 5); !ok || c.First != 0 || c.N != 5 {
			t.Errorf("Take(5) = %+v, %v; want [0, 5)", c, ok)
		}
	})
}

func TestBacklogWaitBelow(t *testing.T) {
	type take struct {
		at time.Duration
		n  int64
	}
	for _, tt := range []struct {
		name     string
		added    int64 // at the start, by the one producer, who is not done
		limit    int64
		takes    []take
		cancelAt time.Duration // 0: never
		at       time.Duration // when WaitBelow returns
		ok       bool
	}{
		{"returns at once when fewer than the limit are waiting", 3, 5, nil, 0, 0, true},
		{"returns at once on an empty backlog", 0, 1, nil, 0, 0, true},
		{"blocks until consumers have claimed enough", 10, 5, []take{{10 * ms, 3}, {20 * ms, 3}, {30 * ms, 3}}, 0, 20 * ms, true},
		{"exactly the limit waiting is not below it", 5, 5, []take{{10 * ms, 1}}, 0, 10 * ms, true},
		{"a claim that leaves the backlog at the limit does not wake it for good", 7, 5, []take{{10 * ms, 2}, {40 * ms, 1}}, 0, 40 * ms, true},
		{"gives up when ctx ends first", 10, 5, []take{{10 * ms, 3}}, 30 * ms, 30 * ms, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := runner.NewBacklog(1)
				if tt.added > 0 {
					b.Add(tt.added)
				}
				ctx := t.Context()
				if tt.cancelAt > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.cancelAt)
					defer cancel()
				}
				start := time.Now()
				var wg sync.WaitGroup
				wg.Go(func() {
					for _, tk := range tt.takes {
						time.Sleep(start.Add(tk.at).Sub(time.Now()))
						if _, ok := b.Take(t.Context(), tk.n); !ok {
							t.Errorf("Take(%d) at %v failed", tk.n, tk.at)
						}
					}
				})
				ok := b.WaitBelow(ctx, tt.limit)
				if at := time.Since(start); ok != tt.ok || at != tt.at {
					t.Errorf("WaitBelow(%d) = %v at %v, want %v at %v", tt.limit, ok, at, tt.ok, tt.at)
				}
				wg.Wait()
			})
		})
	}
}

// TestBacklogConcurrent has producers, gated by WaitBelow, and consumers run freely; the claims
// must tile the production order exactly. Run it with -race.
func TestBacklogConcurrent(t *testing.T) {
	const (
		producers = 4
		consumers = 4
		adds      = 500 // per producer, of 1 to 9 units
		take      = 7
		limit     = 50
	)
	b := runner.NewBacklog(producers)
	start := time.Now()
	var total int64
	for p := range producers {
		for i := range adds {
			total += int64(1 + (p+i)%9)
		}
	}
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			defer b.ProducerDone()
			for i := range adds {
				if !b.WaitBelow(t.Context(), limit) {
					t.Error("WaitBelow failed")
					return
				}
				b.Add(int64(1 + (p+i)%9))
			}
		})
	}
	claims := make([][]runner.Claim, consumers)
	for c := range consumers {
		wg.Go(func() {
			for {
				cl, ok := b.Take(t.Context(), take)
				if !ok {
					return
				}
				claims[c] = append(claims[c], cl)
			}
		})
	}
	wg.Wait()
	end := time.Now()

	all := slices.Concat(claims...)
	slices.SortFunc(all, func(a, b runner.Claim) int { return int(a.First - b.First) })
	var next int64
	for i, c := range all {
		if c.First != next {
			t.Fatalf("claim %d is [%d, %d), want it to start at %d: claims overlap or leave a gap", i, c.First, c.First+c.N, next)
		}
		if c.N != take && i != len(all)-1 {
			t.Errorf("claim %d is [%d, %d): %d units, want %d (only the last may be short)", i, c.First, c.First+c.N, c.N, take)
		}
		if c.N <= 0 || c.N > take {
			t.Errorf("claim %d has %d units", i, c.N)
		}
		if c.Due.Before(start) || c.Due.After(end) {
			t.Errorf("claim %d is due at %v, outside the test's [%v, %v]", i, c.Due, start, end)
		}
		if i > 0 && c.Due.Before(all[i-1].Due) {
			t.Errorf("claim %d is due at %v, before claim %d at %v: later units were produced later", i, c.Due, i-1, all[i-1].Due)
		}
		next += c.N
	}
	if next != total || b.Claimed() != total {
		t.Errorf("claims cover %d units, Claimed() = %d; want all %d produced", next, b.Claimed(), total)
	}
	if want := (total + take - 1) / take; int64(len(all)) != want {
		t.Errorf("%d claims, want %d", len(all), want)
	}
}

package runner_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

const never = time.Duration(1<<63 - 1)

// onGrid moves each arrival to phase ns past its unit (a microsecond, or a millisecond for
// bursts of simultaneous arrivals). Operations take whole microseconds and every stop (Duration, a closed loop's end, Until) comes on a whole
// millisecond, so an arrival never coincides with a stop: what happens at each instant does
// not depend on which goroutine runs first, and the model below is exact. Distinct phases keep
// the arrivals of a non-primary pool off the instants at which a primary pool's workers end.
type onGrid struct {
	a           runner.Arrivals
	unit, phase time.Duration
}

func (g onGrid) Next() time.Duration { return g.a.Next().Truncate(g.unit) + g.phase }

// stressPool is one pool of a randomized step, with what the model needs to replay it.
type stressPool struct {
	workers, maxBacklog int
	limit               int64
	primary             bool
	until               time.Duration
	poisson             bool
	rate, phase         float64
	seed                uint64
	unit, grid          time.Duration
}

func (p stressPool) arrivals() runner.Arrivals {
	var a runner.Arrivals = &runner.Constant{PerSec: p.rate, Phase: p.phase}
	if p.poisson {
		a = &runner.Poisson{PerSec: p.rate, RNG: rand.New(rand.NewPCG(p.seed, 7))}
	}
	return onGrid{a, p.unit, p.grid}
}

// leaves tells whether the pool abandons its backlog at a stop.
func (p stressPool) leaves() bool { return !p.primary || p.limit <= 0 }

// opTime is an operation's duration, a function of the instant it starts (so the model need not
// know which worker runs it): mostly short, some of tens of ms, a few very long.
func opTime(seed uint64, start time.Duration) time.Duration {
	r := rand.New(rand.NewPCG(seed, uint64(start)))
	switch x := r.IntN(100); {
	case x < 70:
		return time.Duration(1+r.IntN(2000)) * time.Microsecond
	case x < 95:
		return time.Duration(2000+r.IntN(48000)) * time.Microsecond
	default:
		return time.Duration(200_000+r.IntN(1_800_000)) * time.Microsecond
	}
}

// modelOut is what the ideal pool does: FIFO, the given number of workers, an arrival dropped iff
// it finds every worker busy and maxBacklog arrivals waiting.
type modelOut struct {
	lat                     []time.Duration
	arrivals, dropped, left int64
	waits                   []time.Duration // of the arrivals left: from when due to the stop
	end                     time.Duration   // when its last worker ends
}

// model replays a pool whose schedule ends at stop (never: no stop). At an instant, arrivals
// come before the operations that end then.
func model(p stressPool, opSeed uint64, stop time.Duration) modelOut {
	var out modelOut
	arr := p.arrivals()
	var offs []time.Duration
	for p.limit <= 0 || int64(len(offs)) < p.limit {
		o := arr.Next()
		if o > stop {
			break
		}
		offs = append(offs, o)
	}
	byStop := p.limit <= 0 || int64(len(offs)) < p.limit
	maxBacklog := p.maxBacklog
	if maxBacklog <= 0 {
		maxBacklog = runner.DefaultMaxBacklog
	}
	idle := p.workers
	var queue, ends []time.Duration // ends: sorted completion instants
	run := func(due, at time.Duration) {
		d := opTime(opSeed, at)
		out.lat = append(out.lat, at+d-due)
		i, _ := slices.BinarySearch(ends, at+d)
		ends = slices.Insert(ends, i, at+d)
	}
	for i := 0; i < len(offs) || len(ends) > 0; {
		if i < len(offs) && (len(ends) == 0 || offs[i] <= ends[0]) {
			a := offs[i]
			i++
			out.arrivals++
			switch {
			case idle > 0:
				idle--
				run(a, a)
			case len(queue) < maxBacklog:
				queue = append(queue, a)
			default:
				out.dropped++
			}
			continue
		}
		c := ends[0]
		ends = ends[1:]
		out.end = max(out.end, c)
		if len(queue) > 0 && !(p.leaves() && c > stop) {
			run(queue[0], c)
			queue = queue[1:]
		} else {
			idle++
		}
	}
	out.left = int64(len(queue))
	for _, due := range queue {
		out.waits = append(out.waits, stop-due)
	}
	if byStop {
		out.end = max(out.end, stop)
	}
	if p.until > 0 {
		out.end = max(out.end, min(p.until, stop))
	}
	return out
}

// TestPoolStress runs random steps in virtual time: one or two pools (primary or not, with and
// without a limit, Constant or Poisson arrivals, some in bursts at the same instant, 1-6 workers, small or default backlogs, Until),
// a primary closed-loop worker beside them, a Duration or none, operations of 1µs to 2s. Each
// must end, call each pool's Done once, and match an exact model of an ideal open-loop pool:
// the arrivals, drops and backlog left, every operation's latency (an arrival that finds a
// worker idle starts at once: no schedule lag in virtual time), and when the step ends.
func TestPoolStress(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0))
			var dur time.Duration
			if r.IntN(2) == 0 {
				dur = time.Duration(200+r.IntN(1800)) * time.Millisecond
			}
			pools := make([]stressPool, 1+r.IntN(2))
			for i := range pools {
				p := stressPool{workers: 1 + r.IntN(6), primary: r.IntN(2) == 0, poisson: r.IntN(2) == 0,
					rate: 5 + r.Float64()*495, phase: r.Float64(), seed: seed*10 + uint64(i)}
				if r.IntN(3) > 0 {
					p.limit = 1 + r.Int64N(200)
				}
				if p.primary && p.limit == 0 && dur == 0 {
					p.limit = 1 + r.Int64N(200)
				}
				if r.IntN(2) == 0 {
					p.maxBacklog = 1 + r.IntN(8)
				}
				if r.IntN(3) == 0 {
					p.until = time.Duration(100+r.IntN(3900)) * time.Millisecond
				}
				p.unit, p.grid = time.Microsecond, time.Nanosecond
				if r.IntN(4) == 0 {
					p.unit = time.Millisecond // several arrivals at the same instant
				}
				if !p.primary {
					p.grid = 2 * time.Nanosecond
				}
				pools[i] = p
			}
			closedN, closedOp := int64(0), time.Duration(0)
			if r.IntN(2) == 0 || !slices.ContainsFunc(pools, func(p stressPool) bool { return p.primary }) {
				closedN, closedOp = 1+r.Int64N(5), time.Duration(50+r.IntN(550))*time.Millisecond
			}
			cfg := fmt.Sprintf("duration %v, closed loop %d×%v, pools %+v", dur, closedN, closedOp, pools)

			// The model: primary pools see only the Duration's stop; the others see the first of
			// the Duration and the primaries' end.
			durStop := never
			if dur > 0 {
				durStop = dur
			}
			want := make([]modelOut, len(pools))
			primariesEnd := time.Duration(closedN) * closedOp
			for i, p := range pools {
				if p.primary {
					want[i] = model(p, seed*10+uint64(i), durStop)
					primariesEnd = max(primariesEnd, want[i].end)
				}
			}
			stopAt := min(durStop, primariesEnd)
			end := primariesEnd
			for i, p := range pools {
				if !p.primary {
					want[i] = model(p, seed*10+uint64(i), stopAt)
					end = max(end, want[i].end)
				}
			}

			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				dones := make([]atomic.Int64, len(pools))
				step := runner.Step{Sleep: runner.CoarseSleep, Ops: allOps, Duration: dur}
				for i, p := range pools {
					opSeed := seed*10 + uint64(i)
					do := func(ctx context.Context, _ int) (measure.Op, int64, error) {
						return measure.Op(i), 1, sleep(ctx, opTime(opSeed, time.Since(start)))
					}
					rp := runner.Pool{Name: fmt.Sprint("pool ", i), Arrivals: p.arrivals(), Limit: p.limit, MaxBacklog: p.maxBacklog,
						Primary: p.primary, Until: p.until, Done: func() { dones[i].Add(1) }}
					for range p.workers {
						rp.Do = append(rp.Do, do)
					}
					step.Pools = append(step.Pools, rp)
				}
				if closedN > 0 {
					step.Workers = append(step.Workers, runner.Worker{Name: "closed", Primary: true, Schedule: runner.ClosedLoop{Limit: closedN},
						Do: runner.Single(opQuery, func(ctx context.Context, _ int) (int64, error) { return 1, sleep(ctx, closedOp) })})
				}
				var arrivals, dropped, backlog int64
				step.Interval = func(iv *measure.Interval) {
					arrivals += iv.Arrivals
					dropped += iv.Dropped
					backlog = iv.Backlog
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
				defer cancel()
				res := runner.Run(ctx, step)
				if !res.Complete {
					t.Fatalf("%s: step failed: %v", cfg, res.Err)
				}
				var wantArrivals, wantDropped, wantLeft int64
				for i := range pools {
					wantArrivals += want[i].arrivals
					wantDropped += want[i].dropped
					wantLeft += want[i].left
					if n := dones[i].Load(); n != 1 {
						t.Errorf("pool %d: Done called %d times, want 1", i, n)
					}
					o := &res.Total.Ops[i]
					if o.Statements != int64(len(want[i].lat)) {
						t.Errorf("pool %d: %d operations, want %d", i, o.Statements, len(want[i].lat))
					}
					// The arrivals left waiting are in the latencies at their waits, when the pool
					// finished any operation to give them its op type.
					lat := want[i].lat
					if len(lat) > 0 {
						lat = append(slices.Clone(lat), want[i].waits...)
					}
					assertLatencies(t, o, lat)
					st := res.Streams[i]
					if st.Offered != want[i].arrivals || st.Achieved != int64(len(want[i].lat)) || st.Dropped != want[i].dropped ||
						st.NotStarted != want[i].left || st.Unfinished != 0 || st.Unattributed != (len(want[i].lat) == 0 && want[i].left > 0) {
						t.Errorf("pool %d: stream %+v; want offered %d, achieved %d, dropped %d, not started %d",
							i, st, want[i].arrivals, len(want[i].lat), want[i].dropped, want[i].left)
					}
				}
				if arrivals != wantArrivals || dropped != wantDropped || res.Dropped != wantDropped || backlog != wantLeft {
					t.Errorf("arrivals %d, dropped %d (result %d), left %d; want %d, %d, %d",
						arrivals, dropped, res.Dropped, backlog, wantArrivals, wantDropped, wantLeft)
				}
				if got := res.End.Sub(res.Start); got != end {
					t.Errorf("step lasted %v, want %v", got, end)
				}
				if t.Failed() {
					t.Logf("config: %s; model: stop at %v, primaries end at %v", cfg, stopAt, primariesEnd)
				}
			})
		})
	}
}

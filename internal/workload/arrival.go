package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/dbperf/dbperf/internal/runner"
)

// Stream is a step's stream of requests (queries, LinkBench requests, key-value reads) whose
// arrival process the run chooses with Arrival, the same way for every workload: the workload
// gives one function per client, each with its own connection, and says nothing of timing.
type Stream struct {
	Name string          // for error messages, e.g. "querier"
	Do   []runner.DoFunc // one per client
	// Primary streams define the step's length: they end after Limit operations in all, or
	// when the step's Duration ends. Other streams run until the primary workers are done.
	Primary bool
	Limit   int64 // operations in all; 0 for no limit
	// Timed: with a Limit, the step's Duration ends the stream too, whichever comes first.
	// Open-loop pools always stop taking arrivals at the Duration; closed-loop clients with a
	// limit otherwise run to it.
	Timed bool
}

// The arrival processes.
const (
	Closed   = "closed"   // each client issues its next operation when the last one ends
	Constant = "constant" // open loop: arrivals evenly spaced at Rate
	Poisson  = "poisson"  // open loop: arrivals with exponential gaps of mean 1/Rate
)

// Arrival is how a step's streams issue their operations. The zero value is a closed loop.
type Arrival struct {
	Process string  // Closed, Constant or Poisson; Closed if empty
	Rate    float64 // arrivals per second: in all, or per client with PerClient
	// PerClient makes Rate a rate of each client's, so the total scales with --clients.
	PerClient  bool
	MaxBacklog int    // open loop: arrivals that may wait for a free client (runner's default if 0)
	Seed       uint64 // open loop: the Poisson process's random stream
}

// ParseArrival reads --arrival and --rate ("20000" in all, or "500/client").
func ParseArrival(process, rate string) (Arrival, error) {
	a := Arrival{Process: process}
	switch process {
	case "", Closed:
		a.Process = Closed
		if rate != "" {
			return a, fmt.Errorf("--rate %s needs an open-loop arrival process: add --arrival constant or --arrival poisson", rate)
		}
		return a, nil
	case Constant, Poisson:
	default:
		return a, fmt.Errorf("unknown --arrival %q: give closed, constant or poisson", process)
	}
	if rate == "" {
		return a, fmt.Errorf("--arrival %s needs --rate: arrivals per second in all (e.g. 20000) or per client (e.g. 500/client)", process)
	}
	num, perClient := strings.CutSuffix(rate, "/client")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || v > 1e9 {
		return a, fmt.Errorf("--rate %q is not a positive number of arrivals per second (e.g. 20000 or 500/client)", rate)
	}
	a.Rate, a.PerClient = v, perClient
	return a, nil
}

// String describes the arrival process for run.json and the output.
func (a Arrival) String() string {
	if a.Process == "" || a.Process == Closed {
		return Closed
	}
	unit := "/s"
	if a.PerClient {
		unit = "/s per client"
	}
	return fmt.Sprintf("%s %g%s", a.Process, a.Rate, unit)
}

// Open tells whether the arrivals are open loop.
func (a Arrival) Open() bool { return a.Process == Constant || a.Process == Poisson }

// Apply adds a stream to a step as workers (closed loop: a limit is shared out among them) or
// as one pool whose workers are handed a global schedule (open loop).
func (a Arrival) Apply(s *runner.Step, st Stream) error {
	n := len(st.Do)
	if n == 0 {
		return errors.New("stream " + st.Name + " has no clients")
	}
	if !a.Open() {
		for i, do := range st.Do {
			limit := int64(0)
			if st.Limit > 0 {
				limit = st.Limit / int64(n)
				if int64(i) < st.Limit%int64(n) {
					limit++
				}
				if limit == 0 {
					continue
				}
			}
			s.Workers = append(s.Workers, runner.Worker{Name: fmt.Sprintf("%s %d", st.Name, i+1),
				Primary: st.Primary, Schedule: runner.ClosedLoop{Limit: limit, Timed: st.Timed}, Do: do})
		}
		return nil
	}
	rate := a.Rate
	if a.PerClient {
		rate *= float64(n)
	}
	var arr runner.Arrivals = &runner.Constant{PerSec: rate}
	if a.Process == Poisson {
		arr = &runner.Poisson{PerSec: rate, RNG: rand.New(rand.NewPCG(a.Seed, uint64(len(s.Pools))))}
	}
	s.Pools = append(s.Pools, runner.Pool{Name: st.Name, Arrivals: arr, Limit: st.Limit, Do: st.Do,
		MaxBacklog: a.MaxBacklog, Primary: st.Primary, Service: true})
	s.OpenLoop = true
	return nil
}

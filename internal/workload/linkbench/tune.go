package linkbench

import (
	"time"

	"github.com/dbperf/dbperf/internal/workload"
)

// SetArrival implements workload.Tunable: how the next request steps' requests arrive.
func (b *Bench) SetArrival(a workload.Arrival) { b.cfg.Arrival = a }

// SetStepSeconds implements workload.Tunable: the next request steps last this long, with no
// limit on the number of requests.
func (b *Bench) SetStepSeconds(s float64) {
	b.cfg.RequestTime = time.Duration(s * float64(time.Second))
	b.cfg.Requests = 0
}

// KeepsSize implements workload.Tunable: the request step adds and deletes links and nodes, so
// a search loads the graph again before each of its trials.
func (b *Bench) KeepsSize(string) bool { return false }

// RateOps implements workload.Tunable: the request step's stream is all ten request types; the
// load step has none to search.
func (b *Bench) RateOps(step string) []string {
	if step != StepRequest {
		return nil
	}
	names := make([]string, len(requestOps))
	for i, o := range requestOps {
		names[i] = o.Name
	}
	return names
}

// SetClients implements workload.ClientTunable: the next request steps' requesters.
func (b *Bench) SetClients(n int) { b.cfg.Requesters = n }

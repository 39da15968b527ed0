package insertbench

import "github.com/dbperf/dbperf/internal/workload"

// SetArrival implements workload.Tunable: how the next q steps' queries arrive.
func (b *Bench) SetArrival(a workload.Arrival) { b.cfg.Arrival = a }

// SetStepSeconds implements workload.Tunable: the length of the next q steps (their inserts'
// schedule, rate x seconds rows per client).
func (b *Bench) SetStepSeconds(s float64) { b.cfg.QSeconds = s }

// KeepsSize implements workload.Tunable: a q step inserts and deletes as many rows, so the
// database has its starting size after it, and a search may repeat it.
func (b *Bench) KeepsSize(step string) bool {
	info, err := parseStep(step)
	return err == nil && info.kind == kindQuery
}

// RateOps implements workload.Tunable: a q step's searched stream is its queries; the other
// steps have none.
func (b *Bench) RateOps(step string) []string {
	if info, err := parseStep(step); err != nil || info.kind != kindQuery {
		return nil
	}
	return []string{opQuery.Name}
}

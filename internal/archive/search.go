package archive

import "github.com/dbperf/dbperf/internal/measure"

// SearchFile names a search's record in its run directory.
const SearchFile = "search.json"

// Search is search.json: what `dbperf search` looked for, every trial, and the answer.
type Search struct {
	Step string `json:"step"`
	// Vary is what the trials varied: "rate" (open-loop arrivals a second) or "clients" (a
	// closed loop's client count); a trial's Rate is then its client count.
	Vary     string   `json:"vary"`
	SLAs     []string `json:"slas"`
	Rule     string   `json:"rule"`
	Config   any      `json:"config"`
	Rate     float64  `json:"rate"`      // the highest passing rate; 0 when none passed
	FailRate float64  `json:"fail_rate"` // the lowest failing rate above it; 0 when none failed
	Bounded  bool     `json:"bounded"`
	Reason   string   `json:"reason"`
	Trials   []Trial  `json:"trials"`
}

// Trial is one trial of a search: its measured step and verdict.
type Trial struct {
	Rate     float64 `json:"rate"`
	Step     string  `json:"step"`
	Pass     bool    `json:"pass"`
	Why      string  `json:"why"`
	Achieved float64 `json:"achieved_per_sec"`
	P50Us    float64 `json:"p50_us"`
	P99Us    float64 `json:"p99_us"`
	P999Us   float64 `json:"p999_us"`
	// ServiceP99Us is the p99 of service times (from the actual send) of an open-loop trial: far
	// below P99Us, the time went in waiting for a client or the schedule, not in the database.
	ServiceP99Us float64             `json:"service_p99_us,omitempty"`
	Dropped      int64               `json:"dropped"`
	SLAs         []measure.SLAResult `json:"slas"`
}

// ReadSearch reads a run's search.json; ok is false when the run is not a search.
func ReadSearch(dir string) (s Search, ok bool, err error) {
	ok, err = readJSONIfThere(dir, SearchFile, &s)
	return s, ok, err
}

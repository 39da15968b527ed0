package archive

import "time"

// Shard is one shard's provenance in run.json: which share of a sharded run this directory
// holds (run.json's "shard"), and, in a merged run, each of its shards' ("shards"). A sharded
// run is one benchmark split over N client hosts; `dbperf merge` joins their directories into
// one run whose figures are exact (docs/scale-out.md). Only fields are added here: a run
// without them is a whole run, as every run written before sharding was.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// RunID is the same in every shard of one run (the rendezvous's or --start-at's), so that
	// the merge refuses directories of different runs.
	RunID string `json:"run_id"`
	// Work is the share this shard did, as half-open ranges per kind of work ("clients":
	// [0,16]; "ids": [1,250001]): the merge refuses shards whose ranges of one kind overlap.
	Work map[string][2]int64 `json:"work,omitempty"`
	// Rendezvous is how the shards met: "target" (a table on the target DBMS) or "start-at".
	Rendezvous string `json:"rendezvous,omitempty"`
	// ClockOffsetMs is this host's clock minus the rendezvous's at the start barrier (positive:
	// this host is ahead), the largest in absolute value over all barriers; the merge subtracts
	// it from this shard's instants.
	ClockOffsetMs float64   `json:"clock_offset_ms"`
	Barriers      []Barrier `json:"barriers,omitempty"`
	// The shard's own provenance, kept in a merged run's "shards" (in a shard's own run.json it
	// is the run's host, build and command).
	Dir     string   `json:"dir,omitempty"`
	Host    *Host    `json:"host,omitempty"`
	Dbperf  *Build   `json:"dbperf,omitempty"`
	Command []string `json:"command,omitempty"`
	// Start is when the shard's run started, on its own clock.
	Start time.Time `json:"start,omitzero"`
}

// Barrier is one meeting of the shards: its name (start, or the step it precedes), when this
// shard passed it on its own clock, how long it waited, and the clock offset measured there.
type Barrier struct {
	Name          string    `json:"name"`
	At            time.Time `json:"at"`
	WaitedMs      float64   `json:"waited_ms"`
	ClockOffsetMs float64   `json:"clock_offset_ms"`
}

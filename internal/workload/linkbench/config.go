package linkbench

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbperf/dbperf/internal/workload"
)

// Config is a LinkBench run's configuration. The defaults are the original's workload
// (FBWorkload.properties, LinkConfigMysql.properties) at a size that runs in seconds.
type Config struct {
	StartID int64 // startid1: first id (>= 1); default 1
	MaxID   int64 // maxid1: ids are [StartID, MaxID); default 10001 (the reference: 10000001)
	// MaxDegree caps every id's out-degree; 0 for none (the original). AutoMaxDegree (the
	// default) is none from AutoDegreeIDs ids up and SmallMaxDegree below: the top id gets the
	// distribution's largest degree (961,963 links in 2013, 4,181,357 in 2017) whatever the
	// number of ids, so in a small graph that one id would be nearly all of it.
	MaxDegree int64
	// Loaders are the link loaders of the load step, beside one node loader; default 10.
	Loaders int
	// ChunkIDs is the ids a link loader takes from the queue at a time; default 2048.
	ChunkIDs int64
	// Batch is the rows a load statement writes and commits; default 1024.
	Batch int
	// Requesters are the request step's clients; default 10 (the reference: 100).
	Requesters int
	// Requests each requester issues; default 1000 (the reference: 500000). 0: no limit.
	Requests int64
	// RequestTime, if set, ends the request step after this long (the reference's maxtime).
	RequestTime time.Duration
	Mix         string // "2013" (the original's) or "2017" (the mdcallag fork's refresh)
	// Partitions is PARTITION BY KEY(id1) PARTITIONS n on MySQL's linktable; 0 for none.
	Partitions int
	// QueryMode is how SQL statements with arguments are sent: "simple" (text with the values
	// written in), "prepared" (prepared on the server once per connection), or "" for the DBMS's
	// reference form (stores.Options).
	QueryMode string
	Retries   int // retries of a failed operation (deadlock, serialization failure); default 100
	Steps     []string
	Seed      uint64
	Arrival   workload.Arrival
	// Shard and Shards make this process shard Shard of Shards of a sharded run (shard.go);
	// Shards 0 or 1 is a whole run.
	Shard, Shards int
	// Now is the clock of link and node times; time.Now if nil (tests fix it).
	Now func() time.Time
	// SumResults hashes every result the request step reads into ResultSum, for the test that
	// every target gives the same. Off in runs: hashing each row field by field showed in the
	// client's profile, and the reference discards what it reads too.
	SumResults bool
}

// MaxDegree's automatic choice.
const (
	AutoMaxDegree  = -1
	AutoDegreeIDs  = 1_000_000
	SmallMaxDegree = 1000
)

// EffectiveMaxDegree resolves AutoMaxDegree for the configured ids.
func (c Config) EffectiveMaxDegree() int64 {
	if c.MaxDegree != AutoMaxDegree {
		return c.MaxDegree
	}
	if c.MaxID-c.StartID >= AutoDegreeIDs {
		return 0
	}
	return SmallMaxDegree
}

// The steps.
const (
	StepLoad    = "load"
	StepRequest = "request"
)

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{StartID: 1, MaxID: 10001, MaxDegree: AutoMaxDegree, Loaders: 10, ChunkIDs: 2048, Batch: 1024, Requesters: 10,
		Requests: 1000, Mix: "2013", Retries: 100, Steps: []string{StepLoad, StepRequest}}
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.StartID < 1 {
		bad("--startid must be at least 1 (got %d)", c.StartID)
	}
	if c.MaxID <= c.StartID+1 {
		bad("--maxid must be more than --startid + 1 (got %d and %d)", c.MaxID, c.StartID)
	}
	if c.MaxID-c.StartID > 1<<31-1 {
		bad("--maxid - --startid must be below 2^31, as in the original (got %d)", c.MaxID-c.StartID)
	}
	if c.MaxDegree < AutoMaxDegree {
		bad("--max-degree must be -1 (auto), 0 (none) or a positive cap (got %d)", c.MaxDegree)
	}
	if c.Loaders < 1 {
		bad("--loaders must be at least 1 (got %d)", c.Loaders)
	}
	if c.ChunkIDs < 1 || c.Batch < 1 {
		bad("the chunk size and the batch size must be at least 1 (got %d and %d)", c.ChunkIDs, c.Batch)
	}
	if c.Requesters < 1 {
		bad("--requesters must be at least 1 (got %d)", c.Requesters)
	}
	if c.Requests < 0 || c.RequestTime < 0 {
		bad("--requests and --requests-seconds cannot be negative")
	}
	if c.Requests == 0 && c.RequestTime == 0 {
		bad("give --requests or --requests-seconds: with neither, the request step never ends")
	}
	if _, ok := mixes[c.Mix]; !ok {
		bad("--mix must be 2013 or 2017 (got %q)", c.Mix)
	}
	if c.Partitions < 0 || c.Partitions > 1024 {
		bad("--partitions must be between 0 and 1024 (got %d)", c.Partitions)
	}
	if c.QueryMode != "" && c.QueryMode != "simple" && c.QueryMode != "prepared" {
		bad("--query-mode must be simple or prepared (got %q)", c.QueryMode)
	}
	if c.Retries < 0 {
		bad("--retries cannot be negative (got %d)", c.Retries)
	}
	if len(c.Steps) == 0 {
		bad("--steps names no step: give load, request or both")
	}
	for _, s := range c.Steps {
		if s != StepLoad && s != StepRequest {
			bad("unknown step %q: the steps are load and request", s)
		}
	}
	return errors.Join(errs...)
}

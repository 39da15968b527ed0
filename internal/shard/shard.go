// Package shard splits one benchmark run over N client hosts: which share of the clients, ids
// and rate shard i of N takes, and the random streams that never collide. Sizes, client counts
// and rates are always the whole run's; a shard computes its share from them, so that every
// shard and the merge agree without talking (docs/scale-out.md).
package shard

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Spec is --shard i/N: this process runs share Index of Count. The zero value (Count 0) is a
// whole, unsharded run.
type Spec struct {
	Index, Count int
}

// IndexEnv is the variable Kubernetes sets in each pod of an Indexed Job: its completion index.
const IndexEnv = "JOB_COMPLETION_INDEX"

// Parse reads --shard: "i/N" (0 <= i < N) or "auto/N", which takes i from getenv(IndexEnv).
// An empty string is a whole run.
func Parse(s string, getenv func(string) string) (Spec, error) {
	if s == "" {
		return Spec{}, nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	is, ns, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return Spec{}, fmt.Errorf("--shard %q is not of the form i/N or auto/N (e.g. 0/4)", s)
	}
	if is == "auto" {
		is = getenv(IndexEnv)
		if is == "" {
			return Spec{}, fmt.Errorf("--shard auto/%d needs %s (set by a Kubernetes Indexed Job); give --shard i/%d by hand elsewhere", n, IndexEnv, n)
		}
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return Spec{}, fmt.Errorf("--shard %s: the index %q must be a whole number from 0 to %d", s, is, n-1)
	}
	return Spec{Index: i, Count: n}, nil
}

// Sharded tells whether the run is split at all.
func (s Spec) Sharded() bool { return s.Count > 1 }

// First tells whether this is shard 0, which alone sets up the schema, runs the checks that
// need the whole database and the settle steps; a whole run is its own shard 0.
func (s Spec) First() bool { return s.Index == 0 }

// String is "i/N", or "" for a whole run.
func (s Spec) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Range is this shard's half-open share [lo, hi) of n things numbered from 0: contiguous, the
// first n%Count shards one larger, every thing in exactly one shard.
func (s Spec) Range(n int64) (lo, hi int64) {
	if s.Count <= 1 {
		return 0, n
	}
	c, i := int64(s.Count), int64(s.Index)
	q, r := n/c, n%c
	lo = i*q + min(i, r)
	hi = lo + q
	if i < r {
		hi++
	}
	return lo, hi
}

// Rate is this shard's share of a whole run's rate: R/N each, so that N independent Poisson
// streams of rate R/N make one of rate R.
func (s Spec) Rate(r float64) float64 {
	if s.Count <= 1 {
		return r
	}
	return r / float64(s.Count)
}

// Seed is the seed of one random stream: a pure function of the run's seed, the step, the role
// (inserter, querier, requester ...) and the stream's global number (the global client number,
// or the shard's index for a stream a shard owns as a whole, such as its arrivals). Streams
// named by global client numbers are the same whether the run has one shard or many, so the
// work of a sharded run is exactly the whole run's; distinct names never share a stream.
func Seed(seed uint64, step, role string, n int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", seed, step, role, n)
	return h.Sum64() >> 1 // fits in an int64 for JSON readers
}

// Clients are the global numbers of the clients this shard runs, of a whole run's n.
func (s Spec) Clients(n int) []int {
	lo, hi := s.Range(int64(n))
	out := make([]int, 0, hi-lo)
	for c := lo; c < hi; c++ {
		out = append(out, int(c))
	}
	return out
}

// CheckClients refuses a split that leaves a shard without a client: each shard needs at least
// one, or it would measure nothing and still hold the others at every barrier.
func (s Spec) CheckClients(what string, n int) error {
	if s.Count > n {
		return fmt.Errorf("--shard %s splits %d %s over %d shards: give at least one to each (--%s %d or more, or fewer shards)", s, n, what, s.Count, what, s.Count)
	}
	return nil
}

// Shares splits an integer total (rows, requests) like Range but by size only.
func (s Spec) Shares(total int64) int64 {
	lo, hi := s.Range(total)
	return hi - lo
}

// roundRate keeps the printed rate readable.
func roundRate(r float64) float64 { return math.Round(r*1000) / 1000 }

// Describe says what this shard does, for the run's first line.
func (s Spec) Describe(clients int, rate float64) string {
	if !s.Sharded() {
		return ""
	}
	lo, hi := s.Range(int64(clients))
	d := fmt.Sprintf("shard %s: clients %d..%d of %d", s, lo, hi-1, clients)
	if rate > 0 {
		d += fmt.Sprintf(", rate %g of %g a second", roundRate(s.Rate(rate)), rate)
	}
	return d
}

// WaitUntil sleeps until the instant at, read on a clock that is ahead of the shared one by
// clock (0 on a host with a synchronized clock): --start-at, the barrier that needs nothing but
// synchronized clocks. An instant more than a minute past is refused, since the other shards
// started long ago.
func WaitUntil(at time.Time, clock time.Duration) error {
	now := time.Now().Add(-clock)
	if now.Sub(at) > time.Minute {
		return fmt.Errorf("--start-at %s is %s in the past: give every shard the same instant in the future", at.Format(time.RFC3339), now.Sub(at).Round(time.Second))
	}
	time.Sleep(at.Sub(now))
	return nil
}

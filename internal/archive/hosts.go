package archive

import (
	"fmt"
	"strings"
)

// ShardHosts is a merged step's host figures (summary.json's "hosts"; docs/scale-out.md): each
// shard's own host block, since figures of different hosts do not add up, and whether any
// shard was client-bound, which makes the merged step so. A single host's run has "host"
// instead, whose keys keep their meaning.
type ShardHosts struct {
	// ClientBound is set when any shard's step was; ClientBoundWhy names each such shard and
	// says why, as its own host block does.
	ClientBound    bool        `json:"client_bound"`
	ClientBoundWhy string      `json:"client_bound_why,omitempty"`
	Shards         []ShardHost `json:"shards"`
}

// ShardHost is one shard's host block in a merged step, with the shard's index and hostname;
// Host is absent for a shard that had no monitor (or was killed in the step).
type ShardHost struct {
	Shard    int          `json:"shard"`
	Hostname string       `json:"hostname"`
	Host     *HostSummary `json:"host,omitempty"`
}

// CombineHosts makes a merged step's "hosts" from its shards' host blocks, in shard order; nil
// when no shard had one.
func CombineHosts(shards []ShardHost) *ShardHosts {
	out := &ShardHosts{Shards: shards}
	var why []string
	seen := false
	for _, s := range shards {
		if s.Host == nil {
			continue
		}
		seen = true
		if s.Host.ClientBound {
			out.ClientBound = true
			why = append(why, fmt.Sprintf("shard %d (%s): %s", s.Shard, s.Hostname, s.Host.ClientBoundWhy))
		}
	}
	if !seen {
		return nil
	}
	out.ClientBoundWhy = strings.Join(why, "; ")
	return out
}

package script

import "github.com/dbperf/dbperf/internal/workload"

// A sharded run (docs/scale-out.md): this process is shard Shard of Shards. --clients is the
// whole run's; a shard runs its contiguous share of the clients under their global numbers
// (:client_id, and the random streams every client draws from the seed in a whole run's order),
// so the shards' transactions are a whole run's. Shard 0 alone runs init and the vacuum before a
// run; the checks need the whole database: shard 0 runs them once every shard has finished the
// step (the command's rendezvous), without the history's row count per transaction, which only
// a whole run knows.

// sharded tells whether this process is one shard of several.
func (c *Config) sharded() bool { return c.Shards > 1 }

// first tells whether this process runs init and the vacuum: shard 0, or a whole run.
func (c *Config) first() bool { return c.Shard == 0 }

// ClientRange is the global numbers of this shard's clients.
func (c *Config) ClientRange() (lo, hi int) {
	l, h := workload.Share(int64(c.Clients), c.Shard, c.Shards)
	return int(l), int(h)
}

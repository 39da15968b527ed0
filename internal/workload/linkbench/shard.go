package linkbench

import "github.com/dbperf/dbperf/internal/workload"

// A sharded run (docs/scale-out.md): this process is shard Shard of Shards. The load step's
// link chunks are numbered as in a whole run (each with its own random stream), and a shard
// loads its contiguous share of them; shard 0 alone creates the tables and loads the nodes. The
// request step's requesters keep their global numbers, so their streams are a whole run's. Node
// ids that ADD_NODE assigns are interleaved (shard i takes MaxID+i, MaxID+i+N, ...), so no two
// shards assign the same one. The checks that need the whole database run on shard 0 once every
// shard has finished the step (the command's rendezvous).

// sharded tells whether this process is one shard of several.
func (c *Config) sharded() bool { return c.Shards > 1 }

// RequesterRange is the global numbers of this shard's requesters.
func (c *Config) RequesterRange() (lo, hi int) {
	l, h := workload.Share(int64(c.Requesters), c.Shard, c.Shards)
	return int(l), int(h)
}

// ChunkRange is the numbers of the load's link chunks this shard loads.
func (c *Config) ChunkRange() (lo, hi int64) {
	return workload.Share(newChunks(c.StartID, c.MaxID, c.ChunkIDs).count, c.Shard, c.Shards)
}

// shardChunks limits the chunk queue to this shard's chunks.
func (b *Bench) shardChunks(ch *chunks) *chunks {
	if b.cfg.sharded() {
		lo, hi := b.cfg.ChunkRange()
		ch.taken.Store(lo)
		ch.stop = hi
	}
	return ch
}

// first tells whether this process creates the tables and loads the nodes: shard 0, or a whole
// run.
func (c *Config) first() bool { return c.Shard == 0 }

// newNodeID is the next node id ADD_NODE assigns, interleaved with the other shards'.
func (b *Bench) newNodeID() int64 {
	step := int64(max(b.cfg.Shards, 1))
	return b.nextNode.Add(step) - step
}

package ycsb

import "github.com/dbperf/dbperf/internal/workload"

// A sharded run (docs/scale-out.md): this process is shard Shard of Shards. Clients keep their
// global numbers (threadcount is the whole run's), so their random streams are a whole run's.
// The load splits the key range as YCSB's insertstart and insertcount split it among client
// hosts (CoreWorkload.java:420-429): shard i loads its contiguous share of [insertstart,
// insertstart+insertcount); shard 0 alone creates usertable, before the step's barrier. The run
// splits operationcount among the shards. The checks need the whole table: shard 0 runs them
// once every shard has finished the step (the command's rendezvous).

// sharded tells whether this process is one shard of several.
func (c *Config) sharded() bool { return c.Shards > 1 }

// first tells whether this process creates usertable: shard 0, or a whole run.
func (c *Config) first() bool { return c.Shard == 0 }

// ClientRange is the global numbers of this shard's clients.
func (c *Config) ClientRange() (lo, hi int) {
	l, h := workload.Share(int64(c.Clients), c.Shard, c.Shards)
	return int(l), int(h)
}

// LoadRange is the key numbers this shard loads: its share of insertstart..+insertcount.
func (c *Config) LoadRange() (lo, hi int64) {
	l, h := workload.Share(c.Count(), c.Shard, c.Shards)
	return c.InsertStart + l, c.InsertStart + h
}

// OperationShare is the run step's operations this shard does (0: until the step's time).
func (c *Config) OperationShare() int64 {
	l, h := workload.Share(c.OperationCount, c.Shard, c.Shards)
	return h - l
}

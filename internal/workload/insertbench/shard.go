package insertbench

import "fmt"

// A sharded run (docs/scale-out.md): this process runs the clients numbered [ClientFrom,
// ClientTo) of the run's Clients. Each client keeps its global number, so its table is named
// pi<number+1> and its random streams are those of its number (Bench.rng): the shards' tables
// never collide and their rows are exactly a whole run's. Sizes and rates stay per client, so
// the shards' steps together are the whole run's.

// clientRange is the global numbers of the clients this process runs: all of them unless the
// run is sharded.
func (c *Config) clientRange() (lo, hi int) {
	if c.ClientTo == 0 {
		return 0, c.Clients
	}
	return c.ClientFrom, c.ClientTo
}

// sharded tells whether this process runs only some of the clients.
func (c *Config) sharded() bool {
	return c.ClientTo > 0 && (c.ClientFrom > 0 || c.ClientTo < c.Clients)
}

// validateShard checks the shard's client range.
func (c *Config) validateShard() error {
	if c.ClientTo == 0 && c.ClientFrom == 0 {
		return nil
	}
	if c.ClientFrom < 0 || c.ClientTo <= c.ClientFrom || c.ClientTo > c.Clients {
		return fmt.Errorf("this shard's clients %d..%d are not within the run's %d clients", c.ClientFrom, c.ClientTo-1, c.Clients)
	}
	if c.SharedTable && c.sharded() {
		return fmt.Errorf("--tables shared cannot be sharded: its inserters and deleters share one FIFO queue in one process; use --tables per-client")
	}
	return nil
}

// shardClients is how many clients this process runs.
func (c *Config) shardClients() int {
	lo, hi := c.clientRange()
	return hi - lo
}

// allTableNames are every client's tables, the other shards' too: what shard 0's settle acts on.
func (b *Bench) allTableNames() []string {
	if b.cfg.SharedTable || !b.cfg.sharded() {
		return b.tableNames()
	}
	names := make([]string, b.cfg.Clients)
	for i := range names {
		names[i] = fmt.Sprintf("pi%d", i+1)
	}
	return names
}

// tablesInRun is the whole run's number of tables, every shard's.
func (c *Config) tablesInRun() int {
	if c.SharedTable {
		return 1
	}
	return c.Clients
}

// tableNumber is the global number of this process's i-th table (its client's number).
func (c *Config) tableNumber(i int) int {
	lo, _ := c.clientRange()
	if c.SharedTable {
		lo = 0
	}
	return lo + i
}

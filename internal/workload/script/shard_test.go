package script

import (
	"context"
	"testing"
)

// TestShardClients: shard 1 of 2 over 3 clients runs client 2 alone, as :client_id 2, drawing
// what client 2 of a whole run draws (its expressions' and its script choice's streams).
func TestShardClients(t *testing.T) {
	src := []Source{{Name: "a", Text: "\\set r random(1, 1000000)\nSELECT :client_id, :r;\n", Weight: 1}}
	whole := newBench(t, &fakeStore{dialect: "postgres"}, Config{Sources: src, Clients: 3, Seed: 9})
	shard := newBench(t, &fakeStore{dialect: "postgres"}, Config{Sources: src, Clients: 3, Seed: 9, Shard: 1, Shards: 2})
	if lo, hi := shard.cfg.ClientRange(); lo != 2 || hi != 3 {
		t.Fatalf("shard 1/2 of 3 clients: [%d, %d), want [2, 3)", lo, hi)
	}
	wc, err := whole.clients(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := shard.clients(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sc) != 1 || sc[0].id != 2 {
		t.Fatalf("the shard's clients %d, first id %d; want one, client 2", len(sc), sc[0].id)
	}
	id := shard.syms.Lookup("client_id")
	if v := sc[0].env.Vars[id].Text(); v != "2" {
		t.Errorf(":client_id %s, want the global 2", v)
	}
	if a, b := wc[2].env.RNG.Uint64(), sc[0].env.RNG.Uint64(); a != b {
		t.Errorf("client 2 draws %d whole and %d as a shard's", a, b)
	}
	if a, b := wc[2].choose.Uint64(), sc[0].choose.Uint64(); a != b {
		t.Errorf("client 2 chooses scripts from %d whole and %d as a shard's", a, b)
	}
}

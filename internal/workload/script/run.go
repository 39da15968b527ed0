package script

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// clients opens a connection per client and sets its variables and random streams as pgbench
// does (pgbench.c:7190-7281 in 15.18): each client's generator is seeded from the base
// sequence in client order, then :default_seed is drawn from it; -D definitions win over the
// automatic variables. The first run step uses the seed itself, so it draws what pgbench
// --random-seed=SEED draws; later run steps (a search's trials, repeats) mix in their number.
func (b *Bench) clients(ctx context.Context) ([]*client, error) {
	seed := b.cfg.Seed
	if b.runs > 0 {
		h := fnv.New64a()
		fmt.Fprintf(h, "run %d", b.runs)
		seed ^= h.Sum64()
	}
	b.runs++
	base := NewPRNG(seed)
	var out []*client
	lo, hi := b.cfg.ClientRange() // sharded: this shard's clients, by their global numbers (shard.go)
	for i := range b.cfg.Clients {
		rng := NewPRNG(base.Uint64()) // every client's draw, so that a shard's streams are a whole run's
		if i < lo || i >= hi {
			continue
		}
		c := &client{scripts: b.scripts, mode: b.cfg.Mode, b: b, id: i, sleep: b.cfg.Sleep, reconnect: b.cfg.ConnectEach,
			env: Env{Vars: make([]Var, b.syms.Len()), Syms: b.syms, RNG: rng}}
		if !b.cfg.ConnectEach { // pgbench -C opens none before the run (pgbench.c:7465-7477)
			conn, err := b.store.Connect(ctx)
			if err != nil {
				return out, err
			}
			c.conn = conn
		}
		if c.sleep == nil {
			c.sleep = sleepCtx
		}
		for _, s := range b.scripts {
			c.total += int64(s.Weight)
		}
		c.stmts = b.statements()
		out = append(out, c)
	}
	defaultSeed := int64(base.Uint64())
	choose := NewPRNG(base.Uint64())
	for i := range b.cfg.Clients {
		draw := choose.Uint64()
		if i < lo || i >= hi {
			continue
		}
		c := out[i-lo]
		c.choose = NewPRNG(draw)
		v := c.env.Vars
		v[b.syms.Lookup("scale")].SetValue(Int(b.scale))
		v[b.syms.Lookup("client_id")].SetValue(Int(int64(i)))
		v[b.syms.Lookup("default_seed")].SetValue(Int(defaultSeed))
		v[b.syms.Lookup("random_seed")].SetValue(Int(int64(b.cfg.Seed)))
		for _, d := range b.cfg.Defines {
			n, val, _ := strings.Cut(d, "=")
			v[b.syms.Lookup(n)].SetText(val)
		}
	}
	return out, nil
}

// statements makes a client's reusable statements: in extended and prepared modes the text
// has the dialect's placeholders, one per variable use (pgbench.c parseQuery).
func (b *Bench) statements() [][]Stmt {
	out := make([][]Stmt, len(b.scripts))
	id := 0
	for i, s := range b.scripts {
		out[i] = make([]Stmt, s.NSQL)
		for _, cmd := range s.Cmds {
			if cmd.Kind != CmdSQL {
				continue
			}
			st := &out[i][cmd.N]
			st.ID, st.Mode, st.Store = id, b.cfg.Mode, cmd.Store
			id++
			if b.cfg.Mode == ModeSimple {
				continue
			}
			var t strings.Builder
			for _, p := range cmd.Parts {
				if p.Slot < 0 {
					t.WriteString(p.Text)
					continue
				}
				st.Params = append(st.Params, nil)
				t.WriteString(b.store.Placeholder(len(st.Params)))
			}
			st.Text = t.String()
		}
	}
	return out
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// addClients adds the clients to the step: through the run's arrival process, or, with
// --per-statement or --connect-per-transaction in a closed loop (where some operations are not
// transactions), as workers that stop after their transactions.
func (b *Bench) addClients(s *runner.Step, clients []*client, warm *warmAside) error {
	if !b.cfg.PerStatement && !(b.cfg.ConnectEach && !b.cfg.Arrival.Open()) {
		dos := make([]runner.DoFunc, len(clients))
		for i, c := range clients {
			dos[i] = warm.wrap(i, c)
		}
		limit := b.cfg.Transactions * int64(len(clients)) // per client, of this shard's clients
		return b.cfg.Arrival.Apply(s, workload.Stream{Name: "client", Do: dos, Primary: true, Limit: limit})
	}
	for i, c := range clients {
		s.Workers = append(s.Workers, runner.Worker{Name: fmt.Sprintf("client %d", i), Primary: true,
			Schedule: txSchedule{c: c, limit: b.cfg.Transactions}, Do: warm.wrap(i, c)})
	}
	return nil
}

// txSchedule is a closed loop that ends after a client's transactions, when each operation
// is one SQL command of a transaction.
type txSchedule struct {
	c     *client
	limit int64
}

func (t txSchedule) Next(ctx context.Context, tk runner.Tick) (time.Time, bool) {
	if t.limit > 0 && !t.c.inTxn && t.c.st.Transactions+t.c.st.Failed >= t.limit {
		return time.Time{}, false
	}
	return runner.ClosedLoop{Limit: 0}.Next(ctx, runner.Tick{Start: tk.Start, Stop: closedIf(t.limit > 0, tk.Stop)})
}

// closedIf is stop, or a channel that never closes when the limit, not the step, ends.
func closedIf(limited bool, stop <-chan struct{}) <-chan struct{} {
	if limited {
		return nil
	}
	return stop
}

// do is one operation: a transaction (one run of a script), or with --per-statement one SQL
// command of it. A serialization or deadlock failure is rolled back and the transaction
// retried from its first command with its random state restored, up to --max-tries tries; a
// transaction that still fails counts as failed (op type "failed") and the client goes on
// (pgbench.c:4078-4228). Any other error fails the step, as pgbench aborts the client.
func (c *client) do(ctx context.Context, _ int) (measure.Op, int64, error) {
	per := c.b.cfg.PerStatement
	if !c.inTxn {
		if c.reconnect {
			if !c.b.cfg.Arrival.Open() { // its own operation, out of the transaction's latency
				return c.b.connect, 1, c.connect(ctx)
			}
			if err := c.connect(ctx); err != nil { // inside it, from the intended start, as pgbench -R
				return measure.Op(c.cur), 0, err
			}
		}
		c.begin()
	}
	want := -1 // after a retry in per-statement mode: the command this call is for
	for {
		n, done, err := c.step(ctx, per)
		if err == nil && per && want >= 0 && n != want && !done {
			continue
		}
		op := measure.Op(c.cur)
		if per {
			op = c.b.stmtOp[c.cur][max(n, 0)]
		}
		if err == nil {
			if done {
				c.inTxn, c.reconnect = false, c.b.cfg.ConnectEach
				c.st.Transactions++
				if c.tries > 1 {
					c.st.Retried++
				}
			}
			return op, 1, nil
		}
		var se *sqlError
		kind, retry := "", false
		if errors.As(err, &se) {
			kind, retry = c.b.store.Outcome(se.err)
		}
		if !retry || ctx.Err() != nil {
			c.inTxn = false
			if kind == "connection_lost" { // driver.KindConnLost
				err = fmt.Errorf("%w: its connection was lost, and pgbench aborts a client whose command fails (pgbench.c:3361-3378), so the step ends: %w", ErrAbort, err)
			}
			return op, 0, err
		}
		_ = c.conn.Rollback(ctx)
		if kind == "deadlock" {
			c.st.Deadlock++
		} else {
			c.st.Serialization++
		}
		if max := c.b.cfg.MaxTries; max == 0 || c.tries < max {
			c.tries++
			c.st.Retries++
			*c.env.RNG = c.saved
			c.pc, want = 0, n
			continue
		}
		c.inTxn, c.reconnect = false, c.b.cfg.ConnectEach
		c.st.Failed++
		if c.tries > 1 {
			c.st.Retried++
		}
		return c.b.failed, 1, nil
	}
}

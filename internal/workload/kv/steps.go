package kv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
	"github.com/dbperf/dbperf/internal/workload"
)

// stepState is one step being planned and run: its engine, its clients (each with its own random
// stream and counts, read only after the runner is done) and what its Extra figures need.
type stepState struct {
	name    string
	b       *Bench
	db      *kvdriver.DB
	before  map[string]float64
	step    runner.Step
	readers []*client // the step's main stream
	writers []*client // the whilewriting writer, or the overwriters
	main    measure.Op
	notApp  string   // why the step does not apply to this engine, if it does not
	actions []string // what flush_mt_l0 and the compaction wait did
	mu      sync.Mutex
	// writesEnd is when overwriteandwait's overwriters stopped and its compaction wait began:
	// its rates are over the overwrite, its engine columns over the whole step (wait included).
	writesEnd time.Time
	mark      workload.Mark // the warm-up's end (--warmup; warmup.go)
}

// client is one client's state. A retried operation reuses its key (attempt > 0).
type client struct {
	rng    *rand.Rand
	vals   values
	key    []byte
	keyNum uint64
	batch  [][]byte
	nums   []uint64
	lens   []int // the batch's value lengths (multiGetLen)
	// counts
	ops, found, bytes int64
	puts, putBytes    int64
	bad               int64
	firstBad          string
	// valueSize is set by onValue, made once per client: a closure made per Get would be
	// allocated per read (it escapes through the Engine interface).
	valueSize    int
	onValue      func(v []byte)
	onBatchValue func(i int, v []byte) // adds key and value sizes of a batch to valueSize
	warm         warmCounts            // the counts by the warm-up's end, set aside
}

func (st *stepState) newClient(i int) *client {
	c := &client{rng: rand.New(rand.NewPCG(st.b.cfg.Seed, stepSeed(st.name, i))),
		vals: values{buf: st.b.vals, size: st.b.cfg.ValueSize}}
	c.vals.pos = (i * 7919 * st.b.cfg.ValueSize) % len(st.b.vals)
	c.onValue = func(v []byte) { c.valueSize = len(v) }
	c.onBatchValue = func(i int, v []byte) { c.valueSize += len(c.batch[i]) + len(v) }
	return c
}

// op adds an op type to the step and returns its index.
func (st *stepState) op(t measure.OpType) measure.Op {
	for i, o := range st.step.Ops {
		if o.Name == t.Name {
			return measure.Op(i)
		}
	}
	st.step.Ops = append(st.step.Ops, t)
	return measure.Op(len(st.step.Ops) - 1)
}

// plan builds the step: who does what, until when (docs/kv.md has each step's reference).
func (st *stepState) plan() (*workload.StepPlan, error) {
	cfg := st.b.cfg
	st.step = runner.Step{Name: st.name, Retries: cfg.Retries}
	p := &workload.StepPlan{Progress: workload.None, Write: workload.None, Read: workload.None}
	var err error
	switch st.name {
	case FillSeq:
		st.main = st.op(opPut)
		p.Write, p.Progress, p.Total = st.main, st.main, cfg.Keys
		err = st.stream("filler", 1, cfg.Keys, st.putOp(func(c *client) uint64 { return uint64(c.ops) }))
	case OverwriteSome:
		st.main = st.op(opPut)
		n := max(1, cfg.Keys/10)
		p.Write, p.Progress, p.Total = st.main, st.main, n
		err = st.stream("overwriter", cfg.Threads, n, st.putOp(st.randomKey))
	case OverwriteAndWait:
		st.main = st.op(opPut)
		p.Write, p.MainEnd = st.main, st.overwriteEnd
		err = st.overwriteAndWait()
	case ReadRandom, ReadWhileWriting:
		st.main = st.op(opGet)
		p.Read = st.main
		st.step.Duration = cfg.stepDuration()
		err = st.stream("reader", cfg.Threads, 0, st.getOp)
	case MultiReadRandom:
		st.main = st.op(opMultiGet)
		p.Read = st.main
		st.step.Duration = cfg.stepDuration()
		if mg, ok := st.db.Engine.(kvdriver.MultiGetter); ok {
			err = st.stream("reader", cfg.Threads, 0, func(c *client) runner.DoFunc { return st.multiGetOp(c, mg) })
		} else {
			st.notApp = notApplicable(st.name, st.db)
		}
	case FwdRange, FwdRangeWhileWriting:
		st.main = st.op(opFwdRange)
		p.Read = st.main
		st.step.Duration = cfg.stepDuration()
		err = st.stream("scanner", cfg.Threads, 0, func(c *client) runner.DoFunc { return st.fwdOp(c, st.randomKey) })
	case RevRange, RevRangeWhileWriting:
		st.main = st.op(opRevRange)
		p.Read = st.main
		threads, pick := cfg.Threads, st.randomKey
		st.step.Duration = cfg.stepDuration()
		if st.name == RevRange {
			// The reference's compaction-drain step: one thread, seeks among the first 100 keys.
			threads, pick = 1, func(c *client) uint64 { return c.rng.Uint64N(uint64(min(revRangeKeys, cfg.Keys))) }
			st.step.Duration = cfg.drainDuration()
		}
		if rs, ok := st.db.Engine.(kvdriver.ReverseScanner); ok {
			err = st.stream("scanner", threads, 0, func(c *client) runner.DoFunc { return st.revOp(c, rs, pick) })
		} else {
			st.notApp = notApplicable(st.name, st.db)
		}
	case FlushMTL0:
		st.main = st.op(opMaintain)
		st.flushMTL0()
	default:
		return nil, fmt.Errorf("unknown step %q", st.name)
	}
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(st.name, "whilewriting") {
		st.addWriter()
	}
	// The live line indexes Progress even without a Total (session/print.go): the main op.
	if p.Progress == workload.None {
		p.Progress = st.main
	}
	p.Step, p.Main = st.step, st.main
	p.Extra, p.WarmupEnd = st.extra, st.warmupEnd
	return p, nil
}

// notApplicable says why the engine cannot run the step as the reference means it, or "" when
// it can: the step's plan and a search (before its first trial) ask the same question.
func notApplicable(step string, db *kvdriver.DB) string {
	eng := db.Engine
	switch step {
	case MultiReadRandom:
		if _, ok := eng.(kvdriver.MultiGetter); !ok {
			return db.Name() + " has no batched read (MultiGet): multireadrandom is not run"
		}
	case RevRange, RevRangeWhileWriting:
		if _, ok := eng.(kvdriver.ReverseScanner); !ok {
			return db.Name() + " has no reverse iterator: " + step + " is not run"
		}
	case FlushMTL0:
		_, canFlush := eng.(kvdriver.Flusher)
		_, canCompact := eng.(kvdriver.L0Compactor)
		_, canWait := eng.(kvdriver.CompactionWaiter)
		if !canFlush && !canCompact && !canWait {
			return db.Name() + " has no memtable, L0 or compaction: flush_mt_l0 is not run"
		}
	}
	return ""
}

// stream adds the step's main request stream: n clients, limit operations in all (0: until the
// step's Duration), arriving as the run's --arrival says.
func (st *stepState) stream(name string, n int, limit int64, do func(c *client) runner.DoFunc) error {
	s := workload.Stream{Name: name, Primary: true, Limit: limit}
	for i := 0; i < n; i++ {
		c := st.newClient(i)
		st.readers = append(st.readers, c)
		s.Do = append(s.Do, st.afterWarmup(c, do(c)))
	}
	return st.b.cfg.Arrival.Apply(&st.step, s)
}

// randomKey draws the key of a random operation under --distribution.
func (st *stepState) randomKey(c *client) uint64 { return st.b.keys.next(c.rng) }

func (st *stepState) setKey(c *client, n uint64) {
	c.keyNum = n
	c.key = appendKey(c.key[:0], n, st.b.cfg.KeySize)
}

// putOp writes one key (picked by pick) with the next value.
func (st *stepState) putOp(pick func(c *client) uint64) func(c *client) runner.DoFunc {
	return func(c *client) runner.DoFunc {
		return runner.Single(st.op(opPut), func(_ context.Context, attempt int) (int64, error) {
			if attempt == 0 {
				st.setKey(c, pick(c))
			}
			v := c.vals.next()
			if err := st.db.Put(c.key, v); err != nil {
				return 0, err
			}
			c.ops++
			c.puts++
			c.bytes += int64(len(c.key) + len(v))
			c.putBytes += int64(len(c.key) + len(v))
			return 1, nil
		})
	}
}

// getOp reads a random key's value length (valueLen).
func (st *stepState) getOp(c *client) runner.DoFunc {
	op := st.op(opGet)
	get := st.valueLen(c)
	return runner.Single(op, func(_ context.Context, attempt int) (int64, error) {
		if attempt == 0 {
			st.setKey(c, st.randomKey(c))
		}
		n, found, err := get(c.key)
		if err != nil {
			return 0, err
		}
		c.ops++
		if found {
			c.found++
			c.bytes += int64(len(c.key) + n)
		}
		return 1, nil
	})
}

// multiGetOp reads a batch of independent random keys in one call: the batch counts
// multiGetBatch keys and one latency sample. An engine that can reads only the values' lengths
// (valuelen.go).
func (st *stepState) multiGetOp(c *client, mg kvdriver.MultiGetter) runner.DoFunc {
	op := st.op(opMultiGet)
	lr, lensOnly := mg.(lenMultiReader)
	return runner.Single(op, func(_ context.Context, attempt int) (int64, error) {
		if attempt == 0 {
			if len(c.batch) != multiGetBatch {
				c.batch = make([][]byte, multiGetBatch) // the keys' buffers are reused
			}
			c.nums = c.nums[:0]
			for i := range c.batch {
				n := st.randomKey(c)
				c.nums = append(c.nums, n)
				c.batch[i] = appendKey(c.batch[i][:0], n, st.b.cfg.KeySize)
			}
		}
		c.valueSize = 0
		var found int
		var err error
		if lensOnly {
			found, err = st.multiGetLen(c, lr)
		} else {
			found, err = mg.MultiGet(c.batch, c.onBatchValue)
		}
		if err != nil {
			return 0, err
		}
		c.ops += multiGetBatch
		c.found += int64(found)
		c.bytes += int64(c.valueSize)
		return multiGetBatch, nil
	})
}

// fwdOp seeks to a random key and visits up to scanLength entries forward, checking that they
// are the next keys, in order.
func (st *stepState) fwdOp(c *client, pick func(c *client) uint64) runner.DoFunc {
	op := st.op(opFwdRange)
	n := uint64(st.b.cfg.Keys)
	return runner.Single(op, func(_ context.Context, attempt int) (int64, error) {
		if attempt == 0 {
			st.setKey(c, pick(c))
		}
		start, visited := c.keyNum, uint64(0)
		var bytes int
		err := st.db.ScanN(c.key, scanLength, func(k, v []byte) bool {
			if keyNumber(k) != start+visited {
				c.noteBad(fmt.Sprintf("fwdrange from key %d: entry %d is key %d, expected %d", start, visited, keyNumber(k), start+visited))
			}
			bytes += len(k) + len(v)
			visited++
			return visited < scanLength
		})
		if err != nil {
			return 0, err
		}
		if want := min(scanLength, n-start); visited != want {
			c.noteBad(fmt.Sprintf("fwdrange from key %d visited %d entries, expected %d", start, visited, want))
		}
		c.ops++
		c.bytes += int64(bytes)
		return 1, nil
	})
}

// revOp seeks to a key and visits up to scanLength entries backward (db_bench's Seek, then Prev).
func (st *stepState) revOp(c *client, _ kvdriver.ReverseScanner, pick func(c *client) uint64) runner.DoFunc {
	op := st.op(opRevRange)
	return runner.Single(op, func(_ context.Context, attempt int) (int64, error) {
		if attempt == 0 {
			st.setKey(c, pick(c))
		}
		start, visited := c.keyNum, uint64(0)
		var bytes int
		_, err := st.db.ScanReverseN(c.key, scanLength, func(k, v []byte) bool {
			if keyNumber(k) != start-visited {
				c.noteBad(fmt.Sprintf("revrange from key %d: entry %d is key %d, expected %d", start, visited, keyNumber(k), start-visited))
			}
			bytes += len(k) + len(v)
			visited++
			return visited < scanLength
		})
		if err != nil {
			return 0, err
		}
		if want := min(scanLength, start+1); visited != want {
			c.noteBad(fmt.Sprintf("revrange from key %d visited %d entries, expected %d", start, visited, want))
		}
		c.ops++
		c.bytes += int64(bytes)
		return 1, nil
	})
}

func (c *client) noteBad(msg string) {
	if c.bad == 0 {
		c.firstBad = msg
	}
	c.bad++
}

// addWriter adds the whilewriting steps' extra writer: uniform (or zipfian) puts paced at
// --writer-mbps of key+value, until the readers are done. Its latency counts from each put's
// intended start, so a writer held back by the engine shows.
func (st *stepState) addWriter() {
	cfg := st.b.cfg
	c := st.newClient(cfg.Threads)
	st.writers = append(st.writers, c)
	perSec := cfg.WriterMBps * bytesPerMiB / float64(cfg.KeySize+cfg.ValueSize)
	st.step.Workers = append(st.step.Workers, runner.Worker{Name: "writer", Schedule: runner.ConstantRate{PerSec: perSec, Burst: cfg.WriterBurst},
		Do: st.afterWarmup(c, st.putOp(st.randomKey)(c))})
}

// overwriteAndWait runs overwriters for --step-seconds, then one more primary worker waits for
// compaction once they are done, inside the step (benchmark.sh:1128-1134).
func (st *stepState) overwriteAndWait() error {
	cfg := st.b.cfg
	var writersLeft sync.WaitGroup
	done := make(chan struct{})
	s := workload.Stream{Name: "overwriter", Primary: true}
	for i := 0; i < cfg.Threads; i++ {
		c := st.newClient(i)
		st.writers = append(st.writers, c)
		s.Do = append(s.Do, st.putOp(st.randomKey)(c))
	}
	if cfg.Arrival.Open() {
		rate := cfg.Arrival.Rate
		if cfg.Arrival.PerClient {
			rate *= float64(cfg.Threads)
		}
		s.Limit = max(1, int64(rate*cfg.StepSeconds))
	}
	if err := cfg.Arrival.Apply(&st.step, s); err != nil {
		return err
	}
	deadline := time.Duration(cfg.StepSeconds * float64(time.Second))
	for i := range st.step.Workers {
		w := &st.step.Workers[i]
		writersLeft.Add(1)
		w.Schedule = runner.OnDone{Schedule: untilOffset{w.Schedule, deadline}, Done: writersLeft.Done}
	}
	for i := range st.step.Pools {
		writersLeft.Add(1)
		st.step.Pools[i].Done = writersLeft.Done
	}
	go func() { writersLeft.Wait(); close(done) }()
	waiter, ok := st.db.Engine.(kvdriver.CompactionWaiter)
	if !ok {
		st.actions = append(st.actions, "compaction wait: not applicable, "+st.db.Name()+" has no compaction to wait for")
		return nil
	}
	wait := st.op(opWait)
	st.step.Workers = append(st.step.Workers, runner.Worker{Name: "compaction waiter", Primary: true,
		Schedule: runner.Gated{Schedule: runner.ClosedLoop{Limit: 1}, Wait: func(ctx context.Context) bool {
			select {
			case <-done:
				st.mu.Lock()
				if st.writesEnd.IsZero() { // asked again after its one wait: not a new end
					st.writesEnd = time.Now()
				}
				st.mu.Unlock()
				return true
			case <-ctx.Done():
				return false
			}
		}},
		Do: runner.Single(wait, func(ctx context.Context, _ int) (int64, error) {
			what, err := waiter.WaitForCompaction(ctx)
			st.note("compaction wait: " + what)
			return 1, err
		})})
	return nil
}

// overwriteEnd is when overwriteandwait's overwriters stopped and its compaction wait began
// (zero without a wait): the put rate is over the overwrite, as db_bench's ops_sec of
// overwrite, and the wait's seconds are not judged as stalls of the puts.
func (st *stepState) overwriteEnd() time.Time {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.writesEnd
}

// untilOffset ends a closed-loop schedule at an offset from the step's start.
type untilOffset struct {
	runner.Schedule
	end time.Duration
}

func (u untilOffset) Next(ctx context.Context, t runner.Tick) (time.Time, bool) {
	if time.Since(t.Start) >= u.end {
		return time.Time{}, false
	}
	return u.Schedule.Next(ctx, t)
}

// flushMTL0 is the reference's flush, wait, compact0, wait (benchmark.sh:871-899) with what the
// engine offers; an engine that offers none of it has the step as not applicable.
func (st *stepState) flushMTL0() {
	eng := st.db.Engine
	flusher, canFlush := eng.(kvdriver.Flusher)
	compactor, canCompact := eng.(kvdriver.L0Compactor)
	waiter, canWait := eng.(kvdriver.CompactionWaiter)
	if !canFlush && !canCompact && !canWait {
		st.notApp = notApplicable(st.name, st.db)
		return
	}
	do := func(ctx context.Context, _ int) (int64, error) {
		actions := []struct {
			name string
			ok   bool
			fn   func(context.Context) (string, error)
		}{
			{"flush", canFlush, func(ctx context.Context) (string, error) { return flusher.Flush(ctx) }},
			{"waitforcompaction", canWait, func(ctx context.Context) (string, error) { return waiter.WaitForCompaction(ctx) }},
			{"compact0", canCompact, func(ctx context.Context) (string, error) { return compactor.CompactL0(ctx) }},
			{"waitforcompaction", canWait, func(ctx context.Context) (string, error) { return waiter.WaitForCompaction(ctx) }},
		}
		var n int64
		for _, a := range actions {
			if !a.ok {
				st.note(a.name + ": not applicable on " + st.db.Name())
				continue
			}
			what, err := a.fn(ctx)
			if err != nil {
				return n, fmt.Errorf("%s: %w", a.name, err)
			}
			st.note(a.name + ": " + what)
			n++
		}
		return n, nil
	}
	st.step.Workers = append(st.step.Workers, runner.Worker{Name: "maintainer", Primary: true,
		Schedule: runner.ClosedLoop{Limit: 1}, Do: runner.Single(st.main, do)})
}

func (st *stepState) note(s string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.actions = append(st.actions, s)
}

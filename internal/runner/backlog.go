package runner

import (
	"context"
	"sync"
	"time"
)

// Backlog hands work from one role to another: producers (inserters) add units as they finish
// them, consumers (deleters) claim them in order. A claim is due when the work it covers was
// produced, so a consumer that falls behind shows the wait in its latency.
//
// Claims are contiguous: the k-th unit ever produced is the k-th claimed, which is how the
// Insert Benchmark's client tracks the FIFO head without running min() (head = first + claimed).
type Backlog struct {
	mu        sync.Mutex
	produced  int64
	claimed   int64
	marks     []mark // produced totals and when they were reached, oldest first
	producers int
	// changed is closed on the next change, to wake the goroutines waiting on it; nil while
	// none waits, so that a change nobody waits for costs no channel (l.i1's inserter adds a
	// batch while its deleter is mostly busy deleting).
	changed chan struct{}
}

type mark struct {
	total int64
	at    time.Time
}

// Claim is a run of units taken by a consumer: [First, First+N) in production order.
type Claim struct {
	First, N int64
	Due      time.Time
}

// NewBacklog returns a backlog fed by the given number of producers.
func NewBacklog(producers int) *Backlog {
	return &Backlog{producers: producers}
}

func (b *Backlog) notify() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// waitCh is the channel the next change closes; b.mu is held.
func (b *Backlog) waitCh() chan struct{} {
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// Add records n units produced now.
func (b *Backlog) Add(n int64) {
	b.mu.Lock()
	b.produced += n
	b.marks = append(b.marks, mark{b.produced, time.Now()})
	b.notify()
	b.mu.Unlock()
}

// ProducerDone says one producer will add no more.
func (b *Backlog) ProducerDone() {
	b.mu.Lock()
	b.producers--
	b.notify()
	b.mu.Unlock()
}

// Claimed is the number of units claimed so far.
func (b *Backlog) Claimed() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.claimed
}

// Take claims the next n units, waiting until they have been produced. Once every producer is
// done it claims what is left, fewer than n. ok is false when nothing is left or ctx ends.
// n below 1 counts as 1.
func (b *Backlog) Take(ctx context.Context, n int64) (Claim, bool) {
	n = max(n, 1)
	for {
		b.mu.Lock()
		avail := b.produced - b.claimed
		if avail >= n || (b.producers <= 0 && avail > 0) {
			c := Claim{First: b.claimed, N: min(n, avail)}
			b.claimed += c.N
			// The claim is due when its last unit was produced.
			for len(b.marks) > 0 && b.marks[0].total < b.claimed {
				b.marks = b.marks[1:]
			}
			c.Due = b.marks[0].at
			b.notify()
			b.mu.Unlock()
			return c, true
		}
		if b.producers <= 0 {
			b.mu.Unlock()
			return Claim{}, false
		}
		ch := b.waitCh()
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Claim{}, false
		}
	}
}

// WaitBelow blocks until fewer than limit units are waiting to be claimed: the back-pressure that
// keeps producers from running away from consumers. It returns false if ctx ends first.
func (b *Backlog) WaitBelow(ctx context.Context, limit int64) bool {
	for {
		b.mu.Lock()
		if b.produced-b.claimed < limit {
			b.mu.Unlock()
			return true
		}
		ch := b.waitCh()
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

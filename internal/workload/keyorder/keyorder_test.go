package keyorder

import (
	"cmp"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// ints builds a sample of int keys from (key, commit, source) triples.
func ints(before []int64) Sample[int64] {
	return Sample[int64]{Before: before, Compare: cmp.Compare[int64]}
}

func (s *Sample[K]) add(k K, commit int64, source int) {
	s.Inserts = append(s.Inserts, Insert[K]{Key: k, Commit: commit, Source: source})
}

func want[K any](t *testing.T, s Sample[K], code string) {
	t.Helper()
	r, err := Infer(s)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := r.Streams.Code()
	if got != code {
		t.Fatalf("inferred %s, want %s: %v", got, code, r)
	}
}

func TestOneStreamAtTheRightEnd(t *testing.T) {
	s := ints([]int64{1, 1000})
	for i := int64(0); i < 1000; i++ {
		s.add(1001+i, i/10, 0) // batches of 10
	}
	want(t, s, "nAsc:1, nRHS:1")
}

func TestInterleavedClientsAreOneStream(t *testing.T) {
	// Two clients take ids of one counter in batches of 50; now and then the second commits
	// its batch before the first (a reorder), as concurrent clients of one table do.
	s := ints(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	id, commit := int64(1), int64(0)
	for b := 0; b < 200; b += 2 {
		first, second := id, id+50
		id += 100
		c1, c2 := commit, commit+1
		if rng.IntN(5) == 0 {
			c1, c2 = c2, c1
		}
		commit += 2
		for i := int64(0); i < 50; i++ {
			s.add(first+i, c1, 0)
			s.add(second+i, c2, 1)
		}
	}
	want(t, s, "nAsc:1, nRHS:1")
}

func TestStreamsAtOwnOffsets(t *testing.T) {
	// Four threads each append to their own quarter of the key space, concurrently.
	s := ints(nil)
	for i := int64(0); i < 500; i++ {
		for th := int64(0); th < 4; th++ {
			s.add(th*1_000_000+i, i*4+th, int(th))
		}
	}
	want(t, s, "nAsc:4, nRHS:1")
}

func TestRandomInserts(t *testing.T) {
	s := ints([]int64{0, 1 << 40})
	rng := rand.New(rand.NewPCG(3, 4))
	for i := int64(0); i < 2000; i++ {
		s.add(rng.Int64N(1<<40), i/5, int(i%3))
	}
	want(t, s, "inf")
}

func TestAscendingInTheMiddle(t *testing.T) {
	s := ints([]int64{0, 1 << 30})
	for i := int64(0); i < 300; i++ {
		s.add(1000+i, i, 0)
	}
	want(t, s, "nAsc:1")
}

func TestDescendingAtTheLeftEnd(t *testing.T) {
	s := ints([]int64{1000, 2000})
	for i := int64(0); i < 300; i++ {
		s.add(999-i, i, 0)
	}
	want(t, s, "nDesc:1, nLHS:1")
}

func TestChunksTakenHighestFirst(t *testing.T) {
	// Three loaders take 12 chunks of 100 ids, the highest first, each filling its chunk in
	// ascending order: three streams at a time, the right end only in the first chunk.
	s := ints(nil)
	next := 11
	commit := int64(0)
	type loader struct{ chunk, pos int }
	ls := []*loader{}
	for range 3 {
		ls = append(ls, &loader{chunk: next})
		next--
	}
	for len(ls) > 0 {
		for i := 0; i < len(ls); i++ {
			l := ls[i]
			s.add(int64(l.chunk*100+l.pos), commit, l.chunk)
			commit++
			if l.pos++; l.pos == 100 {
				if next < 0 {
					ls = append(ls[:i], ls[i+1:]...)
					i--
					continue
				}
				l.chunk, l.pos = next, 0
				next--
			}
		}
	}
	want(t, s, "nAsc:3")
}

func TestUnpaddedDecimalKeys(t *testing.T) {
	// YCSB's ordered keys without zero padding: "user10" sorts before "user9", so the stream
	// ascends through the middle of the key space, not at its end.
	s := Sample[string]{Compare: strings.Compare}
	for i := int64(0); i < 3000; i++ {
		s.add("user"+strconv.FormatInt(i, 10), i, 0)
	}
	want(t, s, "nAsc:1")
	padded := Sample[string]{Compare: strings.Compare}
	for i := int64(0); i < 3000; i++ {
		padded.add("user"+strconv.FormatInt(100000+i, 10), i, 0)
	}
	want(t, padded, "nAsc:1, nRHS:1")
}

func TestTooFewAndMixed(t *testing.T) {
	s := ints(nil)
	for i := int64(0); i < 10; i++ {
		s.add(i, i, 0)
	}
	if _, err := Infer(s); err == nil || !strings.Contains(err.Error(), "at least") {
		t.Fatalf("a sample of 10 keys: %v", err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	m := ints(nil)
	for i := int64(0); i < 1000; i++ {
		m.add(i, 2*i, 0)                         // a stream at the left of the key space
		m.add(1<<20+rng.Int64N(1<<20), 2*i+1, 1) // random keys right of it
	}
	if _, err := Infer(m); err == nil || !strings.Contains(err.Error(), "mixed") {
		t.Fatalf("a sequential and a random point: %v", err)
	}
}

func TestHandoverWithinOneCommit(t *testing.T) {
	// Two loaders, 20 chunks of 35 ids taken highest first, 10 keys a commit: a loader that
	// finishes a chunk in the middle of a statement goes on in its next chunk in the same
	// commit, and light chunks fit in one statement. Still two streams, not more.
	s := ints(nil)
	type loader struct{ chunk, pos int }
	next, commit := 19, int64(0)
	ls := []*loader{{chunk: 19}, {chunk: 18}}
	next = 17
	for len(ls) > 0 {
		for i := 0; i < len(ls); i++ {
			l := ls[i]
			for k := 0; k < 10 && l != nil; k++ {
				s.add(int64(l.chunk*100+l.pos), commit, l.chunk)
				if l.pos++; l.pos == 35 {
					if next < 0 {
						ls = append(ls[:i], ls[i+1:]...)
						i--
						l = nil
						break
					}
					l.chunk, l.pos = next, 0
					next--
				}
			}
			commit++
		}
	}
	want(t, s, "nAsc:2")
}

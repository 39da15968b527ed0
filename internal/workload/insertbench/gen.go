package insertbench

import (
	"bytes"
	"math/rand/v2"
	"slices"
)

// Value ranges of the reference (iibench.py: --cashregisters, --customers, --products, --max_price).
const (
	CashRegisters = 1000
	Customers     = 100000
	Products      = 10000
	MaxPrice      = 500
)

// DataSpec says how the data column is filled: its length is uniform in [Min, Max] and the
// reference makes int(len * 0.75 * RandomPct/100) of its characters random (37.5% at the default
// 50): a constant prefix of 'a' followed by a random base64 suffix, so it compresses like the
// original's. The reference cuts the suffix from a 4 MiB pool of base64 text at a random offset
// (ibp:534-545, 1449), which makes each character uniform over the 64 symbols and independent of
// the others; appendData draws them so directly (see there for why).
type DataSpec struct {
	Min, Max  int
	RandomPct int
}

// Generator makes rows. Each client role has its own, seeded from its own stream.
type Generator struct {
	rng  *rand.Rand
	data DataSpec
	buf  []byte // backing store of the data columns of the last batch
	offs []int  // start and end of each row's data in buf
}

// NewGenerator returns a generator drawing from rng.
func NewGenerator(rng *rand.Rand, data DataSpec) *Generator {
	return &Generator{rng: rng, data: data}
}

// Fill fills rows with ids first, first+1, ... and the same dateandtime, reusing rows' storage.
//
// A row costs three 64-bit draws (and one more for each ten random characters of its data past
// the fifth: appendData). Each of the three gives two values, one from each 32-bit half, scaled
// to its range by a multiply and shift (Lemire's method without its rejection step). The bias that
// leaves is below range/2^32 (2.3e-5 for customerid, the widest), far below what any figure can
// show, and the six draws with rejection that rand.Int32N makes cost far more
// (BenchmarkInsertText).
func (g *Generator) Fill(rows []Row, first, now int64) {
	g.buf, g.offs = g.buf[:0], g.offs[:0] // slices of buf are taken once it stops moving
	for i := range rows {
		r := &rows[i]
		r.ID = first + int64(i)
		r.DateAndTime = now
		u := g.rng.Uint64()
		r.CashRegister = int32(scale(u, CashRegisters))
		r.Customer = int32(scale(u>>32, Customers))
		u = g.rng.Uint64()
		r.Product = int32(scale(u, Products))
		r.Price = int32(scale(u>>32, MaxPrice))
		start := len(g.buf)
		g.buf = g.appendData(g.buf, g.rng.Uint64())
		g.offs = append(g.offs, start, len(g.buf))
	}
	for i := range rows {
		rows[i].Data = g.buf[g.offs[2*i]:g.offs[2*i+1]:g.offs[2*i+1]]
	}
}

// scale maps the low 32 bits of u uniformly (up to the bias Fill describes) onto [0, n).
func scale(u uint64, n uint32) uint32 {
	return uint32((u & 0xffffffff) * uint64(n) >> 32)
}

// padding is the constant part of data values, appended in one copy rather than a byte at a
// time.
var padding = bytes.Repeat([]byte{'a'}, 1024)

// base64Chars is the alphabet of the random part, as the reference's pool is base64 text.
const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// appendData appends one data value: its length from u's low half, then the constant part and
// the random characters, six bits of a draw each (the first five from u's high half).
//
// Why draws and not a pool of random text read at random offsets, as the reference does: the
// DBMS runs on the client's cores between two statements and evicts the pool from their caches,
// so each row's copy from a random place missed the cache (BenchmarkInsertText/cold shows it
// without a server; docs/performance.md). The characters have the same distribution either way.
func (g *Generator) appendData(b []byte, u uint64) []byte {
	n := g.data.Min
	if g.data.Max > g.data.Min {
		n += int(scale(u, uint32(g.data.Max-g.data.Min+1)))
	}
	random := int(float64(n) * 0.75 * float64(g.data.RandomPct) / 100)
	for k := n - random; k > 0; k -= len(padding) {
		b = append(b, padding[:min(k, len(padding))]...)
	}
	l := len(b)
	b = slices.Grow(b, random)[:l+random]
	out := b[l:]
	bits := u >> 32 // six bits a character: five from u's high half, then ten a draw
	for i := range out {
		if i >= 5 && (i-5)%10 == 0 {
			bits = g.rng.Uint64()
		}
		out[i] = base64Chars[bits&63]
		bits >>= 6
	}
	return b
}

// RangeStart draws the start value of a range query on index idx, uniform over the leading
// column's range, as the reference does.
func (g *Generator) RangeStart(idx Index) int64 {
	switch idx {
	case MarketSegment:
		return int64(g.rng.Int32N(Products))
	case RegisterSegment:
		return int64(g.rng.Int32N(CashRegisters))
	default:
		return int64(g.rng.Int32N(MaxPrice))
	}
}

// PickIndex chooses one of the three range queries uniformly.
func (g *Generator) PickIndex() Index { return Index(g.rng.IntN(int(NumIndexes))) }

// PointIDs fills ids with values uniform in [lo, hi].
func (g *Generator) PointIDs(ids []int64, lo, hi int64) {
	for i := range ids {
		if hi <= lo {
			ids[i] = lo
			continue
		}
		ids[i] = lo + g.rng.Int64N(hi-lo+1)
	}
}

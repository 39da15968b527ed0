package ycsb

import (
	"context"
	"math/rand/v2"
	"sync/atomic"

	"github.com/dbperf/dbperf/internal/measure"
)

// client is one YCSB thread: its random stream, key chooser and buffers.
type client struct {
	b      *Bench
	conn   Conn
	r      *rand.Rand
	keys   KeyChooser
	ops    discrete
	opOf   []measure.Op
	key    string
	values [][]byte
	fields []int
	// the operation being retried: its op, key, fields and scan length
	op      measure.Op
	keynum  int64
	scanLen int
}

func (b *Bench) newClient(step string, i int, conn Conn) *client {
	c := &client{b: b, conn: conn, r: b.rng(step, i)}
	c.values = make([][]byte, b.cfg.FieldCount)
	for f := range c.values {
		c.values[f] = make([]byte, b.cfg.FieldLength)
	}
	cfg := b.cfg
	for op, p := range []float64{cfg.Read, cfg.Update, cfg.Insert, cfg.Scan, cfg.RMW} {
		if p > 0 { // CoreWorkload.createOperationGenerator adds only positive proportions
			c.ops.weights = append(c.ops.weights, p)
			c.ops.sum += p
			c.opOf = append(c.opOf, []measure.Op{opRead, opUpdate, opInsert, opScan, opRMW}[op])
		}
	}
	c.keys = b.keyChooser()
	return c
}

// keyChooser is CoreWorkload's keychooser for the request distribution (CoreWorkload.java:
// 459-498): zipfian is scrambled over insertcount plus twice the inserts expected.
func (b *Bench) keyChooser() KeyChooser {
	cfg := b.cfg
	lo, hi := cfg.InsertStart, cfg.InsertStart+cfg.Count()-1
	switch cfg.Distribution {
	case "zipfian":
		expected := int64(int32(float64(cfg.OperationCount) * cfg.Insert * 2.0))
		return newScrambled(lo, hi+1+expected)
	case "latest":
		if b.zipf == nil {
			b.zipf = NewZipfian(0, b.inserts.Last()-1, zipfianConstant, -1)
		}
		return &latest{basis: b.inserts, z: b.zipf.clone()}
	case "hotspot":
		return newHotspot(lo, hi, cfg.HotData, cfg.HotOpn)
	case "sequential":
		if b.seqCounter == nil {
			b.seqCounter = new(atomic.Int64)
		}
		return sequential{start: lo, interval: hi - lo + 1, counter: b.seqCounter}
	case "exponential":
		return newExponential(exponentialPercentile, float64(cfg.RecordCount)*exponentialFrac)
	}
	return uniform{lo, hi}
}

// nextKeynum is CoreWorkload.nextKeynum: redrawn while beyond the last acknowledged insert.
func (c *client) nextKeynum() int64 {
	if _, ok := c.keys.(exponential); ok {
		for {
			if k := c.b.inserts.Last() - c.keys.Next(c.r); k >= 0 {
				return k
			}
		}
	}
	for {
		k := int64(int32(c.keys.Next(c.r))) // Java's .intValue()
		if k <= c.b.inserts.Last() {
			return k
		}
	}
}

// fill writes random values into every field: bytes in ' '..'\x7f', as RandomByteIterator's.
func (c *client) fill(values [][]byte) {
	for _, v := range values {
		for i := 0; i < len(v); i += 8 {
			x := c.r.Uint64()
			for j := i; j < len(v) && j < i+8; j++ {
				v[j] = ' ' + byte(x%96)
				x /= 96
			}
		}
	}
}

// do is one run-phase operation (CoreWorkload.doTransaction, CoreWorkload.java:636-829). A
// retry repeats the same operation on the same key.
func (c *client) do(ctx context.Context, attempt int) (measure.Op, int64, error) {
	cfg := &c.b.cfg
	if attempt == 0 {
		c.op = c.opOf[c.ops.Next(c.r)]
		switch c.op {
		case opInsert:
			c.keynum = c.b.inserts.Next()
		default:
			c.keynum = c.nextKeynum()
		}
		c.key = cfg.KeyName(c.keynum)
		c.fields = c.fields[:0]
		if cfg.WriteAllFields || c.op == opInsert {
			for f := range cfg.FieldCount {
				c.fields = append(c.fields, f)
			}
		} else {
			c.fields = append(c.fields, c.r.IntN(cfg.FieldCount))
		}
		c.fill(c.values[:len(c.fields)])
		c.scanLen = cfg.MinScan + c.r.IntN(cfg.MaxScan-cfg.MinScan+1)
	}
	readField := -1
	if !cfg.ReadAllFields {
		readField = c.r.IntN(cfg.FieldCount)
	}
	var err error
	switch c.op {
	case opRead:
		err = c.read(ctx, readField)
	case opUpdate:
		err = c.conn.Update(ctx, c.key, c.fields, c.values[:len(c.fields)])
	case opInsert:
		if err = c.conn.Insert(ctx, c.key, c.values); err == nil {
			c.b.inserts.Acknowledge(c.keynum)
			c.b.inserted.Add(1)
		}
	case opScan:
		_, err = c.conn.Scan(ctx, c.key, c.scanLen)
	case opRMW:
		if err = c.read(ctx, readField); err == nil {
			err = c.conn.Update(ctx, c.key, c.fields, c.values[:len(c.fields)])
		}
	}
	return c.op, 1, err
}

func (c *client) read(ctx context.Context, field int) error {
	found, err := c.conn.Read(ctx, c.key, field)
	if err == nil && !found {
		c.b.notFound.Add(1)
	}
	return err
}

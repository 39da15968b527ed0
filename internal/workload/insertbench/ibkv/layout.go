package ibkv

import (
	"encoding/binary"
	"errors"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// Key layout, the way MyRocks maps a table and its indexes onto one ordered key space:
//
//	table 0x00 0x01 id                  -> row (primary key)
//	table 0x00 0x02+i c1 c2 c3 id       -> "" (secondary index i; covering, no value)
//	0x00 "meta" 0x00 table              -> flags (whether the table has its secondary indexes)
//
// Integers are kvdriver.AppendInt's: 8 bytes big-endian with the sign bit flipped, so byte order
// is numeric order.
// Table names never contain 0x00 and never start with it, so spaces never overlap.
const (
	spacePK    = 0x01
	spaceIndex = 0x02 // + index number
)

var metaPrefix = []byte("\x00meta\x00")

// spacePrefix is the prefix of one table's key space (primary key or an index).
func spacePrefix(table string, space byte) []byte {
	b := make([]byte, 0, len(table)+2+32)
	b = append(b, table...)
	return append(b, 0, space)
}

// tablePrefix covers every key space of a table.
func tablePrefix(table string) []byte { return append([]byte(table), 0) }

func pkKey(dst []byte, table string, id int64) []byte {
	dst = append(dst[:0], table...)
	dst = append(dst, 0, spacePK)
	return kvdriver.AppendInt(dst, id)
}

func indexKey(dst []byte, table string, idx ib.Index, cols [3]int64, id int64) []byte {
	dst = append(dst[:0], table...)
	dst = append(dst, 0, spaceIndex+byte(idx))
	for _, c := range cols {
		dst = kvdriver.AppendInt(dst, c)
	}
	return kvdriver.AppendInt(dst, id)
}

// rowValue encodes the non-key columns: dateandtime, cashregisterid, customerid, productid, price
// (fixed width), then data.
func rowValue(dst []byte, r *ib.Row) []byte {
	dst = binary.BigEndian.AppendUint64(dst[:0], uint64(r.DateAndTime))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.CashRegister))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Customer))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Product))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Price))
	return append(dst, r.Data...)
}

const rowFixed = 8 + 4*4

var errCorrupt = errors.New("malformed row value")

// decodeRow fills r from a primary key entry; r.Data aliases v.
func decodeRow(key, v []byte, r *ib.Row) error {
	if len(v) < rowFixed || len(key) < 8 {
		return errCorrupt
	}
	r.ID = kvdriver.ReadInt(key[len(key)-8:])
	r.DateAndTime = int64(binary.BigEndian.Uint64(v))
	r.CashRegister = int32(binary.BigEndian.Uint32(v[8:]))
	r.Customer = int32(binary.BigEndian.Uint32(v[12:]))
	r.Product = int32(binary.BigEndian.Uint32(v[16:]))
	r.Price = int32(binary.BigEndian.Uint32(v[20:]))
	r.Data = v[rowFixed:]
	return nil
}

// decodeIndexKey returns the three columns and the id of a secondary index entry.
func decodeIndexKey(key []byte, prefixLen int) (cols [3]int64, id int64, err error) {
	if len(key) != prefixLen+32 {
		return cols, 0, errors.New("malformed index key")
	}
	k := key[prefixLen:]
	for i := range cols {
		cols[i] = kvdriver.ReadInt(k[8*i:])
	}
	return cols, kvdriver.ReadInt(k[24:]), nil
}

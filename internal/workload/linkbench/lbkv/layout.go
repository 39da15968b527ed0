// Package lbkv runs LinkBench on ordered key-value engines (kvdriver: Pebble, bbolt) through a
// table-over-KV layout, as MyRocks keeps InnoDB-style tables on RocksDB: linktable and its
// covering id1_type index, counttable and nodetable are key spaces. A transaction is one atomic
// batch, made after its reads under a lock of the id1 (or node id) it touches, which gives the
// row locks of the SQL targets: concurrent writes to one (id1, link_type) serialize.
package lbkv

import (
	"encoding/binary"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	lb "github.com/dbperf/dbperf/internal/workload/linkbench"
)

// The key spaces. Integers are kvdriver.AppendInt's order-preserving encoding.
var (
	linkSpace  = []byte("lb/L") // id1 link_type id2 -> visibility time version data
	indexSpace = []byte("lb/I") // id1 link_type ^time ^id2 -> version data (visible links only)
	countSpace = []byte("lb/C") // id1 link_type -> count time version
	nodeSpace  = []byte("lb/N") // id -> type version time data
)

func appendInts(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = kvdriver.AppendInt(b, v)
	}
	return b
}

func linkKey(b []byte, id1, lt, id2 int64) []byte {
	return appendInts(append(b[:0], linkSpace...), id1, lt, id2)
}

// indexKey orders a (id1, link_type)'s visible links newest first, ties by id2 highest first
// (the SQL targets' ORDER BY time DESC, id2 DESC): ^v reverses the order of v.
func indexKey(b []byte, id1, lt, time, id2 int64) []byte {
	return appendInts(append(b[:0], indexSpace...), id1, lt, ^time, ^id2)
}

func indexPrefix(b []byte, id1, lt int64) []byte {
	return appendInts(append(b[:0], indexSpace...), id1, lt)
}

func countKey(b []byte, id1, lt int64) []byte {
	return appendInts(append(b[:0], countSpace...), id1, lt)
}

func nodeKey(b []byte, id int64) []byte { return appendInts(append(b[:0], nodeSpace...), id) }

func linkValue(b []byte, l *lb.Link) []byte {
	b = append(b[:0], byte(l.Visibility))
	b = appendInts(b, l.Time, l.Version)
	return append(b, l.Data...)
}

// decodeLink fills l from a linktable key and value (the data is copied).
func decodeLink(k, v []byte, l *lb.Link) {
	k = k[len(linkSpace):]
	l.ID1, l.LinkType, l.ID2 = kvdriver.ReadInt(k), kvdriver.ReadInt(k[8:]), kvdriver.ReadInt(k[16:])
	l.Visibility = int8(v[0])
	l.Time, l.Version = kvdriver.ReadInt(v[1:]), kvdriver.ReadInt(v[9:])
	l.Data = append([]byte{}, v[17:]...)
}

func indexValue(b []byte, l *lb.Link) []byte {
	return append(appendInts(b[:0], l.Version), l.Data...)
}

// decodeIndex fills l from an id1_type key and value.
func decodeIndex(k, v []byte, l *lb.Link) {
	k = k[len(indexSpace):]
	l.ID1, l.LinkType = kvdriver.ReadInt(k), kvdriver.ReadInt(k[8:])
	l.Time, l.ID2 = ^kvdriver.ReadInt(k[16:]), ^kvdriver.ReadInt(k[24:])
	l.Visibility = lb.VisibilityDefault
	l.Version = kvdriver.ReadInt(v)
	l.Data = append([]byte{}, v[8:]...)
}

func countValue(b []byte, c *lb.Count) []byte { return appendInts(b[:0], c.Count, c.Time, c.Version) }

func decodeCount(k, v []byte, c *lb.Count) {
	k = k[len(countSpace):]
	c.ID1, c.LinkType = kvdriver.ReadInt(k), kvdriver.ReadInt(k[8:])
	c.Count, c.Time, c.Version = kvdriver.ReadInt(v), kvdriver.ReadInt(v[8:]), kvdriver.ReadInt(v[16:])
}

func nodeValue(b []byte, n *lb.Node) []byte {
	b = binary.BigEndian.AppendUint32(b[:0], uint32(n.Type))
	b = appendInts(b, n.Version, n.Time)
	return append(b, n.Data...)
}

func decodeNode(k, v []byte, n *lb.Node) {
	n.ID = kvdriver.ReadInt(k[len(nodeSpace):])
	n.Type = int32(binary.BigEndian.Uint32(v))
	n.Version, n.Time = kvdriver.ReadInt(v[4:]), kvdriver.ReadInt(v[12:])
	n.Data = append([]byte{}, v[20:]...)
}

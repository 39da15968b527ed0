package ibkv

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// specialInts are the values where a sign-flipping encoding goes wrong first.
var specialInts = []int64{
	math.MinInt64, math.MinInt64 + 1, -1 << 32, -256, -255, -2, -1, 0, 1, 2, 255, 256,
	1 << 32, math.MaxInt64 - 1, math.MaxInt64,
}

// inRange reports whether k is in [lower, upper) (upper nil: unbounded).
func inRange(k, lower, upper []byte) bool {
	return bytes.Compare(k, lower) >= 0 && (upper == nil || bytes.Compare(k, upper) < 0)
}

func TestTablePrefixSeparatesTables(t *testing.T) {
	// "pi1" is a prefix of "pi10", but the 0x00 after the name keeps the key spaces apart.
	p1, p10 := tablePrefix("pi1"), tablePrefix("pi10")
	if want := []byte("pi1\x00"); !bytes.Equal(p1, want) {
		t.Fatalf("tablePrefix(pi1) = %q, want %q", p1, want)
	}
	if bytes.Compare(p1, []byte("pi10")) >= 0 || bytes.Compare(kvdriver.PrefixEnd(p1), []byte("pi10")) > 0 {
		t.Fatalf("range of pi1 [%q, %q) reaches pi10", p1, kvdriver.PrefixEnd(p1))
	}
	// Whole key spaces do not overlap: [p1, end1) and [p10, end10) are disjoint.
	if !(bytes.Compare(kvdriver.PrefixEnd(p1), p10) <= 0 || bytes.Compare(kvdriver.PrefixEnd(p10), p1) <= 0) {
		t.Fatalf("key spaces of pi1 [%q,%q) and pi10 [%q,%q) overlap", p1, kvdriver.PrefixEnd(p1), p10, kvdriver.PrefixEnd(p10))
	}
}

// keysOf returns sample keys of every key space of a table.
func keysOf(table string, r *rand.Rand) map[string][][]byte {
	ids := append([]int64(nil), specialInts...)
	for range 20 {
		ids = append(ids, int64(r.Uint64()))
	}
	out := map[string][][]byte{}
	for _, id := range ids {
		out["pk"] = append(out["pk"], pkKey(nil, table, id))
		for idx := range ib.NumIndexes {
			cols := [3]int64{ids[r.IntN(len(ids))], ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]}
			name := "index " + idx.String()
			out[name] = append(out[name], indexKey(nil, table, idx, cols, id))
		}
	}
	return out
}

func TestKeySpacesDoNotOverlap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tables := []string{"pi1", "pi10", "pi2", "pi1a", "p", "pi"}
	type space struct {
		table, name  string
		lower, upper []byte
	}
	var spaces []space
	for _, tb := range tables {
		p := spacePrefix(tb, spacePK)
		spaces = append(spaces, space{tb, "pk", p, kvdriver.PrefixEnd(p)})
		for idx := range ib.NumIndexes {
			p := spacePrefix(tb, spaceIndex+byte(idx))
			spaces = append(spaces, space{tb, "index " + idx.String(), p, kvdriver.PrefixEnd(p)})
		}
	}
	for _, tb := range tables {
		keys := keysOf(tb, r)
		tp := tablePrefix(tb)
		for name, ks := range keys {
			for _, k := range ks {
				if !inRange(k, tp, kvdriver.PrefixEnd(tp)) {
					t.Fatalf("%s key %x of %s is outside its table's range", name, k, tb)
				}
				if inRange(k, metaPrefix, kvdriver.PrefixEnd(metaPrefix)) {
					t.Fatalf("%s key %x of %s is in the meta space", name, k, tb)
				}
				for _, s := range spaces {
					own := s.table == tb && s.name == name
					if in := inRange(k, s.lower, s.upper); in != own {
						t.Fatalf("%s key %x of table %s: in %s of %s = %v, want %v", name, k, tb, s.name, s.table, in, own)
					}
				}
				// Other tables' whole ranges never hold it.
				for _, other := range tables {
					if other == tb {
						continue
					}
					op := tablePrefix(other)
					if inRange(k, op, kvdriver.PrefixEnd(op)) {
						t.Fatalf("%s key %x of %s is in the range of table %s", name, k, tb, other)
					}
				}
			}
		}
		// The meta key of a table is in no table's range.
		mk := metaKey(tb)
		for _, other := range tables {
			op := tablePrefix(other)
			if inRange(mk, op, kvdriver.PrefixEnd(op)) {
				t.Fatalf("meta key %q of %s is in the range of table %s", mk, tb, other)
			}
		}
	}
}

func TestPKKeyLayoutAndOrder(t *testing.T) {
	if got, want := pkKey(nil, "pi1", 0), []byte("pi1\x00\x01\x80\x00\x00\x00\x00\x00\x00\x00"); !bytes.Equal(got, want) {
		t.Fatalf("pkKey(pi1, 0) = %q, want %q", got, want)
	}
	// dst is overwritten, not appended to.
	buf := []byte("garbage that is long enough")
	if got, want := pkKey(buf, "t", 5), append([]byte("t\x00\x01"), kvdriver.AppendInt(nil, 5)...); !bytes.Equal(got, want) {
		t.Fatalf("pkKey(buf, t, 5) = %q, want %q", got, want)
	}
	r := rand.New(rand.NewPCG(8, 9))
	for range 20000 {
		a, b := int64(r.Uint64()), int64(r.Uint64())
		if r.IntN(2) == 0 {
			b = a + int64(r.IntN(3)) - 1
		}
		if got, want := bytes.Compare(pkKey(nil, "pi1", a), pkKey(nil, "pi1", b)), cmp.Compare(a, b); got != want {
			t.Fatalf("pk keys of %d and %d compare %d, want %d", a, b, got, want)
		}
	}
}

func TestIndexKeyLayoutOrderAndDecode(t *testing.T) {
	k := indexKey(nil, "pi1", ib.PDC, [3]int64{1, 2, 3}, 4)
	want := []byte("pi1\x00\x04")
	for _, v := range []int64{1, 2, 3, 4} {
		want = kvdriver.AppendInt(want, v)
	}
	if !bytes.Equal(k, want) {
		t.Fatalf("indexKey(pi1, pdc, {1,2,3}, 4) = %x, want %x", k, want)
	}
	r := rand.New(rand.NewPCG(10, 11))
	small := func() int64 { return r.Int64N(5) - 2 } // many ties, negatives
	for range 20000 {
		idx := ib.Index(r.IntN(int(ib.NumIndexes)))
		ca := [3]int64{small(), small(), small()}
		cb := [3]int64{small(), small(), small()}
		ia, ib2 := small(), small()
		ka, kb := indexKey(nil, "pi1", idx, ca, ia), indexKey(nil, "pi1", idx, cb, ib2)
		want := cmp.Or(slices.Compare(ca[:], cb[:]), cmp.Compare(ia, ib2))
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("index keys %v/%d and %v/%d compare %d, want %d", ca, ia, cb, ib2, got, want)
		}
		p := spacePrefix("pi1", spaceIndex+byte(idx))
		cols, id, err := decodeIndexKey(ka, len(p))
		if err != nil || cols != ca || id != ia {
			t.Fatalf("decodeIndexKey(indexKey(%v, %d)) = %v, %d, %v", ca, ia, cols, id, err)
		}
	}
	// Extremes round trip.
	ext := [3]int64{math.MinInt64, math.MaxInt64, -1}
	p := spacePrefix("pi10", spaceIndex+byte(ib.RegisterSegment))
	cols, id, err := decodeIndexKey(indexKey(nil, "pi10", ib.RegisterSegment, ext, math.MinInt64), len(p))
	if err != nil || cols != ext || id != math.MinInt64 {
		t.Fatalf("extremes decode to %v, %d, %v", cols, id, err)
	}
}

func TestDecodeIndexKeyWrongLength(t *testing.T) {
	p := spacePrefix("pi1", spaceIndex)
	k := indexKey(nil, "pi1", ib.MarketSegment, [3]int64{1, 2, 3}, 4)
	for _, bad := range [][]byte{k[:len(k)-1], append(append([]byte(nil), k...), 0), k[:len(p)], nil} {
		if _, _, err := decodeIndexKey(bad, len(p)); err == nil {
			t.Errorf("decodeIndexKey of a %d-byte key with a %d-byte prefix: no error", len(bad), len(p))
		}
	}
	// A wrong prefix length is a wrong length too.
	if _, _, err := decodeIndexKey(k, len(p)+1); err == nil {
		t.Error("decodeIndexKey with a prefix length one too long: no error")
	}
}

func TestRowValueRoundTrip(t *testing.T) {
	rows := []ib.Row{
		{ID: 1, DateAndTime: 1700000000, CashRegister: 999, Customer: 99999, Product: 9999, Price: 499, Data: []byte("aaaaaaaXyZ+/")},
		{ID: math.MinInt64, DateAndTime: -5, CashRegister: -1, Customer: math.MinInt32, Product: math.MaxInt32, Price: 0, Data: nil},
		{ID: math.MaxInt64, DateAndTime: math.MaxInt64, CashRegister: 0, Customer: 0, Product: 0, Price: math.MinInt32, Data: []byte{0, 0xff, 0}},
	}
	var buf []byte
	for _, r := range rows {
		buf = rowValue(buf, &r) // reusing the buffer: the previous row must not leak in
		if len(buf) != rowFixed+len(r.Data) {
			t.Fatalf("rowValue of a row with %d bytes of data has %d bytes, want %d", len(r.Data), len(buf), rowFixed+len(r.Data))
		}
		key := pkKey(nil, "pi1", r.ID)
		var got ib.Row
		if err := decodeRow(key, buf, &got); err != nil {
			t.Fatalf("decodeRow: %v", err)
		}
		if got.ID != r.ID || got.DateAndTime != r.DateAndTime || got.CashRegister != r.CashRegister ||
			got.Customer != r.Customer || got.Product != r.Product || got.Price != r.Price || !bytes.Equal(got.Data, r.Data) {
			t.Fatalf("decodeRow(rowValue(%+v)) = %+v", r, got)
		}
		for idx := range ib.NumIndexes {
			if got.IndexKey(idx) != r.IndexKey(idx) {
				t.Fatalf("index %s key of the decoded row %v, want %v", idx, got.IndexKey(idx), r.IndexKey(idx))
			}
		}
	}
}

func TestDecodeRowMalformed(t *testing.T) {
	r := ib.Row{ID: 3, Data: []byte("abc")}
	v := rowValue(nil, &r)
	key := pkKey(nil, "pi1", 3)
	var got ib.Row
	if err := decodeRow(key, v[:rowFixed-1], &got); !errors.Is(err, errCorrupt) {
		t.Errorf("decodeRow of a %d-byte value: err = %v, want errCorrupt", rowFixed-1, err)
	}
	if err := decodeRow(key[:7], v, &got); !errors.Is(err, errCorrupt) {
		t.Errorf("decodeRow with a 7-byte key: err = %v, want errCorrupt", err)
	}
	if err := decodeRow(key, v[:rowFixed], &got); err != nil || len(got.Data) != 0 {
		t.Errorf("decodeRow of a value without data: err = %v, data %q", err, got.Data)
	}
}

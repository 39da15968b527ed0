package kvdb

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/quick"

	ib "github.com/dbperf/dbperf/internal/workload/insertbench"
)

// specialInts are the values where a sign-flipping encoding goes wrong first.
var specialInts = []int64{
	math.MinInt64, math.MinInt64 + 1, -1 << 32, -256, -255, -2, -1, 0, 1, 2, 255, 256,
	1 << 32, math.MaxInt64 - 1, math.MaxInt64,
}

func checkIntPair(t *testing.T, a, b int64) {
	t.Helper()
	ea, eb := appendInt(nil, a), appendInt(nil, b)
	if len(ea) != 8 || len(eb) != 8 {
		t.Fatalf("appendInt gives %d and %d bytes, want 8", len(ea), len(eb))
	}
	if got, want := bytes.Compare(ea, eb), cmp.Compare(a, b); got != want {
		t.Fatalf("bytes.Compare(appendInt(%d), appendInt(%d)) = %d, want %d (%x vs %x)", a, b, got, want, ea, eb)
	}
	if got := readInt(ea); got != a {
		t.Fatalf("readInt(appendInt(%d)) = %d", a, got)
	}
	if got := readInt(eb); got != b {
		t.Fatalf("readInt(appendInt(%d)) = %d", b, got)
	}
}

func TestAppendIntKnownEncodings(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want []byte
	}{
		{math.MinInt64, []byte{0, 0, 0, 0, 0, 0, 0, 0}},
		{-1, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{0, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}},
		{1, []byte{0x80, 0, 0, 0, 0, 0, 0, 1}},
		{math.MaxInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	} {
		if got := appendInt(nil, c.v); !bytes.Equal(got, c.want) {
			t.Errorf("appendInt(nil, %d) = %x, want %x", c.v, got, c.want)
		}
	}
	// appendInt appends: the existing bytes stay.
	got := appendInt([]byte("ab"), 0)
	if want := []byte{'a', 'b', 0x80, 0, 0, 0, 0, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Errorf("appendInt(\"ab\", 0) = %x, want %x", got, want)
	}
	// readInt reads the first 8 bytes of a longer slice.
	if got := readInt(append(appendInt(nil, -42), 0xff, 0xff)); got != -42 {
		t.Errorf("readInt of a longer slice = %d, want -42", got)
	}
}

func TestAppendIntOrderSpecialValues(t *testing.T) {
	for _, a := range specialInts {
		for _, b := range specialInts {
			checkIntPair(t, a, b)
		}
	}
}

func TestAppendIntOrderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	draw := func() int64 {
		switch r.IntN(4) {
		case 0:
			return specialInts[r.IntN(len(specialInts))]
		case 1:
			return r.Int64N(2001) - 1000 // near zero, where the sign flips
		default:
			return int64(r.Uint64())
		}
	}
	for range 200000 {
		checkIntPair(t, draw(), draw())
	}
	// Sorting the encodings sorts the numbers.
	vals := make([]int64, 5000)
	for i := range vals {
		vals[i] = draw()
	}
	enc := make([][]byte, len(vals))
	for i, v := range vals {
		enc[i] = appendInt(nil, v)
	}
	slices.SortFunc(enc, bytes.Compare)
	slices.Sort(vals)
	for i := range vals {
		if got := readInt(enc[i]); got != vals[i] {
			t.Fatalf("position %d: sorted encodings decode to %d, sorted numbers have %d", i, got, vals[i])
		}
	}
}

func TestAppendIntOrderQuick(t *testing.T) {
	f := func(a, b int64) bool {
		ea, eb := appendInt(nil, a), appendInt(nil, b)
		return bytes.Compare(ea, eb) == cmp.Compare(a, b) && readInt(ea) == a && readInt(eb) == b
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 20000, Rand: nil}); err != nil {
		t.Fatal(err)
	}
}

func FuzzIntOrder(f *testing.F) {
	for _, a := range specialInts {
		for _, b := range []int64{math.MinInt64, -1, 0, 1, math.MaxInt64} {
			f.Add(a, b)
		}
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		checkIntPair(t, a, b)
		// Within a composite key too: an equal prefix leaves the order to the integer.
		ka := appendInt([]byte("pi1\x00\x01"), a)
		kb := appendInt([]byte("pi1\x00\x01"), b)
		if got, want := bytes.Compare(ka, kb), cmp.Compare(a, b); got != want {
			t.Fatalf("prefixed keys of %d and %d compare %d, want %d", a, b, got, want)
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct {
		in, want []byte
	}{
		{[]byte("ab"), []byte("ac")},
		{[]byte("a\xff"), []byte("b")},
		{[]byte("a\xff\xff"), []byte("b")},
		{[]byte("a\xfe\xff"), []byte("a\xff")},
		{[]byte("pi1\x00"), []byte("pi1\x01")},
		{[]byte{0}, []byte{1}},
		{[]byte{0xff}, nil},
		{[]byte{0xff, 0xff, 0xff}, nil},
		{[]byte{}, nil},
	} {
		got := prefixEnd(c.in)
		if !bytes.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("prefixEnd(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// prefixEnd must not modify its argument.
	p := []byte("a\xff")
	prefixEnd(p)
	if string(p) != "a\xff" {
		t.Errorf("prefixEnd modified its argument to %q", p)
	}
}

func TestPrefixEndBoundsEveryKeyWithThePrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	prefixes := [][]byte{[]byte("ab"), []byte("a\xff"), []byte("pi1\x00"), []byte("x\xff\xff"), {0}, []byte("\x00meta\x00")}
	for range 200 {
		p := make([]byte, 1+r.IntN(4))
		for i := range p {
			// Mostly 0xff and 0x00 so carries happen.
			switch r.IntN(3) {
			case 0:
				p[i] = 0xff
			case 1:
				p[i] = 0
			default:
				p[i] = byte(r.Uint32())
			}
		}
		prefixes = append(prefixes, p)
	}
	for _, p := range prefixes {
		end := prefixEnd(p)
		if end == nil {
			continue
		}
		if bytes.Compare(p, end) >= 0 {
			t.Fatalf("prefixEnd(%x) = %x is not above the prefix", p, end)
		}
		for range 50 {
			suffix := make([]byte, r.IntN(10))
			for i := range suffix {
				if r.IntN(2) == 0 {
					suffix[i] = 0xff
				} else {
					suffix[i] = byte(r.Uint32())
				}
			}
			k := append(append([]byte(nil), p...), suffix...)
			if bytes.Compare(k, end) >= 0 {
				t.Fatalf("key %x has prefix %x but is not below prefixEnd %x", k, p, end)
			}
		}
		// And the smallest key greater than every key with the prefix: end itself lacks it.
		if bytes.HasPrefix(end, p) {
			t.Fatalf("prefixEnd(%x) = %x has the prefix itself", p, end)
		}
	}
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
	if bytes.Compare(p1, []byte("pi10")) >= 0 || bytes.Compare(prefixEnd(p1), []byte("pi10")) > 0 {
		t.Fatalf("range of pi1 [%q, %q) reaches pi10", p1, prefixEnd(p1))
	}
	// Whole key spaces do not overlap: [p1, end1) and [p10, end10) are disjoint.
	if !(bytes.Compare(prefixEnd(p1), p10) <= 0 || bytes.Compare(prefixEnd(p10), p1) <= 0) {
		t.Fatalf("key spaces of pi1 [%q,%q) and pi10 [%q,%q) overlap", p1, prefixEnd(p1), p10, prefixEnd(p10))
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
		spaces = append(spaces, space{tb, "pk", p, prefixEnd(p)})
		for idx := range ib.NumIndexes {
			p := spacePrefix(tb, spaceIndex+byte(idx))
			spaces = append(spaces, space{tb, "index " + idx.String(), p, prefixEnd(p)})
		}
	}
	for _, tb := range tables {
		keys := keysOf(tb, r)
		tp := tablePrefix(tb)
		for name, ks := range keys {
			for _, k := range ks {
				if !inRange(k, tp, prefixEnd(tp)) {
					t.Fatalf("%s key %x of %s is outside its table's range", name, k, tb)
				}
				if inRange(k, metaPrefix, prefixEnd(metaPrefix)) {
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
					if inRange(k, op, prefixEnd(op)) {
						t.Fatalf("%s key %x of %s is in the range of table %s", name, k, tb, other)
					}
				}
			}
		}
		// The meta key of a table is in no table's range.
		mk := metaKey(tb)
		for _, other := range tables {
			op := tablePrefix(other)
			if inRange(mk, op, prefixEnd(op)) {
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
	if got, want := pkKey(buf, "t", 5), append([]byte("t\x00\x01"), appendInt(nil, 5)...); !bytes.Equal(got, want) {
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
		want = appendInt(want, v)
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

package kvdriver

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/quick"
)

// specialInts are the values where a sign-flipping encoding goes wrong first.
var specialInts = []int64{
	math.MinInt64, math.MinInt64 + 1, -1 << 32, -256, -255, -2, -1, 0, 1, 2, 255, 256,
	1 << 32, math.MaxInt64 - 1, math.MaxInt64,
}

func checkIntPair(t *testing.T, a, b int64) {
	t.Helper()
	ea, eb := AppendInt(nil, a), AppendInt(nil, b)
	if len(ea) != 8 || len(eb) != 8 {
		t.Fatalf("AppendInt gives %d and %d bytes, want 8", len(ea), len(eb))
	}
	if got, want := bytes.Compare(ea, eb), cmp.Compare(a, b); got != want {
		t.Fatalf("bytes.Compare(AppendInt(%d), AppendInt(%d)) = %d, want %d (%x vs %x)", a, b, got, want, ea, eb)
	}
	if got := ReadInt(ea); got != a {
		t.Fatalf("ReadInt(AppendInt(%d)) = %d", a, got)
	}
	if got := ReadInt(eb); got != b {
		t.Fatalf("ReadInt(AppendInt(%d)) = %d", b, got)
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
		if got := AppendInt(nil, c.v); !bytes.Equal(got, c.want) {
			t.Errorf("AppendInt(nil, %d) = %x, want %x", c.v, got, c.want)
		}
	}
	// AppendInt appends: the existing bytes stay.
	got := AppendInt([]byte("ab"), 0)
	if want := []byte{'a', 'b', 0x80, 0, 0, 0, 0, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Errorf("AppendInt(\"ab\", 0) = %x, want %x", got, want)
	}
	// ReadInt reads the first 8 bytes of a longer slice.
	if got := ReadInt(append(AppendInt(nil, -42), 0xff, 0xff)); got != -42 {
		t.Errorf("ReadInt of a longer slice = %d, want -42", got)
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
		enc[i] = AppendInt(nil, v)
	}
	slices.SortFunc(enc, bytes.Compare)
	slices.Sort(vals)
	for i := range vals {
		if got := ReadInt(enc[i]); got != vals[i] {
			t.Fatalf("position %d: sorted encodings decode to %d, sorted numbers have %d", i, got, vals[i])
		}
	}
}

func TestAppendIntOrderQuick(t *testing.T) {
	f := func(a, b int64) bool {
		ea, eb := AppendInt(nil, a), AppendInt(nil, b)
		return bytes.Compare(ea, eb) == cmp.Compare(a, b) && ReadInt(ea) == a && ReadInt(eb) == b
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
		ka := AppendInt([]byte("pi1\x00\x01"), a)
		kb := AppendInt([]byte("pi1\x00\x01"), b)
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
		got := PrefixEnd(c.in)
		if !bytes.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("PrefixEnd(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// PrefixEnd must not modify its argument.
	p := []byte("a\xff")
	PrefixEnd(p)
	if string(p) != "a\xff" {
		t.Errorf("PrefixEnd modified its argument to %q", p)
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
		end := PrefixEnd(p)
		if end == nil {
			continue
		}
		if bytes.Compare(p, end) >= 0 {
			t.Fatalf("PrefixEnd(%x) = %x is not above the prefix", p, end)
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
				t.Fatalf("key %x has prefix %x but is not below PrefixEnd %x", k, p, end)
			}
		}
		// And the smallest key greater than every key with the prefix: end itself lacks it.
		if bytes.HasPrefix(end, p) {
			t.Fatalf("PrefixEnd(%x) = %x has the prefix itself", p, end)
		}
	}
}

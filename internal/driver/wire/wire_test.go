package wire

import "testing"

// The server's own sessions (ibsql's mywire_test.go, LinkBench's same-results test) test the
// protocol end to end; these are the parsers' edges.

func TestLenenc(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		v    uint64
		size int
		ok   bool
	}{
		{[]byte{0}, 0, 1, true},
		{[]byte{250}, 250, 1, true},
		{[]byte{0xfc, 0x34, 0x12}, 0x1234, 3, true},
		{[]byte{0xfd, 1, 2, 3}, 0x030201, 4, true},
		{[]byte{0xfe, 1, 0, 0, 0, 0, 0, 0, 0x80}, 1<<63 + 1, 9, true},
		{[]byte{0xfc, 1}, 0, 0, false},    // short
		{[]byte{0xfb}, 0, 0, false},       // NULL, not a length
		{[]byte{0xff, 0, 0}, 0, 0, false}, // an ERR packet's mark
		{nil, 0, 0, false},
	} {
		v, size, ok := lenenc(c.in)
		if v != c.v || size != c.size || ok != c.ok {
			t.Errorf("lenenc(% x) = %d, %d, %v; want %d, %d, %v", c.in, v, size, ok, c.v, c.size, c.ok)
		}
	}
}

func TestAtoi(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-1": -1, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63} {
		if n, ok := Atoi([]byte(in)); !ok || n != want {
			t.Errorf("Atoi(%q) = %d, %v; want %d", in, n, ok, want)
		}
	}
	for _, in := range []string{"", "-", "1.5", "9223372036854775808", "12345678901234567890", " 1"} {
		if n, ok := Atoi([]byte(in)); ok {
			t.Errorf("Atoi(%q) = %d, true; want false", in, n)
		}
	}
}

func TestCommandRows(t *testing.T) {
	for tag, want := range map[string]int64{"DELETE 50\x00": 50, "INSERT 0 100\x00": 100, "UPDATE 0": 0, "BEGIN\x00": 0, "": 0} {
		if got := commandRows([]byte(tag)); got != want {
			t.Errorf("commandRows(%q) = %d, want %d", tag, got, want)
		}
	}
}

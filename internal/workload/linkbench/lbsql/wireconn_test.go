package lbsql

import (
	"strings"
	"testing"
)

// TestInterpolate: integers in decimal, payloads as the reference's hex literals (empty too),
// and a clear error for a count or type that does not fit.
func TestInterpolate(t *testing.T) {
	got, err := interpolate(nil, "UPDATE t SET data = ?, time = ? WHERE id = ? AND v = ?",
		[]any{[]byte{0x00, 0xff, '\'', '\\'}, int64(-5), 7, []byte{}})
	want := `UPDATE t SET data = x'00ff275c', time = -5 WHERE id = 7 AND v = x''`
	if err != nil || string(got) != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	for _, c := range []struct {
		q    string
		args []any
		msg  string
	}{
		{"SELECT ? + ?", []any{int64(1)}, "more placeholders than its 1 arguments"},
		{"SELECT ?", []any{int64(1), int64(2)}, "2 arguments for 1 placeholders"},
		{"SELECT ?", []any{"text"}, "unsupported type string"},
	} {
		if _, err := interpolate(nil, c.q, c.args); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %v: error %v, want one saying %q", c.q, c.args, err, c.msg)
		}
	}
}

// TestTextRowsScan: integers parsed, bytes in place, NULL as nil; a wrong count, a non-integer
// and an unsupported destination are errors.
func TestTextRowsScan(t *testing.T) {
	r := &textRows{wireRows{vals: [][]byte{[]byte("-42"), []byte("ab"), nil}}}
	var n int64
	var b, null []byte
	if err := r.Scan(&n, &b, &null); err != nil || n != -42 || string(b) != "ab" || null != nil {
		t.Fatalf("scan: %d %q %v, %v", n, b, null, err)
	}
	if err := r.Scan(&n, &b); err == nil {
		t.Error("two destinations for three columns: no error")
	}
	var s string
	if err := r.Scan(&n, &b, &s); err == nil {
		t.Error("a *string destination: no error")
	}
	r.vals[0] = []byte("4x")
	if err := r.Scan(&n, &b, &null); err == nil {
		t.Error(`"4x" as an integer: no error`)
	}
}

// TestPGEncode: text parameters, integers in decimal and bytes in bytea's hex form.
func TestPGEncode(t *testing.T) {
	c := &pgWireConn{}
	if err := c.encode([]any{int64(-3), 12, []byte{0xab, 0}, []byte{}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"-3", "12", `\xab00`, `\x`}
	if len(c.params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(c.params), len(want))
	}
	for i, p := range c.params {
		if string(p) != want[i] {
			t.Errorf("parameter %d: %q, want %q", i+1, p, want[i])
		}
	}
	if err := c.encode([]any{"text"}); err == nil || !strings.Contains(err.Error(), "unsupported type string") {
		t.Errorf("a string argument: %v", err)
	}
}

// TestBinRowsScan: bigint, integer and smallint into *int64, bytea in place, NULL bytes as nil;
// a column of another type or size is an error, not a wrong value.
func TestBinRowsScan(t *testing.T) {
	r := &binRows{oids: []uint32{oidInt8, oidInt4, oidInt2, oidBytea, oidBytea},
		wireRows: wireRows{vals: [][]byte{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, {0, 0, 1, 0}, {0x80, 0}, []byte("xy"), nil}}}
	var a, b, c int64
	var d, e []byte
	if err := r.Scan(&a, &b, &c, &d, &e); err != nil || a != -2 || b != 256 || c != -32768 || string(d) != "xy" || e != nil {
		t.Fatalf("scan: %d %d %d %q %v, %v", a, b, c, d, e, err)
	}
	r.oids[0] = oidBytea
	if err := r.Scan(&a, &b, &c, &d, &e); err == nil {
		t.Error("bytea into an integer: no error")
	}
	r.oids[0], r.vals[0] = oidInt8, []byte{1, 2, 3, 4}
	if err := r.Scan(&a, &b, &c, &d, &e); err == nil {
		t.Error("a 4-byte bigint: no error")
	}
	r.oids[0], r.vals[0] = oidInt8, make([]byte, 8)
	if err := r.Scan(&d, &b, &c, &d, &e); err == nil {
		t.Error("bigint into bytes: no error")
	}
}

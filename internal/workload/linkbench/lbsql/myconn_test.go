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
	r := &textRows{vals: [][]byte{[]byte("-42"), []byte("ab"), nil}}
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

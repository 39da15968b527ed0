package archive

import (
	"strings"
	"testing"
)

func TestStreamsCode(t *testing.T) {
	for _, c := range []struct {
		s    Streams
		want string
	}{
		{Ascending(1, true), "nAsc:1, nRHS:1"},
		{Ascending(4, false), "nAsc:4"},
		{Random, "inf"},
		{Streams{Desc: 2, LHS: 1}, "nDesc:2, nLHS:1"},
		{Streams{Asc: 3, Desc: 1, RHS: 1, LHS: 1}, "nAsc:3, nDesc:1, nRHS:1, nLHS:1"},
	} {
		got, err := c.s.Code()
		if err != nil || got != c.want {
			t.Errorf("%+v.Code() = %q, %v; want %q", c.s, got, err, c.want)
			continue
		}
		back, err := ParseStreams(got)
		if err != nil || back != c.s {
			t.Errorf("ParseStreams(%q) = %+v, %v; want %+v", got, back, err, c.s)
		}
		if back, err := ParseStreams("(" + got + ")"); err != nil || back != c.s {
			t.Errorf("ParseStreams((%q)) = %+v, %v", got, back, err)
		}
	}
}

func TestStreamsRules(t *testing.T) {
	for _, c := range []struct {
		s    Streams
		want string
	}{
		{Streams{}, "at least one stream"},
		{Streams{RHS: 1}, "at least one stream"},
		{Streams{Desc: 1, RHS: 1}, "nRHS 1 needs an ascending stream"},
		{Streams{Asc: 1, LHS: 1}, "nLHS 1 needs a descending stream"},
		{Streams{Asc: 2, RHS: 2}, "0 or 1"},
		{Streams{Asc: -1, Desc: 2}, "negative"},
		{Streams{Asc: 1, Random: true}, "random inserts have no streams"},
	} {
		_, err := c.s.Code()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v.Code() error %v, want one saying %q", c.s, err, c.want)
		}
	}
	for _, bad := range []string{"", "nAsc", "nAsc:x", "nUp:1", "nAsc:1, nAsc:2", "nRHS:1"} {
		if _, err := ParseStreams(bad); err == nil {
			t.Errorf("ParseStreams(%q) accepted", bad)
		}
	}
}

func TestNewInsertPattern(t *testing.T) {
	p := NewInsertPattern("l.i0", "pi1", "pk", Ascending(1, true))
	if p != (InsertPattern{Step: "l.i0", Table: "pi1", Index: "pk", Pattern: "nAsc:1, nRHS:1"}) {
		t.Fatalf("NewInsertPattern = %+v", p)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("NewInsertPattern accepted a pattern without streams")
		}
	}()
	NewInsertPattern("l.i0", "pi1", "pk", Streams{})
}

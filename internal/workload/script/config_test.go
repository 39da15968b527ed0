package script

import (
	"strings"
	"testing"
)

// TestParseCheck: the last " = " splits the query from VALUE; a check without one, or with an
// empty side, is refused instead of being split at an "=" inside the query.
func TestParseCheck(t *testing.T) {
	for _, tc := range []struct{ in, sql, want, err string }{
		{in: "SELECT count(*) FROM t = 1000", sql: "SELECT count(*) FROM t", want: "1000"},
		{in: "SELECT count(*) FROM t WHERE a = 1 = 7", sql: "SELECT count(*) FROM t WHERE a = 1", want: "7"},
		{in: "SELECT count(*) FROM sqlite_master WHERE type='table' = 2", sql: "SELECT count(*) FROM sqlite_master WHERE type='table'", want: "2"},
		{in: "SELECT 'a = b' =  a = b ", sql: "SELECT 'a = b' =  a", want: "b"},
		{in: "SELECT count(*) FROM sqlite_master WHERE type='table'", err: `has no " = "`},
		{in: "SELECT count(*)=3", err: `has no " = "`},
		{in: "SELECT 1 = ", err: "is empty"},
		{in: " = 3", err: "is empty"},
	} {
		c, err := ParseCheck(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "SQL = VALUE") {
				t.Errorf("%q: got %+v, %v; want an error with %q", tc.in, c, err, tc.err)
			}
		case err != nil || c.SQL != tc.sql || c.Want != tc.want:
			t.Errorf("%q: got %+v, %v; want SQL %q, VALUE %q", tc.in, c, err, tc.sql, tc.want)
		}
	}
}

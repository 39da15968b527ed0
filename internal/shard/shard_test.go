package shard

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == IndexEnv {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		in, env string
		want    Spec
		err     string
	}{
		{"", "", Spec{}, ""},
		{"0/4", "", Spec{0, 4}, ""},
		{"3/4", "", Spec{3, 4}, ""},
		{"auto/8", "5", Spec{5, 8}, ""},
		{"4/4", "", Spec{}, "from 0 to 3"},
		{"auto/8", "", Spec{}, "needs JOB_COMPLETION_INDEX"},
		{"auto/8", "9", Spec{}, "from 0 to 7"},
		{"1-4", "", Spec{}, "not of the form i/N"},
		{"0/0", "", Spec{}, "not of the form i/N"},
	} {
		got, err := Parse(c.in, env(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestRangeCoversOnce: every thing is in exactly one shard, shares differ by at most one.
func TestRangeCoversOnce(t *testing.T) {
	for _, n := range []int64{0, 1, 7, 64, 1000003} {
		for count := 1; count <= 9; count++ {
			var next int64
			for i := range count {
				lo, hi := Spec{i, count}.Range(n)
				if lo != next || hi < lo || hi-lo > n/int64(count)+1 {
					t.Fatalf("n %d, shard %d/%d: [%d,%d) after %d", n, i, count, lo, hi, next)
				}
				next = hi
			}
			if next != n {
				t.Fatalf("n %d over %d shards covers %d", n, count, next)
			}
		}
	}
}

// TestSeedsNeverCollide: streams named differently get different seeds; the same name the same
// seed, whatever the shard count.
func TestSeedsNeverCollide(t *testing.T) {
	seen := map[uint64]string{}
	for _, step := range []string{"l.i0", "l.i1", "qr100"} {
		for _, role := range []string{"inserter", "querier"} {
			for c := range 1000 {
				s := Seed(7, step, role, c)
				key := step + role + string(rune(c))
				if k, dup := seen[s]; dup {
					t.Fatalf("seed %d for %s and %s", s, k, key)
				}
				seen[s] = key
			}
		}
	}
	if Seed(7, "l.i0", "inserter", 3) != Seed(7, "l.i0", "inserter", 3) || Seed(7, "a", "b", 1) == Seed(8, "a", "b", 1) {
		t.Fatal("a seed is not a pure function of seed, step, role and number")
	}
}

func TestRateShares(t *testing.T) {
	var sum float64
	for i := range 3 {
		sum += Spec{i, 3}.Rate(9000)
	}
	if sum != 9000 || (Spec{}).Rate(5) != 5 {
		t.Fatalf("shares of 9000 add to %v", sum)
	}
	if err := (Spec{0, 4}).CheckClients("clients", 2); err == nil {
		t.Fatal("4 shards of 2 clients were not refused")
	}
}

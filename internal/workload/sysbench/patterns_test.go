package sysbench

import (
	"maps"
	"testing"
)

// TestDeclaredPatterns: prepare's pk is one ascending stream at the right end per table (its
// k index is built after the load: none declared); oltp_insert's pk too with --auto-inc, else
// random, and its k random; read_write's delete+insert random in both; read_only none.
func TestDeclaredPatterns(t *testing.T) {
	codes := func(test string, autoInc bool) map[string]string {
		c := DefaultConfig()
		if err := c.SetTest(test); err != nil {
			t.Fatal(err)
		}
		c.Tables, c.AutoInc = 2, autoInc
		m := map[string]string{}
		for _, p := range c.InsertPatterns() {
			m[p.Step+" "+p.Table+"."+p.Index] = p.Pattern
		}
		return m
	}
	asc, inf := "nAsc:1, nRHS:1", "inf"
	for _, c := range []struct {
		test    string
		autoInc bool
		want    map[string]string
	}{
		{"insert", true, map[string]string{"prepare sbtest1.pk": asc, "prepare sbtest2.pk": asc,
			"run sbtest1.pk": asc, "run sbtest2.pk": asc, "run sbtest1.k": inf, "run sbtest2.k": inf}},
		{"insert", false, map[string]string{"run sbtest1.pk": inf, "run sbtest2.pk": inf, "run sbtest1.k": inf, "run sbtest2.k": inf}},
		{"read_write", true, map[string]string{"prepare sbtest1.pk": asc, "prepare sbtest2.pk": asc,
			"run sbtest1.pk": inf, "run sbtest2.pk": inf, "run sbtest1.k": inf, "run sbtest2.k": inf}},
		{"read_only", true, map[string]string{"prepare sbtest1.pk": asc, "prepare sbtest2.pk": asc}},
	} {
		if got := codes(c.test, c.autoInc); !maps.Equal(got, c.want) {
			t.Errorf("%s, auto-inc %v: %v, want %v", c.test, c.autoInc, got, c.want)
		}
	}
}

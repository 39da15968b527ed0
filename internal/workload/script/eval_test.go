package script

import (
	"math"
	"strings"
	"testing"
)

// evalOne evaluates an expression with :a = 5 and :t = text, and a fixed generator.
func evalOne(t *testing.T, expr string) (Value, error) {
	t.Helper()
	syms := NewSymbols()
	e, err := ParseExpr(expr, syms)
	if err != nil {
		return Value{}, err
	}
	env := Env{Vars: make([]Var, syms.Len()), Syms: syms, RNG: NewPRNG(1)}
	env.Vars[syms.Lookup("default_seed")].SetValue(Int(0))
	if i := syms.Lookup("a"); i >= 0 {
		env.Vars[i].SetValue(Int(5))
	}
	if i := syms.Lookup("t"); i >= 0 {
		env.Vars[i].SetText("yes")
	}
	if i := syms.Lookup("d"); i >= 0 {
		env.Vars[i].SetText("2.5")
	}
	return env.Eval(e)
}

// TestEval checks the operators and functions against pgbench 15's semantics; the rows marked
// "verified" in ../shared/reference/standard-workloads.md were observed with pgbench 15.18.
func TestEval(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"1 + 2 * 3", "7"}, {"(1 + 2) * 3", "9"}, {"7 / 2", "3"}, {"-7 / 2", "-3"}, {"7.0 / 2", "3.5"},
		{"-7 % 3", "-1"}, {"7.5 % 2", "0"}, {"mod(7, -1)", "0"}, {"1.0 / 0", "Infinity"}, {"5 / 0.0", "Infinity"},
		{"1 + 0.5", "1.5"}, {"2 > 1", "true"}, {"1 >= 2", "false"}, {"1 = 1.0", "true"}, {"1 <> 2", "true"}, {"1 != 1", "false"},
		{"5 & 3", "1"}, {"5 | 3", "7"}, {"5 # 3", "6"}, {"~0", "-1"}, {"1 << 4", "16"}, {"-16 >> 2", "-4"},
		{"true and false", "false"}, {"true or false", "true"}, {"not true", "false"}, {"null and false", "NULL"},
		{"false and null", "false"}, {"true or null", "true"}, {"null or true", "NULL"},
		{"null is null", "true"}, {"1 isnull", "false"}, {"1 notnull", "true"}, {"true is true", "true"},
		{"1 is not null", "true"}, {"false is not false", "false"}, {"null + 1", "NULL"},
		{"case when 1 > 2 then 1 when 2 > 1 then 2 else 3 end", "2"}, {"case when false then 1 end", "NULL"},
		{"abs(-3)", "3"}, {"abs(-3.5)", "3.5"}, {"int(2.5)", "2"}, {"int(3.5)", "4"}, {"int(-2.7)", "-3"},
		{"double(3)", "3"}, {"greatest(1, 3, 2)", "3"}, {"least(1, 0.5)", "0.5"}, {"pi()", "3.14159265358979"},
		{"pow(2, 10)", "1024"}, {"power(2, 0.5)", "1.4142135623731"}, {"sqrt(4)", "2"}, {"ln(0)", "-Infinity"},
		{"sqrt(-1)", "NaN"}, {"exp(0)", "1"}, {"7.0 / 3", "2.33333333333333"}, {"1e3", "1000"}, {".5 + 1", "1.5"},
		{":a * 2", "10"}, {":t and true", "true"}, {":d * 2", "5"},
		{"-9223372036854775808", "-9223372036854775808"}, {"9223372036854775807", "9223372036854775807"},
		// from pgbench 15.18: SELECT of \set h hash(1, 0) ... with pgbench -d (docs/script.md)
		{"hash_fnv1a(1, 0)", "-8517097267634966620"}, {"hash(1, 0)", "-8089716718896805586"},
		{"hash_murmur2(-5, 77)", "6031529132539044946"}, {"permute(12345, 1000000, 42)", "100143"}, {"permute(-1, 10, 1)", "3"},
		{"permute(0, 1)", "0"}, {"random(3, 3)", "3"}, {"random_zipfian(7, 7, 2)", "7"},
		{"debug(2)", "2"}, {"RANDOM(1, 1)", "1"},
	} {
		v, err := evalOne(t, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if v.Text() != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, v.Text(), tc.want)
		}
	}
}

// TestEvalErrors: the evaluation errors that abort a pgbench client.
func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"1 / 0", "division by zero"}, {"1 % 0", "division by zero"},
		{"9223372036854775807 + 1", "bigint add out of range"}, {"-9223372036854775808 - 1", "bigint sub out of range"},
		{"4611686018427387904 * 2", "bigint mul out of range"}, {"-9223372036854775808 / -1", "bigint div out of range"},
		{"1 and true", "cannot coerce int to boolean"}, {"not 1", "cannot coerce int to boolean"},
		{"int(true)", "cannot coerce boolean to int"}, {"int(1e30)", "double to int overflow"},
		{"random(2, 1)", "empty range given to random"}, {"random(-9223372036854775808, 9223372036854775807)", "random range is too large"},
		{"random_zipfian(1, 10, 1.0)", "zipfian parameter must be in range [1.001, 1000]"},
		{"random_zipfian(1, 10, 1001)", "zipfian parameter must be in range"},
		{"random_gaussian(1, 10, 1.9)", "gaussian parameter must be at least 2.000000"},
		{"random_exponential(1, 10, 0)", "exponential parameter must be greater than zero"},
		{"permute(1, 0)", "permute size parameter must be greater than zero"},
		{":nope + 1", "undefined variable \"nope\""},
	} {
		_, err := evalOne(t, tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.expr, err, tc.want)
		}
	}
}

// TestParseText: text variables become values as pgbench's makeVariableValue makes them.
func TestParseText(t *testing.T) {
	for in, want := range map[string]string{"null": "NULL", "NULL": "NULL", "t": "true", "ye": "true", "on": "true",
		"f": "false", "no": "false", "of": "false", "off": "false", "42": "42", " -7 ": "-7", "1.5": "1.5", "1e2": "100"} {
		v, err := ParseText(in)
		if err != nil || v.Text() != want {
			t.Errorf("ParseText(%q) = %s, %v; want %s", in, v.Text(), err, want)
		}
	}
	for _, in := range []string{"", "o", "abc", "99999999999999999999"} {
		if _, err := ParseText(in); err == nil {
			t.Errorf("ParseText(%q): no error", in)
		}
	}
}

// TestPermuteIsBijection: permute maps [0, size) onto itself for sizes around powers of two.
func TestPermuteIsBijection(t *testing.T) {
	for _, size := range []int64{2, 3, 4, 5, 7, 8, 9, 100, 1000, 1023, 1024, 1025} {
		seen := make([]bool, size)
		for i := range size {
			v := Permute(i, size, 12345)
			if v < 0 || v >= size || seen[v] {
				t.Fatalf("size %d: permute(%d) = %d is out of range or repeated", size, i, v)
			}
			seen[v] = true
		}
	}
	if Permute(-1, 10, 1) != Permute(uint64mod(-1, 10), 10, 1) {
		t.Error("a negative input is not reduced as (uint64) i % size")
	}
}

func uint64mod(i, n int64) int64 { return int64(uint64(i) % uint64(n)) }

// TestZipfianDistribution: random_zipfian's frequencies follow 1/k^s (the value k's share
// relative to the first value's), within sampling error.
func TestZipfianDistribution(t *testing.T) {
	r := NewPRNG(7)
	const n, draws, s = 100, 400000, 1.5
	counts := make([]float64, n+1)
	for range draws {
		counts[r.Zipfian(1, n, s)]++
	}
	for _, k := range []int{2, 3, 5, 10} {
		got, want := counts[k]/counts[1], math.Pow(float64(k), -s)
		if math.Abs(got-want) > 0.05*want+0.005 {
			t.Errorf("value %d: frequency ratio to value 1 is %.4f, want %.4f", k, got, want)
		}
	}
}

package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is a value's type in pgbench's expression language (PgBenchValueType).
type Kind uint8

// The value types: NULL, boolean, bigint and double.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindDouble
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "int", "double"}[k]
}

// Value is one pgbench value.
type Value struct {
	Kind Kind
	I    int64 // KindInt; KindBool as 0 or 1
	F    float64
}

// Null, Bool, Int and Double make values.
func Null() Value            { return Value{} }
func Bool(b bool) Value      { v := Value{Kind: KindBool}; v.setBool(b); return v }
func Int(i int64) Value      { return Value{Kind: KindInt, I: i} }
func Double(f float64) Value { return Value{Kind: KindDouble, F: f} }
func (v *Value) setBool(b bool) {
	v.I = 0
	if b {
		v.I = 1
	}
}

// Text is the value as pgbench writes it into SQL (getVariable, pgbench.c:1646-1676): an int
// in decimal, a double with %.15g, true/false, NULL.
func (v Value) Text() string {
	switch v.Kind {
	case KindNull:
		return "NULL"
	case KindBool:
		if v.I != 0 {
			return "true"
		}
		return "false"
	case KindInt:
		return strconv.FormatInt(v.I, 10)
	}
	return formatDouble(v.F)
}

// AppendText appends Text to b without allocating (but for a double).
func (v Value) AppendText(b []byte) []byte {
	switch v.Kind {
	case KindInt:
		return strconv.AppendInt(b, v.I, 10)
	case KindNull:
		return append(b, "NULL"...)
	case KindBool:
		if v.I != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	}
	return append(b, formatDouble(v.F)...)
}

// formatDouble is pgbench's %.15g (pgbench.c:1670-1671) in PostgreSQL's own snprintf, whose
// fmtfloat writes NaN, Infinity and -Infinity (src/port/snprintf.c:1150-1207), not glibc's
// inf and nan. pgbench 15.18 -d sends `SELECT Infinity, -Infinity, NaN` for 1.0/0, -1.0/0, sqrt(-1.0).
func formatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'g', 15, 64)
	// Go writes exponents with at least two digits, as C does; only the sign differs for none.
	return s
}

// truth is valueTruth (pgbench.c:2042-2059): NULL, false, 0 and 0.0 are false.
func (v Value) truth() bool {
	switch v.Kind {
	case KindBool, KindInt:
		return v.I != 0
	case KindDouble:
		return v.F != 0
	}
	return false
}

// toInt is coerceToInt: a double is rounded half to even (rint) and must fit.
func (v Value) toInt() (int64, error) {
	switch v.Kind {
	case KindInt:
		return v.I, nil
	case KindDouble:
		d := math.RoundToEven(v.F)
		if math.IsNaN(d) || d < -9.223372036854775808e18 || d >= 9.223372036854775808e18 {
			return 0, fmt.Errorf("double to int overflow for %f", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.Kind)
}

// toDouble is coerceToDouble.
func (v Value) toDouble() (float64, error) {
	switch v.Kind {
	case KindDouble:
		return v.F, nil
	case KindInt:
		return float64(v.I), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.Kind)
}

// toBool is coerceToBool: only a boolean is one.
func (v Value) toBool() (bool, error) {
	if v.Kind == KindBool {
		return v.I != 0, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.Kind)
}

// ParseText is makeVariableValue (pgbench.c:1680-1738): the value of a variable set as text
// (--define, \gset): null; prefixes of true, yes, false, no, and on, off, of; an integer;
// else a double. The empty string is an error.
func ParseText(s string) (Value, error) {
	l := strings.ToLower(s)
	n := len(l)
	switch {
	case n == 0:
		return Value{}, fmt.Errorf("empty value")
	case l == "null":
		return Null(), nil
	case n <= 4 && l == "true"[:n] || n <= 3 && l == "yes"[:n] || l == "on":
		return Bool(true), nil
	case n <= 5 && l == "false"[:n] || n <= 2 && l == "no"[:n] || l == "off" || l == "of":
		return Bool(false), nil
	}
	t := strings.TrimSpace(s)
	if isAnInt(t) {
		i, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return Int(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // strtodouble: out of range is malformed too
		return Value{}, fmt.Errorf("malformed value %q", s)
	}
	return Double(f), nil
}

// isAnInt is is_an_int: optional sign, digits only.
func isAnInt(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// Symbols numbers the variables of a set of scripts, so that a client's variables are a slice.
type Symbols struct {
	names []string
	index map[string]int
}

// NewSymbols returns a table holding the automatic variables.
func NewSymbols() *Symbols {
	s := &Symbols{index: map[string]int{}}
	for _, n := range []string{"scale", "client_id", "default_seed", "random_seed"} {
		s.Slot(n)
	}
	return s
}

// Slot returns name's slot, adding it if new.
func (s *Symbols) Slot(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	s.index[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// Lookup returns name's slot, or -1.
func (s *Symbols) Lookup(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// Len is the number of variables.
func (s *Symbols) Len() int { return len(s.names) }

// Name is the variable in slot i.
func (s *Symbols) Name(i int) string { return s.names[i] }

// Var is one client's variable: unset, a value, or text whose value is parsed when an
// expression first uses it (pgbench keeps both forms: Variable.svalue and .value).
type Var struct {
	Set     bool
	HasVal  bool
	Val     Value
	text    string
	hasText bool
}

// SetValue stores a value.
func (v *Var) SetValue(x Value) { *v = Var{Set: true, HasVal: true, Val: x} }

// SetText stores text (from --define or a query's result).
func (v *Var) SetText(s string) { *v = Var{Set: true, text: s, hasText: true} }

// Text is the variable's text, computed once from its value.
func (v *Var) Text() string {
	if !v.hasText {
		v.text, v.hasText = v.Val.Text(), true
	}
	return v.text
}

// AppendText appends the variable's text to b: its text if it was set as text, else its
// value's, written without keeping it (an int's text is cheaper to write than to keep).
func (v *Var) AppendText(b []byte) []byte {
	if v.hasText {
		return append(b, v.text...)
	}
	return v.Val.AppendText(b)
}

// Value is the variable's value, parsed once from its text.
func (v *Var) Value() (Value, error) {
	if !v.HasVal {
		x, err := ParseText(v.text)
		if err != nil {
			return Value{}, err
		}
		v.Val, v.HasVal = x, true
	}
	return v.Val, nil
}

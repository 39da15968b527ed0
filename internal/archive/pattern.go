package archive

import (
	"fmt"
	"strconv"
	"strings"
)

// RandomPattern is the code of inserts that are random with respect to an index.
const RandomPattern = "inf"

// Streams are the insert streams of one index in one step, the Insert Benchmark's code: Asc
// streams insert in ascending key order and Desc in descending order; RHS (0 or 1) says an
// ascending stream inserts at the index's right end, LHS (0 or 1) a descending one at its left
// end. Random replaces all four: inserts are random with respect to the index.
type Streams struct {
	Asc, Desc, RHS, LHS int
	Random              bool
}

// Random is the Streams of random inserts.
var Random = Streams{Random: true}

// Ascending is n ascending streams, one of them at the right end when rhs.
func Ascending(n int, rhs bool) Streams {
	s := Streams{Asc: n}
	if rhs {
		s.RHS = 1
	}
	return s
}

// Validate applies the code's rules: at least one stream, RHS and LHS 0 or 1, RHS 1 only with an
// ascending stream and LHS 1 only with a descending one.
func (s Streams) Validate() error {
	switch {
	case s.Random && s != Random:
		return fmt.Errorf("insert pattern %+v: random inserts have no streams", s)
	case s.Random:
		return nil
	case s.Asc < 0 || s.Desc < 0:
		return fmt.Errorf("insert pattern %+v: stream counts must not be negative", s)
	case s.Asc+s.Desc == 0:
		return fmt.Errorf("insert pattern %+v: at least one stream, or random", s)
	case s.RHS != 0 && s.RHS != 1, s.LHS != 0 && s.LHS != 1:
		return fmt.Errorf("insert pattern %+v: nRHS and nLHS are 0 or 1", s)
	case s.RHS == 1 && s.Asc == 0:
		return fmt.Errorf("insert pattern %+v: nRHS 1 needs an ascending stream", s)
	case s.LHS == 1 && s.Desc == 0:
		return fmt.Errorf("insert pattern %+v: nLHS 1 needs a descending stream", s)
	}
	return nil
}

// Code is the pattern as the reference writes it inside its parentheses, attributes that are 0
// left out: "nAsc:1, nRHS:1", "inf".
func (s Streams) Code() (string, error) {
	if err := s.Validate(); err != nil {
		return "", err
	}
	if s.Random {
		return RandomPattern, nil
	}
	var parts []string
	for _, a := range []struct {
		name string
		n    int
	}{{"nAsc", s.Asc}, {"nDesc", s.Desc}, {"nRHS", s.RHS}, {"nLHS", s.LHS}} {
		if a.n != 0 {
			parts = append(parts, a.name+":"+strconv.Itoa(a.n))
		}
	}
	return strings.Join(parts, ", "), nil
}

// ParseStreams reads a code written by Code (with or without its parentheses).
func ParseStreams(code string) (Streams, error) {
	c := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(code), "("), ")")
	if c == RandomPattern {
		return Random, nil
	}
	var s Streams
	seen := map[string]bool{}
	for _, part := range strings.Split(c, ",") {
		name, num, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || seen[name] {
			return Streams{}, fmt.Errorf("insert pattern %q: write attributes as nAsc:N, nDesc:N, nRHS:N, nLHS:N, or inf", code)
		}
		seen[name] = true
		switch name {
		case "nAsc":
			s.Asc = n
		case "nDesc":
			s.Desc = n
		case "nRHS":
			s.RHS = n
		case "nLHS":
			s.LHS = n
		default:
			return Streams{}, fmt.Errorf("insert pattern %q: unknown attribute %q (nAsc, nDesc, nRHS, nLHS)", code, name)
		}
	}
	return s, s.Validate()
}

// NewInsertPattern is the declaration of how step inserts into table's index. The streams come
// from a workload's validated configuration, so invalid ones are a bug of the workload: it
// panics, and each workload's tests build its declarations.
func NewInsertPattern(step, table, index string, s Streams) InsertPattern {
	code, err := s.Code()
	if err != nil {
		panic(fmt.Sprintf("step %s, %s.%s: %v", step, table, index, err))
	}
	return InsertPattern{Step: step, Table: table, Index: index, Pattern: code}
}

package counters

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// An expression defines a figure from counters (docs/counters.md, "Expressions"):
//
//	rate(db.blks_read) / ops
//	100 * rate(db.blks_hit) / (rate(db.blks_hit) + rate(db.blks_read))
//	delta(bgwriter.checkpoints_* checkpointer.num_timed checkpointer.num_requested)
//
// Functions take one or more counter names or path.Match patterns, separated by spaces, and
// add up every counter they match; a function that matches nothing is undefined, and so is any
// expression using it (it is left out, never shown as 0). A bare name is a built-in variable
// (ops, seconds) or another definition.

// Funcs are the functions an expression may call, over the window it is evaluated on.
var Funcs = map[string]string{
	"rate":  "increase per second of running totals (an interval with a reset adds nothing)",
	"delta": "increase of running totals over the window",
	"value": "mean of a gauge over the window (at each tick, the sum of the names matched)",
	"max":   "largest value of a gauge over the window",
	"min":   "smallest value of a gauge over the window",
}

// Expr is a parsed expression.
type Expr interface {
	eval(e *env) float64
	refs(add func(name string)) // the definitions and variables it names
}

type num float64
type ident string
type call struct {
	fn       string
	patterns []string
}
type unary struct{ x Expr }
type binary struct {
	op   byte
	l, r Expr
}

func (n num) eval(*env) float64       { return float64(n) }
func (n num) refs(func(string))       {}
func (i ident) eval(e *env) float64   { return e.variable(string(i)) }
func (i ident) refs(add func(string)) { add(string(i)) }
func (c call) eval(e *env) float64    { return e.call(c.fn, c.patterns) }
func (c call) refs(func(string))      {}
func (u unary) eval(e *env) float64   { return -u.x.eval(e) }
func (u unary) refs(add func(string)) { u.x.refs(add) }
func (b binary) refs(add func(string)) {
	b.l.refs(add)
	b.r.refs(add)
}

func (b binary) eval(e *env) float64 {
	l, r := b.l.eval(e), b.r.eval(e)
	switch b.op {
	case '+':
		return l + r
	case '-':
		return l - r
	case '*':
		return l * r
	}
	if r == 0 || math.IsNaN(r) {
		return math.NaN() // a ratio over nothing is undefined, not infinite
	}
	return l / r
}

// Patterns are the counter names and patterns an expression's functions read.
func Patterns(x Expr) []string {
	switch x := x.(type) {
	case call:
		return x.patterns
	case unary:
		return Patterns(x.x)
	case binary:
		return append(Patterns(x.l), Patterns(x.r)...)
	}
	return nil
}

// ParseExpr parses one expression.
func ParseExpr(s string) (Expr, error) {
	p := &parser{s: s}
	x, err := p.sum()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %q at column %d", p.s[p.i:], p.i+1)
	}
	return x, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' || p.i < len(p.s) && p.s[p.i] == '\t' {
		p.i++
	}
}

func (p *parser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) sum() (Expr, error) {
	x, err := p.product()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.s[p.i]
		p.i++
		var r Expr
		if r, err = p.product(); err == nil {
			x = binary{op, x, r}
		}
	}
	return x, err
}

func (p *parser) product() (Expr, error) {
	x, err := p.unary()
	for err == nil && (p.peek() == '*' || p.peek() == '/') {
		op := p.s[p.i]
		p.i++
		var r Expr
		if r, err = p.unary(); err == nil {
			x = binary{op, x, r}
		}
	}
	return x, err
}

func (p *parser) unary() (Expr, error) {
	if p.peek() == '-' {
		p.i++
		x, err := p.unary()
		return unary{x}, err
	}
	return p.primary()
}

func (p *parser) primary() (Expr, error) {
	c := p.peek()
	switch {
	case c == 0:
		return nil, fmt.Errorf("an expression ends too early")
	case c == '(':
		p.i++
		x, err := p.sum()
		if err == nil && p.peek() != ')' {
			err = fmt.Errorf("missing ) at column %d", p.i+1)
		}
		p.i++
		return x, err
	case c >= '0' && c <= '9' || c == '.':
		j := p.i
		for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '.' || p.s[j] == 'e' ||
			(p.s[j] == '-' || p.s[j] == '+') && j > p.i && p.s[j-1] == 'e') {
			j++
		}
		v, err := strconv.ParseFloat(p.s[p.i:j], 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", p.s[p.i:j])
		}
		p.i = j
		return num(v), nil
	case unicode.IsLetter(rune(c)) || c == '_':
		j := p.i
		for j < len(p.s) && (isNameByte(p.s[j])) {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		if p.peek() != '(' {
			return ident(name), nil
		}
		if _, ok := Funcs[name]; !ok {
			return nil, fmt.Errorf("unknown function %s (have rate, delta, value, max, min)", name)
		}
		end := strings.IndexByte(p.s[p.i:], ')')
		if end < 0 {
			return nil, fmt.Errorf("%s( without )", name)
		}
		patterns := strings.Fields(p.s[p.i+1 : p.i+end])
		p.i += end + 1
		if len(patterns) == 0 {
			return nil, fmt.Errorf("%s() names no counter", name)
		}
		return call{name, patterns}, nil
	}
	return nil, fmt.Errorf("unexpected %q at column %d", c, p.i+1)
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

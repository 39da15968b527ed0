package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Expr is a node of pgbench's expression language (exprparse.y): a constant, a variable, or a
// function or operator applied to its arguments.
type Expr struct {
	Kind  exprKind
	Val   Value  // exprConst
	Var   int    // exprVar: the variable's slot in Symbols
	Name  string // exprVar: the variable's name, for errors
	Fn    fn     // exprFunc
	Args  []*Expr
	label string // the function's name as written, for errors
}

type exprKind uint8

const (
	exprConst exprKind = iota
	exprVar
	exprFunc
)

// fn names a function or operator; operators are functions as in pgbench (PGBENCH_ADD ...).
type fn uint8

const (
	fnAdd fn = iota
	fnSub
	fnMul
	fnDiv
	fnMod
	fnEq
	fnNe
	fnLe
	fnLt
	fnBitAnd
	fnBitOr
	fnBitXor
	fnLShift
	fnRShift
	fnAnd
	fnOr
	fnNot
	fnIs
	fnCase
	fnAbs
	fnDebug
	fnDouble
	fnInt
	fnGreatest
	fnLeast
	fnPi
	fnPow
	fnSqrt
	fnLn
	fnExp
	fnRandom
	fnRandomExponential
	fnRandomGaussian
	fnRandomZipfian
	fnHashMurmur2
	fnHashFNV1a
	fnPermute
)

// functions are the callable names and their argument counts, min and max (-1: any), from
// exprparse.y's PGBENCH_FUNCTIONS table (exprparse.y:255-384 in 15.18).
var functions = map[string]struct {
	fn       fn
	min, max int
}{
	"abs": {fnAbs, 1, 1}, "debug": {fnDebug, 1, 1}, "double": {fnDouble, 1, 1}, "int": {fnInt, 1, 1},
	"greatest": {fnGreatest, 1, -1}, "least": {fnLeast, 1, -1}, "mod": {fnMod, 2, 2}, "pi": {fnPi, 0, 0},
	"pow": {fnPow, 2, 2}, "power": {fnPow, 2, 2}, "sqrt": {fnSqrt, 1, 1}, "ln": {fnLn, 1, 1}, "exp": {fnExp, 1, 1},
	"random": {fnRandom, 2, 2}, "random_exponential": {fnRandomExponential, 3, 3},
	"random_gaussian": {fnRandomGaussian, 3, 3}, "random_zipfian": {fnRandomZipfian, 3, 3},
	"hash": {fnHashMurmur2, 1, 2}, "hash_murmur2": {fnHashMurmur2, 1, 2}, "hash_fnv1a": {fnHashFNV1a, 1, 2},
	"permute": {fnPermute, 2, 3},
}

// maxFuncArgs is MAX_FARGS (pgbench.c): more arguments are an error.
const maxFuncArgs = 16

type token struct {
	kind string // "int", "double", "var", "ident", "op", "(", ")", ",", "eof"
	text string
	i    int64
	f    float64
	pos  int
}

// lex splits an expression into tokens as exprscan.l does: keywords and function names are
// case-insensitive; there are no string literals.
func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j, isDouble := scanNumber(s, i)
			t := token{pos: i, text: s[i:j]}
			if isDouble {
				f, err := strconv.ParseFloat(t.text, 64)
				if err != nil {
					return nil, fmt.Errorf("invalid numeric constant %q", t.text)
				}
				t.kind, t.f = "double", f
			} else {
				t.kind = "int"
				v, err := strconv.ParseInt(t.text, 10, 64)
				if err != nil && t.text == "9223372036854775808" {
					t.kind = "maxint+1" // only valid after a unary minus (exprscan.l)
				} else if err != nil {
					return nil, fmt.Errorf("bigint constant overflow %q", t.text)
				}
				t.i = v
			}
			toks, i = append(toks, t), j
		case c == ':':
			j := i + 1
			for j < len(s) && isNameChar(s[j], j == i+1) {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("unexpected character ':' at %d", i+1)
			}
			toks, i = append(toks, token{kind: "var", text: s[i+1 : j], pos: i}), j
		case isNameChar(c, true):
			j := i + 1
			for j < len(s) && isNameChar(s[j], false) {
				j++
			}
			toks, i = append(toks, token{kind: "ident", text: strings.ToLower(s[i:j]), pos: i}), j
		case c == '(' || c == ')' || c == ',':
			toks, i = append(toks, token{kind: string(c), text: string(c), pos: i}), i+1
		default:
			op := ""
			for _, o := range []string{"<=", ">=", "<>", "!=", "<<", ">>", "+", "-", "*", "/", "%", "<", ">", "=", "&", "|", "#", "~"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected character %q at %d", c, i+1)
			}
			toks, i = append(toks, token{kind: "op", text: op, pos: i}), i+len(op)
		}
	}
	return append(toks, token{kind: "eof", pos: len(s)}), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isNameChar: letters, underscore and any non-ASCII byte; digits too, except first.
func isNameChar(c byte, first bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80 || !first && isDigit(c)
}

// scanNumber returns the end of the number at s[i:] and whether it is a double: digits with a
// dot or an exponent (exprscan.l: {digit}+, {digit}+\.{digit}*, \.{digit}+, with e[+-]digits).
func scanNumber(s string, i int) (int, bool) {
	j, dbl := i, false
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		dbl = true
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			return k, true
		}
	}
	return j, dbl
}

// exprParser is a precedence-climbing parser with exprparse.y's precedences, lowest first:
// OR; AND; NOT; IS ISNULL NOTNULL; comparisons (non-associative); | # & << >>; + -; * / %;
// unary + - ~.
type exprParser struct {
	toks []token
	p    int
	syms *Symbols
}

// ParseExpr parses one expression; variables are entered into syms.
func ParseExpr(s string, syms *Symbols) (*Expr, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	ps := &exprParser{toks: toks, syms: syms}
	e, err := ps.or()
	if err != nil {
		return nil, err
	}
	if t := ps.peek(); t.kind != "eof" {
		return nil, fmt.Errorf("syntax error at %q (column %d)", t.text, t.pos+1)
	}
	return e, nil
}

func (ps *exprParser) peek() token { return ps.toks[ps.p] }
func (ps *exprParser) next() token { t := ps.toks[ps.p]; ps.p++; return t }

func (ps *exprParser) isWord(w string) bool {
	t := ps.peek()
	return t.kind == "ident" && t.text == w
}

func call(f fn, label string, args ...*Expr) *Expr {
	return &Expr{Kind: exprFunc, Fn: f, Args: args, label: label}
}

func (ps *exprParser) or() (*Expr, error) {
	return ps.leftAssoc(ps.and, map[string]fn{"or": fnOr})
}

func (ps *exprParser) and() (*Expr, error) {
	return ps.leftAssoc(ps.not, map[string]fn{"and": fnAnd})
}

// leftAssoc parses operand (op operand)* for the word operators of one level.
func (ps *exprParser) leftAssoc(operand func() (*Expr, error), ops map[string]fn) (*Expr, error) {
	l, err := operand()
	for err == nil {
		t := ps.peek()
		f, ok := ops[t.text]
		if !ok || (t.kind != "ident" && t.kind != "op") {
			return l, nil
		}
		ps.next()
		var r *Expr
		if r, err = operand(); err == nil {
			l = call(f, t.text, l, r)
		}
	}
	return nil, err
}

func (ps *exprParser) not() (*Expr, error) {
	if ps.isWord("not") {
		ps.next()
		e, err := ps.not()
		if err != nil {
			return nil, err
		}
		return call(fnNot, "not", e), nil
	}
	return ps.is()
}

// is parses IS [NOT] NULL|TRUE|FALSE, ISNULL and NOTNULL (exprparse.y:127-153).
func (ps *exprParser) is() (*Expr, error) {
	e, err := ps.cmp()
	if err != nil {
		return nil, err
	}
	switch {
	case ps.isWord("isnull"):
		ps.next()
		return call(fnIs, "is", e, &Expr{Val: Null()}), nil
	case ps.isWord("notnull"):
		ps.next()
		return call(fnNot, "not", call(fnIs, "is", e, &Expr{Val: Null()})), nil
	case ps.isWord("is"):
		ps.next()
		neg := ps.isWord("not")
		if neg {
			ps.next()
		}
		var v Value
		switch t := ps.next(); {
		case t.kind == "ident" && t.text == "null":
			v = Null()
		case t.kind == "ident" && t.text == "true":
			v = Bool(true)
		case t.kind == "ident" && t.text == "false":
			v = Bool(false)
		default:
			return nil, fmt.Errorf("syntax error at %q (column %d): IS takes NULL, TRUE or FALSE", t.text, t.pos+1)
		}
		r := call(fnIs, "is", e, &Expr{Val: v})
		if neg {
			r = call(fnNot, "not", r)
		}
		return r, nil
	}
	return e, nil
}

// cmp parses one comparison: they are non-associative; a > b is b < a (exprparse.y:104-115).
func (ps *exprParser) cmp() (*Expr, error) {
	l, err := ps.bits()
	if err != nil {
		return nil, err
	}
	t := ps.peek()
	if t.kind != "op" {
		return l, nil
	}
	mk := map[string]func(a, b *Expr) *Expr{
		"=":  func(a, b *Expr) *Expr { return call(fnEq, "=", a, b) },
		"<>": func(a, b *Expr) *Expr { return call(fnNe, "<>", a, b) },
		"!=": func(a, b *Expr) *Expr { return call(fnNe, "!=", a, b) },
		"<":  func(a, b *Expr) *Expr { return call(fnLt, "<", a, b) },
		"<=": func(a, b *Expr) *Expr { return call(fnLe, "<=", a, b) },
		">":  func(a, b *Expr) *Expr { return call(fnLt, "<", b, a) },
		">=": func(a, b *Expr) *Expr { return call(fnLe, "<=", b, a) },
	}[t.text]
	if mk == nil {
		return l, nil
	}
	ps.next()
	r, err := ps.bits()
	if err != nil {
		return nil, err
	}
	if n := ps.peek(); n.kind == "op" && strings.ContainsAny(n.text[:1], "=<>!") {
		return nil, fmt.Errorf("syntax error at %q (column %d): comparisons do not chain", n.text, n.pos+1)
	}
	return mk(l, r), nil
}

func (ps *exprParser) bits() (*Expr, error) {
	return ps.leftAssoc(ps.additive, map[string]fn{"|": fnBitOr, "#": fnBitXor, "&": fnBitAnd, "<<": fnLShift, ">>": fnRShift})
}

func (ps *exprParser) additive() (*Expr, error) {
	return ps.leftAssoc(ps.multiplicative, map[string]fn{"+": fnAdd, "-": fnSub})
}

func (ps *exprParser) multiplicative() (*Expr, error) {
	return ps.leftAssoc(ps.unary, map[string]fn{"*": fnMul, "/": fnDiv, "%": fnMod})
}

// unary: +e is e, -e is 0 - e, ~e is e # -1 (exprparse.y:116-119).
func (ps *exprParser) unary() (*Expr, error) {
	t := ps.peek()
	if t.kind == "op" && (t.text == "+" || t.text == "-" || t.text == "~") {
		ps.next()
		if t.text == "-" && ps.peek().kind == "maxint+1" {
			ps.next()
			return &Expr{Val: Int(math.MinInt64)}, nil
		}
		e, err := ps.unary()
		if err != nil {
			return nil, err
		}
		switch t.text {
		case "-":
			return call(fnSub, "-", &Expr{Val: Int(0)}, e), nil
		case "~":
			return call(fnBitXor, "#", e, &Expr{Val: Int(-1)}), nil
		}
		return e, nil
	}
	return ps.primary()
}

func (ps *exprParser) primary() (*Expr, error) {
	t := ps.next()
	switch t.kind {
	case "int":
		return &Expr{Val: Int(t.i)}, nil
	case "maxint+1":
		return nil, fmt.Errorf("bigint constant overflow %q", t.text)
	case "double":
		return &Expr{Val: Double(t.f)}, nil
	case "var":
		return &Expr{Kind: exprVar, Var: ps.syms.Slot(t.text), Name: t.text}, nil
	case "(":
		e, err := ps.or()
		if err != nil {
			return nil, err
		}
		if c := ps.next(); c.kind != ")" {
			return nil, fmt.Errorf("syntax error at %q (column %d): expected )", c.text, c.pos+1)
		}
		return e, nil
	case "ident":
		switch t.text {
		case "true", "false":
			return &Expr{Val: Bool(t.text == "true")}, nil
		case "null":
			return &Expr{Val: Null()}, nil
		case "case":
			return ps.caseExpr()
		}
		return ps.function(t)
	}
	if t.kind == "eof" {
		return nil, fmt.Errorf("syntax error: unexpected end of expression")
	}
	return nil, fmt.Errorf("syntax error at %q (column %d)", t.text, t.pos+1)
}

// caseExpr parses CASE WHEN c THEN v ... [ELSE v] END; without ELSE the result is NULL.
func (ps *exprParser) caseExpr() (*Expr, error) {
	var args []*Expr
	for ps.isWord("when") {
		ps.next()
		c, err := ps.or()
		if err != nil {
			return nil, err
		}
		if !ps.isWord("then") {
			return nil, fmt.Errorf("syntax error at %q: expected THEN", ps.peek().text)
		}
		ps.next()
		v, err := ps.or()
		if err != nil {
			return nil, err
		}
		args = append(args, c, v)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("syntax error at %q: CASE needs WHEN", ps.peek().text)
	}
	elseExpr := &Expr{Val: Null()}
	if ps.isWord("else") {
		ps.next()
		var err error
		if elseExpr, err = ps.or(); err != nil {
			return nil, err
		}
	}
	if !ps.isWord("end") {
		return nil, fmt.Errorf("syntax error at %q: expected END", ps.peek().text)
	}
	ps.next()
	return call(fnCase, "case", append(args, elseExpr)...), nil
}

// function parses name(args): an unknown name or a wrong number of arguments is an error at
// parse time; hash and permute without a seed take :default_seed (exprparse.y:479-490).
func (ps *exprParser) function(name token) (*Expr, error) {
	f, ok := functions[name.text]
	if !ok {
		return nil, fmt.Errorf("unexpected function name %q", name.text)
	}
	if o := ps.next(); o.kind != "(" {
		return nil, fmt.Errorf("syntax error at %q (column %d): expected ( after %s", o.text, o.pos+1, name.text)
	}
	var args []*Expr
	if ps.peek().kind == ")" {
		ps.next()
	} else {
		for {
			a, err := ps.or()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if c := ps.next(); c.kind == ")" {
				break
			} else if c.kind != "," {
				return nil, fmt.Errorf("syntax error at %q (column %d) in the arguments of %s", c.text, c.pos+1, name.text)
			}
		}
	}
	if len(args) > maxFuncArgs || len(args) < f.min || f.max >= 0 && len(args) > f.max {
		return nil, fmt.Errorf("unexpected number of arguments (%s)", name.text)
	}
	if (f.fn == fnHashMurmur2 || f.fn == fnHashFNV1a) && len(args) == 1 || f.fn == fnPermute && len(args) == 2 {
		args = append(args, &Expr{Kind: exprVar, Var: ps.syms.Slot("default_seed"), Name: "default_seed"})
	}
	return call(f.fn, name.text, args...), nil
}

package script

import (
	"fmt"
	"math"
)

// The random functions' parameter limits (pgbench.c:181-184).
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

// Env is what an expression reads: a client's variables and its random generator.
type Env struct {
	Vars  []Var
	Syms  *Symbols
	RNG   *PRNG
	Debug func(v Value) // debug()'s output; nil prints nothing
}

// Eval evaluates e (evaluateExpr, pgbench.c:2505-2822 in 15.18). An error aborts the client in
// pgbench; here it fails the step.
func (env *Env) Eval(e *Expr) (Value, error) {
	switch e.Kind {
	case exprConst:
		return e.Val, nil
	case exprVar:
		v := &env.Vars[e.Var]
		if !v.Set {
			return Value{}, fmt.Errorf("undefined variable %q", e.Name)
		}
		x, err := v.Value()
		if err != nil {
			return Value{}, fmt.Errorf("malformed variable %q value: %v", e.Name, err)
		}
		return x, nil
	}
	switch e.Fn {
	case fnAnd, fnOr:
		return env.andOr(e)
	case fnCase:
		for i := 0; i+1 < len(e.Args); i += 2 {
			c, err := env.Eval(e.Args[i])
			if err != nil {
				return Value{}, err
			}
			if c.truth() {
				return env.Eval(e.Args[i+1])
			}
		}
		return env.Eval(e.Args[len(e.Args)-1])
	}
	var buf [maxFuncArgs]Value
	args := buf[:len(e.Args)]
	hasNull := false
	for i, a := range e.Args {
		v, err := env.Eval(a)
		if err != nil {
			return Value{}, err
		}
		args[i], hasNull = v, hasNull || v.Kind == KindNull
	}
	if hasNull && e.Fn != fnIs && e.Fn != fnDebug {
		return Null(), nil
	}
	return env.apply(e, args)
}

// andOr is evalLazyFunc's AND and OR: short-circuit, NULL if either side is NULL, only booleans.
func (env *Env) andOr(e *Expr) (Value, error) {
	for i, a := range e.Args {
		v, err := env.Eval(a)
		if err != nil || v.Kind == KindNull {
			return Null(), err
		}
		b, err := v.toBool()
		if err != nil {
			return Value{}, err
		}
		if i == 1 || b == (e.Fn == fnOr) {
			return Bool(b), nil
		}
	}
	return Null(), nil
}

func (env *Env) apply(e *Expr, a []Value) (Value, error) {
	switch e.Fn {
	case fnAdd, fnSub, fnMul, fnDiv, fnEq, fnNe, fnLe, fnLt:
		if a[0].Kind == KindDouble || a[1].Kind == KindDouble {
			return doubleOp(e.Fn, a[0], a[1])
		}
		return intOp(e.Fn, a[0], a[1])
	case fnMod:
		return intOp(fnMod, a[0], a[1])
	case fnBitAnd, fnBitOr, fnBitXor, fnLShift, fnRShift:
		return bitOp(e.Fn, a[0], a[1])
	case fnNot:
		b, err := a[0].toBool()
		return Bool(!b), err
	case fnIs: // pgbench compares the type and the boolean's bits, as here
		return Bool(a[0].Kind == a[1].Kind && (a[0].Kind == KindNull || a[0].I == a[1].I)), nil
	case fnPi:
		return Double(math.Pi), nil
	case fnAbs:
		if a[0].Kind == KindInt {
			return Int(max(a[0].I, -a[0].I)), nil
		}
		return Double(math.Abs(a[0].F)), nil
	case fnDebug:
		if env.Debug != nil {
			env.Debug(a[0])
		}
		return a[0], nil
	case fnDouble, fnSqrt, fnLn, fnExp:
		d, err := a[0].toDouble()
		return Double(map[fn]func(float64) float64{fnDouble: func(x float64) float64 { return x },
			fnSqrt: math.Sqrt, fnLn: math.Log, fnExp: math.Exp}[e.Fn](d)), err
	case fnInt:
		i, err := a[0].toInt()
		return Int(i), err
	case fnGreatest, fnLeast:
		return extremum(e.Fn == fnLeast, a)
	case fnPow:
		x, err1 := a[0].toDouble()
		y, err2 := a[1].toDouble()
		return Double(math.Pow(x, y)), firstErr(err1, err2)
	case fnRandom, fnRandomExponential, fnRandomGaussian, fnRandomZipfian:
		return env.random(e.Fn, a)
	case fnHashMurmur2, fnHashFNV1a:
		v, err1 := a[0].toInt()
		seed, err2 := a[1].toInt()
		if e.Fn == fnHashFNV1a {
			return Int(HashFNV1a(v, uint64(seed))), firstErr(err1, err2)
		}
		return Int(HashMurmur2(v, uint64(seed))), firstErr(err1, err2)
	case fnPermute:
		v, err1 := a[0].toInt()
		size, err2 := a[1].toInt()
		seed, err3 := a[2].toInt()
		if err := firstErr(err1, err2, err3); err != nil {
			return Value{}, err
		}
		if size <= 0 {
			return Value{}, fmt.Errorf("permute size parameter must be greater than zero")
		}
		return Int(Permute(v, size, seed)), nil
	}
	return Value{}, fmt.Errorf("unknown function %s", e.label)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func doubleOp(f fn, l, r Value) (Value, error) {
	a, err1 := l.toDouble()
	b, err2 := r.toDouble()
	if err := firstErr(err1, err2); err != nil {
		return Value{}, err
	}
	switch f {
	case fnAdd:
		return Double(a + b), nil
	case fnSub:
		return Double(a - b), nil
	case fnMul:
		return Double(a * b), nil
	case fnDiv:
		return Double(a / b), nil
	case fnEq:
		return Bool(a == b), nil
	case fnNe:
		return Bool(a != b), nil
	case fnLe:
		return Bool(a <= b), nil
	}
	return Bool(a < b), nil
}

// intOp is the integer arithmetic with pgbench's overflow checks; / truncates toward zero and
// % takes the dividend's sign, with x / -1 and x % -1 special-cased (pgbench.c:2378-2452).
func intOp(f fn, l, r Value) (Value, error) {
	a, err1 := l.toInt()
	b, err2 := r.toInt()
	if err := firstErr(err1, err2); err != nil {
		return Value{}, err
	}
	switch f {
	case fnAdd:
		s := a + b
		if (s > a) != (b > 0) {
			return Value{}, fmt.Errorf("bigint add out of range")
		}
		return Int(s), nil
	case fnSub:
		s := a - b
		if (s < a) != (b > 0) {
			return Value{}, fmt.Errorf("bigint sub out of range")
		}
		return Int(s), nil
	case fnMul:
		p := a * b
		if a != 0 && (p/a != b || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64) {
			return Value{}, fmt.Errorf("bigint mul out of range")
		}
		return Int(p), nil
	case fnEq:
		return Bool(a == b), nil
	case fnNe:
		return Bool(a != b), nil
	case fnLe:
		return Bool(a <= b), nil
	case fnLt:
		return Bool(a < b), nil
	}
	if b == 0 {
		return Value{}, fmt.Errorf("division by zero")
	}
	if b == -1 {
		if f == fnMod {
			return Int(0), nil
		}
		if a == math.MinInt64 {
			return Value{}, fmt.Errorf("bigint div out of range")
		}
		return Int(-a), nil
	}
	if f == fnDiv {
		return Int(a / b), nil
	}
	return Int(a % b), nil
}

func bitOp(f fn, l, r Value) (Value, error) {
	a, err1 := l.toInt()
	b, err2 := r.toInt()
	if err := firstErr(err1, err2); err != nil {
		return Value{}, err
	}
	switch f {
	case fnBitAnd:
		return Int(a & b), nil
	case fnBitOr:
		return Int(a | b), nil
	case fnBitXor:
		return Int(a ^ b), nil
	case fnLShift: // C's shift by a count outside 0..63 is undefined; x86 masks it
		return Int(a << (uint64(b) & 63)), nil
	}
	return Int(a >> (uint64(b) & 63)), nil
}

// extremum is greatest and least: double if any argument is.
func extremum(least bool, a []Value) (Value, error) {
	dbl := false
	for _, v := range a {
		dbl = dbl || v.Kind == KindDouble
	}
	if dbl {
		m, err := a[0].toDouble()
		for _, v := range a[1:] {
			d, err2 := v.toDouble()
			if err = firstErr(err, err2); err == nil && (least && d < m || !least && d > m) {
				m = d
			}
		}
		return Double(m), err
	}
	m, err := a[0].toInt()
	for _, v := range a[1:] {
		i, err2 := v.toInt()
		if err = firstErr(err, err2); err == nil && (least && i < m || !least && i > m) {
			m = i
		}
	}
	return Int(m), err
}

// random is the random functions' checks (pgbench.c:2674-2739) and draws.
func (env *Env) random(f fn, a []Value) (Value, error) {
	lo, err1 := a[0].toInt()
	hi, err2 := a[1].toInt()
	if err := firstErr(err1, err2); err != nil {
		return Value{}, err
	}
	if lo > hi {
		return Value{}, fmt.Errorf("empty range given to random")
	}
	if d := hi - lo; d < 0 || d+1 < 0 {
		return Value{}, fmt.Errorf("random range is too large")
	}
	if f == fnRandom {
		return Int(env.RNG.Random(lo, hi)), nil
	}
	p, err := a[2].toDouble()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fnRandomGaussian:
		if p < minGaussianParam {
			return Value{}, fmt.Errorf("gaussian parameter must be at least %f (not %f)", minGaussianParam, p)
		}
		return Int(env.RNG.Gaussian(lo, hi, p)), nil
	case fnRandomZipfian:
		if p < minZipfianParam || p > maxZipfianParam {
			return Value{}, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfianParam, maxZipfianParam, p)
		}
		return Int(env.RNG.Zipfian(lo, hi, p)), nil
	}
	if p <= 0 {
		return Value{}, fmt.Errorf("exponential parameter must be greater than zero (not %f)", p)
	}
	return Int(env.RNG.Exponential(lo, hi, p)), nil
}

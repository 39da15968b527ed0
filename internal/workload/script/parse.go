package script

import (
	"fmt"
	"strconv"
	"strings"
)

// CmdKind is a script command's kind.
type CmdKind uint8

// The commands dbperf runs: SQL and the meta-commands \set, \sleep, \if, \elif, \else, \endif.
const (
	CmdSQL CmdKind = iota
	CmdSet
	CmdSleep
	CmdIf
	CmdElif
	CmdElse
	CmdEndif
)

// ResultVars says what an SQL command stores of its results: nothing, \gset's (exactly one
// row of the last result) or \aset's (the last row of every result).
type ResultVars uint8

// The result modes.
const (
	StoreNone ResultVars = iota
	StoreGset
	StoreAset
)

// Command is one command of a script.
type Command struct {
	Line int // the line it starts on, from 1
	Kind CmdKind
	// SQL: the text and its parts (literal text and :variables); what it stores of its results.
	SQL    string
	Parts  []Part
	Store  ResultVars
	Prefix string
	N      int // SQL: its number among the script's SQL commands, from 0
	// Compound: SQL commands joined by \; into one statement (PostgreSQL only: checkCompound).
	Compound bool
	// \set: the variable's slot and the expression; \if and \elif: the condition.
	Var  int
	Expr *Expr
	// \sleep: a constant or a variable's slot (SleepVar >= 0), times SleepUnit microseconds.
	Sleep     int64
	SleepVar  int
	SleepName string
	SleepUnit int64
	// \if, \elif, \else: the index of the chain's next branch (\elif, \else or \endif);
	// \if, \elif, \else: End is the chain's \endif.
	Next, End int
}

// Part is a piece of an SQL command: literal text, or a variable (Slot >= 0) written as Name.
type Part struct {
	Text string
	Slot int
	Name string
}

// Script is one parsed script: one execution of all of it is a transaction.
type Script struct {
	Name   string
	Weight int
	Cmds   []*Command
	NSQL   int
}

// ParseError is a script error with its line, as pgbench reports one when it loads a script.
type ParseError struct {
	Script string
	Line   int
	Msg    string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Script, e.Line, e.Msg) }

// unsupported are pgbench's meta-commands that dbperf refuses, with why.
var unsupported = map[string]string{
	"setshell":      "runs a shell command per transaction",
	"shell":         "runs a shell command per transaction",
	"startpipeline": "pipelines are not implemented",
	"syncpipeline":  "pipelines are not implemented",
	"endpipeline":   "pipelines are not implemented",
}

// Parse reads a script in pgbench's language (pgbench.c ParseScript, 5958-6063 in 15.18):
// SQL commands end with ; (\; joins several into one), meta-commands with their line (a
// backslash before the newline continues it), -- starts a comment. Variables enter syms.
func Parse(name, text string, syms *Symbols) (*Script, error) {
	p := &scriptParser{s: &Script{Name: name, Weight: 1}, src: text, line: 1, syms: syms}
	if err := p.run(); err != nil {
		return nil, err
	}
	if err := p.s.link(); err != nil {
		return nil, err
	}
	if p.s.NSQL == 0 && len(p.s.Cmds) == 0 {
		return nil, &ParseError{name, p.line, "the script has no commands"}
	}
	return p.s, nil
}

type scriptParser struct {
	s    *Script
	src  string
	pos  int
	line int
	syms *Symbols
}

func (p *scriptParser) fail(line int, format string, args ...any) error {
	return &ParseError{p.s.Name, line, fmt.Sprintf(format, args...)}
}

func (p *scriptParser) run() error {
	for {
		p.skipSpaceAndComments()
		if p.pos >= len(p.src) {
			return nil
		}
		if p.src[p.pos] == '\\' {
			if err := p.meta(); err != nil {
				return err
			}
			continue
		}
		if err := p.sql(); err != nil {
			return err
		}
	}
}

func (p *scriptParser) skipSpaceAndComments() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "--"):
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// sql reads one SQL command up to its ; (outside quotes and comments) or a backslash that
// starts a meta-command (\gset, \aset end the command they follow).
func (p *scriptParser) sql() error {
	start, compound := p.line, false
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ';':
			p.pos++
			return p.addSQL(start, b.String(), compound)
		case c == '\\' && strings.HasPrefix(p.src[p.pos:], `\;`):
			b.WriteByte(';')
			p.pos += 2
			compound = true
		case c == '\\':
			return p.addSQL(start, b.String(), compound)
		case c == '\'' || c == '"':
			p.quoted(&b, c)
		case c == '$' && p.dollarTag() != "":
			p.dollarQuoted(&b, p.dollarTag())
		case strings.HasPrefix(p.src[p.pos:], "--"):
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case strings.HasPrefix(p.src[p.pos:], "/*"):
			end := strings.Index(p.src[p.pos+2:], "*/")
			if end < 0 {
				return p.fail(p.line, "unterminated /* comment")
			}
			text := p.src[p.pos : p.pos+end+4]
			p.line += strings.Count(text, "\n")
			b.WriteString(text)
			p.pos += len(text)
		default:
			if c == '\n' {
				p.line++
			}
			b.WriteByte(c)
			p.pos++
		}
	}
	return p.addSQL(start, b.String(), compound)
}

// quoted copies a '...' or "..." literal (” and "" are the quote itself).
func (p *scriptParser) quoted(b *strings.Builder, q byte) {
	b.WriteByte(q)
	p.pos++
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		b.WriteByte(c)
		p.pos++
		if c == '\n' {
			p.line++
		}
		if c == q {
			if p.pos < len(p.src) && p.src[p.pos] == q {
				b.WriteByte(q)
				p.pos++
				continue
			}
			return
		}
	}
}

// dollarTag is the $tag$ starting at pos, or "".
func (p *scriptParser) dollarTag() string {
	rest := p.src[p.pos+1:]
	for i := 0; i < len(rest); i++ {
		if rest[i] == '$' {
			return "$" + rest[:i+1]
		}
		if !isNameChar(rest[i], i == 0) {
			return ""
		}
	}
	return ""
}

func (p *scriptParser) dollarQuoted(b *strings.Builder, tag string) {
	end := strings.Index(p.src[p.pos+len(tag):], tag)
	n := len(p.src) - p.pos
	if end >= 0 {
		n = end + 2*len(tag)
	}
	text := p.src[p.pos : p.pos+n]
	p.line += strings.Count(text, "\n")
	b.WriteString(text)
	p.pos += n
}

func (p *scriptParser) addSQL(line int, text string, compound bool) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	c := &Command{Line: line, Kind: CmdSQL, SQL: text, N: p.s.NSQL, Compound: compound}
	c.Parts = splitVars(text, p.syms)
	p.s.NSQL++
	p.s.Cmds = append(p.s.Cmds, c)
	return nil
}

// splitVars cuts SQL at its :variables as pgbench's assignVariables and parseQuery do: every
// colon followed by a name, quotes or not; a run of colons (a :: cast) is left alone.
func splitVars(sql string, syms *Symbols) []Part {
	var parts []Part
	lit := 0
	for i := 0; i < len(sql); {
		if sql[i] != ':' {
			i++
			continue
		}
		j := i + 1
		for j < len(sql) && isNameChar(sql[j], j == i+1) {
			j++
		}
		if j == i+1 {
			for i < len(sql) && sql[i] == ':' {
				i++
			}
			continue
		}
		if i > lit {
			parts = append(parts, Part{Text: sql[lit:i], Slot: -1})
		}
		parts = append(parts, Part{Slot: syms.Slot(sql[i+1 : j]), Name: sql[i+1 : j], Text: sql[i:j]})
		i, lit = j, j
	}
	if lit < len(sql) {
		parts = append(parts, Part{Text: sql[lit:], Slot: -1})
	}
	return parts
}

// metaLine reads the rest of a meta-command's line; a backslash before a newline continues it.
func (p *scriptParser) metaLine() string {
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '\\' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n' {
			b.WriteByte(' ')
			p.pos += 2
			p.line++
			continue
		}
		if c == '\n' {
			break
		}
		b.WriteByte(c)
		p.pos++
	}
	return b.String()
}

func (p *scriptParser) meta() error {
	line := p.line
	text := p.metaLine()
	name, rest, _ := strings.Cut(strings.TrimSpace(text[1:]), " ")
	if i := strings.IndexAny(name, "\t"); i >= 0 {
		name, rest = name[:i], name[i+1:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	args := strings.Fields(rest)
	lname := strings.ToLower(name)
	if why, ok := unsupported[lname]; ok {
		return p.fail(line, "unsupported meta-command \\%s: %s", name, why)
	}
	c := &Command{Line: line, SleepVar: -1}
	switch lname {
	case "set":
		return p.set(c, args, rest)
	case "sleep":
		return p.sleep(c, args)
	case "if", "elif":
		c.Kind = map[string]CmdKind{"if": CmdIf, "elif": CmdElif}[lname]
		if rest == "" {
			return p.fail(line, "\\%s: missing expression", name)
		}
		e, err := ParseExpr(rest, p.syms)
		if err != nil {
			return p.fail(line, "\\%s: %v", name, err)
		}
		c.Expr = e
	case "else", "endif":
		c.Kind = map[string]CmdKind{"else": CmdElse, "endif": CmdEndif}[lname]
		if len(args) > 0 {
			return p.fail(line, "\\%s: unexpected argument %q", name, args[0])
		}
	case "gset", "aset":
		return p.store(line, lname, args)
	default:
		return p.fail(line, "invalid command \\%s", name)
	}
	p.s.Cmds = append(p.s.Cmds, c)
	return nil
}

func (p *scriptParser) set(c *Command, args []string, rest string) error {
	if len(args) < 2 {
		return p.fail(c.Line, "\\set: missing argument")
	}
	if !validName(args[0]) {
		return p.fail(c.Line, "\\set: invalid variable name %q", args[0])
	}
	e, err := ParseExpr(strings.TrimSpace(rest[len(args[0]):]), p.syms)
	if err != nil {
		return p.fail(c.Line, "\\set: %v", err)
	}
	c.Kind, c.Var, c.Expr = CmdSet, p.syms.Slot(args[0]), e
	p.s.Cmds = append(p.s.Cmds, c)
	return nil
}

// sleep reads \sleep N [us|ms|s] or \sleep :var [unit]; "10ms" is split as pgbench does.
func (p *scriptParser) sleep(c *Command, args []string) error {
	switch {
	case len(args) < 1:
		return p.fail(c.Line, "\\sleep: missing argument")
	case len(args) > 2:
		return p.fail(c.Line, "\\sleep: too many arguments")
	}
	arg, unit := args[0], "s"
	if len(args) == 2 {
		unit = args[1]
	} else if arg[0] != ':' {
		i := 0
		if arg[0] == '+' || arg[0] == '-' {
			i++
		}
		if i == len(arg) || !isDigit(arg[i]) {
			return p.fail(c.Line, "\\sleep: invalid sleep time %q, must be an integer", arg)
		}
		for i < len(arg) && isDigit(arg[i]) {
			i++
		}
		if i < len(arg) {
			arg, unit = arg[:i], arg[i:]
		}
	}
	switch strings.ToLower(unit) {
	case "us":
		c.SleepUnit = 1
	case "ms":
		c.SleepUnit = 1000
	case "s":
		c.SleepUnit = 1000000
	default:
		return p.fail(c.Line, "\\sleep: unrecognized time unit %q, must be us, ms or s", unit)
	}
	if arg[0] == ':' {
		c.SleepVar, c.SleepName = p.syms.Slot(arg[1:]), arg[1:]
	} else {
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return p.fail(c.Line, "\\sleep: invalid sleep time %q, must be an integer", arg)
		}
		c.Sleep = n
	}
	c.Kind = CmdSleep
	p.s.Cmds = append(p.s.Cmds, c)
	return nil
}

// store attaches \gset or \aset to the SQL command before it (pgbench.c:5994-6024).
func (p *scriptParser) store(line int, name string, args []string) error {
	if len(args) > 1 {
		return p.fail(line, "\\%s: too many arguments", name)
	}
	n := len(p.s.Cmds)
	if n == 0 || p.s.Cmds[n-1].Kind != CmdSQL || p.s.Cmds[n-1].Store != StoreNone {
		return p.fail(line, "\\%s must follow an SQL command", name)
	}
	c := p.s.Cmds[n-1]
	c.Store = StoreGset
	if name == "aset" {
		c.Store = StoreAset
	}
	if len(args) == 1 {
		c.Prefix = args[0]
	}
	return nil
}

// validName is valid_variable_name: a letter, _ or non-ASCII byte, then digits too.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i], i == 0) {
			return false
		}
	}
	return true
}

// link checks the \if nesting and sets each branch's jumps (pgbench.c:5877-5920).
func (s *Script) link() error {
	type open struct{ branches []int }
	var stack []open
	for i, c := range s.Cmds {
		switch c.Kind {
		case CmdIf:
			stack = append(stack, open{branches: []int{i}})
		case CmdElif, CmdElse:
			if len(stack) == 0 {
				return &ParseError{s.Name, c.Line, fmt.Sprintf("\\%s without matching \\if", kindName(c.Kind))}
			}
			top := &stack[len(stack)-1]
			if s.Cmds[top.branches[len(top.branches)-1]].Kind == CmdElse {
				return &ParseError{s.Name, c.Line, fmt.Sprintf("\\%s after \\else", kindName(c.Kind))}
			}
			s.Cmds[top.branches[len(top.branches)-1]].Next = i
			top.branches = append(top.branches, i)
		case CmdEndif:
			if len(stack) == 0 {
				return &ParseError{s.Name, c.Line, "\\endif without matching \\if"}
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.Cmds[top.branches[len(top.branches)-1]].Next = i
			for _, b := range top.branches {
				s.Cmds[b].End = i
			}
		}
	}
	if len(stack) > 0 {
		return &ParseError{s.Name, s.Cmds[stack[len(stack)-1].branches[0]].Line, "\\if without matching \\endif"}
	}
	return nil
}

func kindName(k CmdKind) string {
	return [...]string{"sql", "set", "sleep", "if", "elif", "else", "endif"}[k]
}

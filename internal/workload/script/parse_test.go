package script

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestParse parses every construct of pgbench's script language and checks what it became.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // the commands, one per line: kind line detail
	}{
		{"sql", "SELECT 1;", "sql 1 SELECT 1"},
		{"multi-line sql", "SELECT\n  1\n  + 2;", "sql 1 SELECT\n  1\n  + 2"},
		{"sql without semicolon at end", "SELECT 1", "sql 1 SELECT 1"},
		{"comments", "-- a comment\nSELECT 1; -- after\n-- last", "sql 2 SELECT 1"},
		{"semicolon in quotes", "SELECT ';', \"a;b\", $$x;y$$, $t$;$t$;", "sql 1 SELECT ';', \"a;b\", $$x;y$$, $t$;$t$"},
		{"compound", `SELECT 1 \; SELECT 2;`, "sql 1 SELECT 1 ; SELECT 2"},
		{"variables", "SELECT :a, :b_2, :a::int, ':c';", "sql 1 SELECT [a], [b_2], [a]::int, '[c]'"},
		{"cast is not a variable", "SELECT 1::text;", "sql 1 SELECT 1::text"},
		{"set", `\set x 1 + 2 * 3`, "set 1 x"},
		{"set continued", "\\set x 1 + \\\n 2\nSELECT :x;", "set 1 x\nsql 3 SELECT [x]"},
		{"sleep", `\sleep 10 ms`, "sleep 1 10x1000"},
		{"sleep glued unit", `\sleep 10ms`, "sleep 1 10x1000"},
		{"sleep seconds", `\sleep 2`, "sleep 1 2x1000000"},
		{"sleep us var", `\sleep :d us`, "sleep 1 :dx1"},
		{"if chain", "\\if :a = 1\nSELECT 1;\n\\elif :a = 2\nSELECT 2;\n\\else\nSELECT 3;\n\\endif",
			"if 1 next=2 end=6\nsql 2 SELECT 1\nelif 3 next=4 end=6\nsql 4 SELECT 2\nelse 5 next=6 end=6\nsql 6 SELECT 3\nendif 7"},
		{"gset", "SELECT 1 AS one \\gset", "sql 1 SELECT 1 AS one gset"},
		{"gset prefix after semicolon", "SELECT 1 AS one;\n\\gset p_", "sql 1 SELECT 1 AS one gset p_"},
		{"aset", `SELECT 1 AS a \; SELECT 2 AS b \aset`, "sql 1 SELECT 1 AS a ; SELECT 2 AS b aset"},
		{"case-insensitive", `\SET x 1`, "set 1 x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			syms := NewSymbols()
			s, err := Parse("t", tc.text, syms)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(s, syms); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func describe(s *Script, syms *Symbols) string {
	itoa := strconv.Itoa
	var lines []string
	for _, c := range s.Cmds {
		d := kindName(c.Kind) + " " + itoa(c.Line)
		switch c.Kind {
		case CmdSQL:
			var b strings.Builder
			for _, p := range c.Parts {
				if p.Slot >= 0 {
					b.WriteString("[" + p.Name + "]")
				} else {
					b.WriteString(p.Text)
				}
			}
			d += " " + b.String()
			if c.Store != StoreNone {
				d += " " + map[ResultVars]string{StoreGset: "gset", StoreAset: "aset"}[c.Store]
				if c.Prefix != "" {
					d += " " + c.Prefix
				}
			}
		case CmdSet:
			d += " " + syms.Name(c.Var)
		case CmdSleep:
			if c.SleepVar >= 0 {
				d += " :" + c.SleepName + "x" + itoa(int(c.SleepUnit))
			} else {
				d += " " + itoa(int(c.Sleep)) + "x" + itoa(int(c.SleepUnit))
			}
		case CmdIf, CmdElif, CmdElse:
			d += " next=" + itoa(c.Next) + " end=" + itoa(c.End)
		}
		lines = append(lines, d)
	}
	return strings.Join(lines, "\n")
}

// TestParseErrors checks that every error names the script, the line and what is wrong; an
// unsupported meta-command is refused with its name.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"shell", "SELECT 1;\n\\shell echo hi", "t:2: unsupported meta-command \\shell"},
		{"setshell", "\\setshell x echo 1", "t:1: unsupported meta-command \\setshell"},
		{"pipeline", "\n\n\\startpipeline", "t:3: unsupported meta-command \\startpipeline"},
		{"endpipeline", "\\endpipeline", "t:1: unsupported meta-command \\endpipeline"},
		{"unknown", "\\frobnicate 1", "t:1: invalid command \\frobnicate"},
		{"set missing", "\\set x", "t:1: \\set: missing argument"},
		{"set bad name", "\\set 1x 2", "t:1: \\set: invalid variable name"},
		{"set bad expr", "\\set x 1 +", "t:1: \\set: syntax error"},
		{"set string", "\\set x 'a'", "t:1: \\set: unexpected character"},
		{"set unknown function", "\\set x foo(1)", "unexpected function name \"foo\""},
		{"set arg count", "\\set x random(1)", "unexpected number of arguments (random)"},
		{"set too many args", "\\set x greatest(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "unexpected number of arguments (greatest)"},
		{"int overflow", "\\set x 9223372036854775808", "bigint constant overflow"},
		{"chained comparison", "\\set x 1 < 2 < 3", "comparisons do not chain"},
		{"sleep missing", "\\sleep", "t:1: \\sleep: missing argument"},
		{"sleep unit", "\\sleep 1 min", "unrecognized time unit"},
		{"sleep too many", "\\sleep 1 ms x", "too many arguments"},
		{"sleep not int", "\\sleep x", "invalid sleep time"},
		{"gset first", "\\gset", "t:1: \\gset must follow an SQL command"},
		{"gset after meta", "\\set x 1\n\\gset", "t:2: \\gset must follow an SQL command"},
		{"gset twice", "SELECT 1 \\gset\n\\aset", "\\aset must follow an SQL command"},
		{"else without if", "\\else", "t:1: \\else without matching \\if"},
		{"endif without if", "SELECT 1;\n\\endif", "t:2: \\endif without matching \\if"},
		{"elif after else", "\\if 1\n\\else\n\\elif 2\n\\endif", "t:3: \\elif after \\else"},
		{"if unclosed", "SELECT 1;\n\\if 1\nSELECT 2;", "t:2: \\if without matching \\endif"},
		{"if no expr", "\\if", "missing expression"},
		{"else argument", "\\if 1\n\\else x\n\\endif", "t:2: \\else: unexpected argument"},
		{"empty", "-- nothing\n", "the script has no commands"},
		{"block comment", "SELECT /* open", "unterminated /* comment"},
		{"gset too many", "SELECT 1 \\gset a b", "t:1: \\gset: too many arguments"},
		{"unclosed paren", "\\set x (1 + 2", "expected )"},
		{"is what", "\\set x 1 is 2", "IS takes NULL, TRUE or FALSE"},
		{"case without when", "\\set x case end", "CASE needs WHEN"},
		{"case without then", "\\set x case when true 1 end", "expected THEN"},
		{"case without end", "\\set x case when true then 1", "expected END"},
		{"function without paren", "\\set x abs 1", "expected ( after abs"},
		{"bad argument list", "\\set x abs(1 2)", "in the arguments of abs"},
		{"trailing operator", "\\set x 1 *", "unexpected end of expression"},
		{"lone colon", "\\set x : + 1", "unexpected character ':'"},
		{"maxint+1 alone", "\\set x 9223372036854775808 + 1", "bigint constant overflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t", tc.text, NewSymbols())
			var pe *ParseError
			if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a ParseError containing %q", err, tc.want)
			}
		})
	}
}

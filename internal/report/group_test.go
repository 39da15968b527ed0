package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// group makes a run group of one l.i0 step per run, with these insert rates and p99s.
func group(name string, ips, p99 []float64) Group {
	g := Group{Path: name, Meta: archive.Group{Name: name}}
	for i := range ips {
		g.Runs = append(g.Runs, Run{Meta: archive.Run{Name: fmt.Sprintf("%s-%d", name, i), Figures: ib}, Steps: []archive.Step{
			{Step: "l.i0", Complete: true, Stalls: &measure.Stalls{},
				Ops: map[string]measure.OpSummary{"insert": op(100000, ips[i], 400, p99[i], 3000, 5000)}},
		}})
	}
	return g
}

// TestGroupCompareGolden: a base of 5 runs; "faster" inserts 20% faster with the same noise
// (significant, better) and the same p99 (no significant difference); "noisy" has the base's
// median but a wide spread (no significant difference), and a p99 twice the base's, steadily
// (significant, worse).
func TestGroupCompareGolden(t *testing.T) {
	base := group("base", []float64{1000, 1020, 980, 1010, 990}, []float64{900, 910, 890, 905, 895})
	faster := group("faster", []float64{1200, 1224, 1176, 1212, 1188}, []float64{890, 920, 880, 910, 900})
	noisy := group("noisy", []float64{600, 1400, 1000, 800, 1200}, []float64{1800, 1820, 1780, 1810, 1790})
	table := GroupCompareTable(base, []Group{faster, noisy})
	var b bytes.Buffer
	if err := WriteTable(&b, table, FormatText); err != nil {
		t.Fatal(err)
	}
	golden(t, "group-compare.txt", b.Bytes())
	cell := func(fig string, col int) (string, Mark) {
		for i, row := range table.Rows {
			if row[1] == fig {
				return row[col], table.Mark(i, col)
			}
		}
		t.Fatalf("no row %s", fig)
		return "", MarkNone
	}
	for _, c := range []struct {
		fig  string
		col  int
		text string
		mark Mark
	}{
		{"ips", 4, "1.20", MarkBetter},
		{"i_p99", 4, "1.00~", MarkNone},
		{"ips", 8, "1.00~", MarkNone},
		{"i_p99", 8, "2.00", MarkWorse},
	} {
		if text, mark := cell(c.fig, c.col); text != c.text || mark != c.mark {
			t.Errorf("%s column %d: %q mark %d, want %q mark %d", c.fig, c.col, text, mark, c.text, c.mark)
		}
	}
	sum := GroupSummaryTable([]Group{base})
	var s bytes.Buffer
	if err := WriteTable(&s, sum, FormatText); err != nil {
		t.Fatal(err)
	}
	golden(t, "group-summary.txt", s.Bytes())
}

// noiseGroup makes a run group of 5 runs of 25 steps, each step's insert rate and p99 drawn
// from one lognormal distribution (5% noise) that every group shares: no figure truly differs.
func noiseGroup(name string, r *rand.Rand) Group {
	g := Group{Path: name, Meta: archive.Group{Name: name}}
	for i := range 5 {
		run := Run{Meta: archive.Run{Name: fmt.Sprintf("%s-%d", name, i), Figures: ib}}
		for s := range 25 {
			ips, p99 := 1000*math.Exp(0.05*r.NormFloat64()), 900*math.Exp(0.05*r.NormFloat64())
			run.Steps = append(run.Steps, archive.Step{Step: fmt.Sprintf("s%02d", s), Complete: true,
				Ops: map[string]measure.OpSummary{"insert": op(100000, ips, 400, p99, 3000, 5000)}})
		}
		g.Runs = append(g.Runs, run)
	}
	return g
}

// TestGroupCompareControlsFDR: two groups of the same distribution, 50 figures tested. Some
// have p < 0.05 by chance (2.5 expected; this seed gives some); after Benjamini-Hochberg none
// may be called different, and the table and JSON say how many figures the adjustment covered.
func TestGroupCompareControlsFDR(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a, b := noiseGroup("a", r), noiseGroup("b", r)
	cmp := GroupCompare(a, []Group{b})
	if cmp.Tested != 50 {
		t.Errorf("tested %d figures, want 50", cmp.Tested)
	}
	chance := 0
	for _, row := range cmp.Rows {
		c := row.Groups[0]
		if c.P != nil && *c.P < 0.05 {
			chance++
		}
		if c.Significant || c.Mark != "" {
			t.Errorf("%s %s: p %.3f q %.3f called %q: noise called a difference", row.Step, row.Figure, *c.P, *c.Q, c.Mark)
		}
	}
	if chance == 0 {
		t.Fatal("no figure has p < 0.05 by chance with this seed: the test shows nothing")
	}
	t.Logf("%d of 50 figures have p < 0.05 by chance; none is called different", chance)
}

// TestGroupJSONNumbers: summary and compare of groups in JSON carry numbers, not strings.
func TestGroupJSONNumbers(t *testing.T) {
	base := group("base", []float64{1000, 1020, 980}, []float64{900, 910, 890})
	faster := group("faster", []float64{1200, 1224, 1176}, []float64{890, 920, 880})
	var b bytes.Buffer
	if err := WriteGroupCompare(&b, base, []Group{faster}, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var cmp struct {
		Tested int
		Rows   []struct {
			Figure string
			Base   struct{ Median float64 }
			Groups []struct {
				Median, Ratio, P, Q float64
				Mark                string
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &cmp); err != nil {
		t.Fatalf("compare JSON: %v\n%s", err, b.String())
	}
	if len(cmp.Rows) == 0 || cmp.Rows[0].Figure != "ips" || cmp.Rows[0].Base.Median != 1000 || cmp.Rows[0].Groups[0].Ratio != 1.2 ||
		cmp.Rows[0].Groups[0].Mark != "better" || cmp.Tested != 2 {
		t.Errorf("compare JSON: %s", b.String())
	}
	b.Reset()
	if err := WriteGroupSummaryJSON(&b, []Group{base}); err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Groups []struct{ Name string }
		Rows   []struct {
			Figure string
			N      int
			Median float64
			Values []float64
		}
	}
	if err := json.Unmarshal(b.Bytes(), &sum); err != nil {
		t.Fatalf("summary JSON: %v\n%s", err, b.String())
	}
	if len(sum.Groups) != 1 || sum.Groups[0].Name != "base" || len(sum.Rows) == 0 || sum.Rows[0].N != 3 || sum.Rows[0].Median != 1000 || len(sum.Rows[0].Values) != 3 {
		t.Errorf("summary JSON: %s", b.String())
	}
}

// TestGroupCompareLegend: the text of a group compare says what "~", p and q are, and over how
// many figures the false discovery rate is kept.
func TestGroupCompareLegend(t *testing.T) {
	base := group("base", []float64{1000, 1020, 980}, []float64{900, 910, 890})
	faster := group("faster", []float64{1200, 1224, 1176}, []float64{890, 920, 880})
	var b bytes.Buffer
	if err := WriteGroupCompare(&b, base, []Group{faster}, FormatText); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"~ after a ratio", "p: Welch", "q: p adjusted by Benjamini-Hochberg over the 2 figures", "docs/repeats.md"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}

// TestHTMLGroups: the report of groups names each run group/run and has the groups' section
// with the comparison's legend.
func TestHTMLGroups(t *testing.T) {
	base := group("base", []float64{1000, 1020, 980}, []float64{900, 910, 890})
	faster := group("faster", []float64{1200, 1224, 1176}, []float64{890, 920, 880})
	for _, g := range []Group{base, faster} {
		for i := range g.Runs {
			g.Runs[i].Path = fmt.Sprintf("%s/rep-%d", g.Path, i+1)
		}
	}
	var b bytes.Buffer
	if err := HTMLGroups(&b, []Group{base, faster}, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section id="groups">`, "faster/rep-3", "Benjamini-Hochberg", "ci95_low"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page has no %q", want)
		}
	}
}

package report

import (
	"bytes"
	"fmt"
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
		{"ips", 7, "1.00~", MarkNone},
		{"i_p99", 7, "2.00", MarkWorse},
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

package insertbench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/measure"
)

// The reference's own awk programs (np.sh:354, 628, 630) read ReferenceLine's output: 17 fields
// on every line, i_ips in field 3, i_dps in 5, i_qps in 7, the cumulative queries in 14.
func TestReferenceLineReadByNpSh(t *testing.T) {
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk")
	}
	ops := []measure.OpType{opInsert, opDelete, opQuery}
	var out bytes.Buffer
	r := NewReferenceLine(ops)
	start := time.Unix(1000, 0)
	for s, n := range []int64{100, 200, 300} {
		iv := measure.NewInterval(len(ops))
		iv.Start, iv.End = start.Add(time.Duration(s)*time.Second), start.Add(time.Duration(s+1)*time.Second)
		iv.Ops[0].Units, iv.Ops[0].Statements = n, 2
		iv.Ops[0].Hist.RecordValue(int64(1500 * time.Microsecond))
		iv.Ops[1].Units, iv.Ops[1].Statements = n/2, 1
		iv.Ops[2].Units, iv.Ops[2].Statements, iv.Ops[2].Errors = 7, 7, 1
		out.WriteString(r.Line(iv))
	}
	// A step without deletes and queries still writes 17 columns.
	out.WriteString(NewReferenceLine(ops[:1]).Line(&measure.Interval{Start: start, End: start.Add(time.Second), Ops: []measure.OpInterval{{Units: 5}}}))

	awk := func(prog string) string {
		cmd := exec.Command("awk", prog)
		cmd.Stdin = bytes.NewReader(out.Bytes())
		b, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	if got := awk(`{ if (NF != 17) print NR": "NF }`); got != "" {
		t.Errorf("lines without 17 fields: %s\n%s", got, out.String())
	}
	if got := awk(`{ if (NF == 17) { print $3 } }`); got != "i_ips\n100\n200\n300\ni_ips\n5" {
		t.Errorf("np.sh:628's i_ips ($3): %q", got)
	}
	if got := awk(`{ if (NF == 17) { print $5 "," $7 "," $9 } }`); !strings.HasPrefix(got, "i_dps,i_qps,max_i\n50,7,1500\n100,7,1500") {
		t.Errorf("i_dps, i_qps, max_i ($5, $7, $9): %q", got)
	}
	// np.sh:354: the last 17-field line's t_query ($14) of each client, summed.
	first := strings.Join(strings.SplitAfter(out.String(), "\n")[:4], "")
	cmd := exec.Command("awk", `{ if (NF==17) print $0 }`)
	cmd.Stdin = strings.NewReader(first)
	b, _ := cmd.Output()
	last := strings.Fields(strings.TrimSpace(string(b))[strings.LastIndex(strings.TrimSpace(string(b)), "\n")+1:])
	if len(last) != 17 || last[13] != "21" || last[11] != "600" || last[16] != "3" {
		t.Errorf("last line %q: want t_query 21, t_ins 600, retry_q 3", last)
	}
}

// TestReferenceLinesGolden: the lines of made-up intervals (those of the session's live-line
// golden test) are testdata/reference-lines.txt; DBPERF_UPDATE_GOLDEN=1 rewrites it after a
// deliberate change.
func TestReferenceLinesGolden(t *testing.T) {
	ops := []measure.OpType{opInsert, opDelete, opQuery}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	interval := func(from, to float64, rows, queries int64, lat time.Duration) *measure.Interval {
		iv := measure.NewInterval(len(ops))
		iv.Start, iv.End = start.Add(time.Duration(from*float64(time.Second))), start.Add(time.Duration(to*float64(time.Second)))
		for o, units := range []int64{rows, rows, queries} {
			a := &iv.Ops[o]
			a.Units, a.Statements = units, units/50+1
			a.Hist.RecordValue(int64(lat) * int64(o+1))
		}
		return iv
	}
	ivs := []*measure.Interval{interval(0, 1, 200, 31000, 2*time.Millisecond), interval(1, 2, 200, 29000, 150*time.Microsecond),
		interval(2, 3, 200, 30500, 40*time.Millisecond), interval(3, 3.004, 0, 100, time.Millisecond)}
	ivs[1].Ops[2].Errors = 2
	lines := (&Bench{}).ReferenceLines(ops)
	var got strings.Builder
	for _, iv := range ivs {
		got.WriteString(lines.Line(iv))
	}
	path := filepath.Join("testdata", "reference-lines.txt")
	if os.Getenv("DBPERF_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("lines differ from %s:\ngot:\n%s\nwant:\n%s", path, got.String(), want)
	}
}

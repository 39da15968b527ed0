package session

import (
	"bytes"
	"os/exec"
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
	ops := []measure.OpType{{Name: "insert", Abbrev: "i"}, {Name: "delete", Abbrev: "d"}, {Name: "query", Abbrev: "q"}}
	var out bytes.Buffer
	r := NewReferenceLine(&out, ops)
	start := time.Unix(1000, 0)
	for s, n := range []int64{100, 200, 300} {
		iv := measure.NewInterval(len(ops))
		iv.Start, iv.End = start.Add(time.Duration(s)*time.Second), start.Add(time.Duration(s+1)*time.Second)
		iv.Ops[0].Units, iv.Ops[0].Statements = n, 2
		iv.Ops[0].Hist.RecordValue(int64(1500 * time.Microsecond))
		iv.Ops[1].Units, iv.Ops[1].Statements = n/2, 1
		iv.Ops[2].Units, iv.Ops[2].Statements, iv.Ops[2].Errors = 7, 7, 1
		r.Print(iv)
	}
	// A step without deletes and queries still writes 17 columns.
	NewReferenceLine(&out, ops[:1]).Print(&measure.Interval{Start: start, End: start.Add(time.Second), Ops: []measure.OpInterval{{Units: 5}}})

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

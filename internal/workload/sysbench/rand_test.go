package sysbench

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// sysbenchDraws runs the installed sysbench 1.0.20 with a Lua script printing n values of
// sysbench.rand.default(a, b) under the given --rand-* options.
func sysbenchDraws(t *testing.T, n int, a, b uint32, opts ...string) []uint32 {
	t.Helper()
	if _, err := exec.LookPath("sysbench"); err != nil {
		if testing.Short() {
			t.Skip("sysbench is not installed")
		}
		t.Fatal("sysbench is not installed: scripts/test.sh installs Debian's (apt-get install sysbench), or use go test -short")
	}
	script := filepath.Join(t.TempDir(), "draws.lua")
	lua := fmt.Sprintf("function event()\n  for i = 1, %d do io.write(sysbench.rand.default(%d, %d), \"\\n\") end\nend\n", n, a, b)
	if err := os.WriteFile(script, []byte(lua), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, opts...), "--events=1", "--time=0", "--threads=1", script, "run")
	out, err := exec.Command("sysbench", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %v: %v\n%s", args, err, out)
	}
	var vals []uint32
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, err := strconv.ParseUint(sc.Text(), 10, 32); err == nil {
			vals = append(vals, uint32(v))
		}
	}
	if len(vals) != n {
		t.Fatalf("sysbench printed %d values, want %d:\n%.2000s", len(vals), n, out)
	}
	return vals
}

// ks is the two-sample Kolmogorov-Smirnov statistic: the largest gap between the samples'
// empirical distribution functions.
func ks(x, y []uint32) float64 {
	x, y = slices.Clone(x), slices.Clone(y)
	slices.Sort(x)
	slices.Sort(y)
	var i, j int
	d := 0.0
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}

// TestRandMatchesSysbench draws from each --rand-type, with the defaults and with other
// parameters, beside sysbench 1.0.20's own draws: the two samples must not differ by the
// two-sample Kolmogorov-Smirnov test at the 0.1% level (the ties of discrete values make it
// stricter on us, not looser). A swapped formula (special's band drawn uniformly over its whole
// width, pareto's exponent inverted, gaussian's iterations ignored) fails it.
func TestRandMatchesSysbench(t *testing.T) {
	const n = 20000
	crit := 1.95 * math.Sqrt(2.0/n) // alpha = 0.001
	for i, c := range []struct {
		rc   RandConfig
		a, b uint32
	}{
		{DefaultRand(), 1, 10000},
		{RandConfig{Type: "special", SpecIter: 4, SpecPct: 10, SpecRes: 50, ParetoH: 0.2}, 1, 1000},
		{RandConfig{Type: "uniform", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2}, 5, 500},
		{RandConfig{Type: "gaussian", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2}, 1, 10000},
		{RandConfig{Type: "gaussian", SpecIter: 2, SpecPct: 1, SpecRes: 75, ParetoH: 0.2}, 1, 10000},
		{RandConfig{Type: "pareto", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2}, 1, 10000},
		{RandConfig{Type: "pareto", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.4}, 1, 100000},
	} {
		rc := c.rc
		want := sysbenchDraws(t, n, c.a, c.b, "--rand-type="+rc.Type, "--rand-spec-iter="+strconv.Itoa(rc.SpecIter),
			"--rand-spec-pct="+strconv.Itoa(rc.SpecPct), "--rand-spec-res="+strconv.Itoa(rc.SpecRes),
			"--rand-pareto-h="+strconv.FormatFloat(rc.ParetoH, 'g', -1, 64))
		g := NewRand(rc, rand.New(rand.NewPCG(uint64(i), 99)))
		got := make([]uint32, n)
		for k := range got {
			got[k] = g.Default(c.a, c.b)
			if got[k] < c.a || got[k] > c.b {
				t.Fatalf("%+v: %d outside [%d, %d]", rc, got[k], c.a, c.b)
			}
		}
		if d := ks(got, want); d > crit {
			t.Errorf("%+v on [%d, %d]: KS distance %.4f from sysbench's draws, above %.4f", rc, c.a, c.b, d, crit)
		}
	}
}

// TestSpecialBand: with the defaults on [1, 10000], about 75.7% of special's draws fall in
// the middle 1% [4951, 5050], and only in its upper three quarters' worth of [4976, 5050]
// plus the gaussian's share (standard-workloads.md §2.5, observed with sysbench 1.0.20).
func TestSpecialBand(t *testing.T) {
	g := NewRand(DefaultRand(), rand.New(rand.NewPCG(1, 2)))
	const n = 200000
	in, upper := 0, 0
	for range n {
		v := g.Default(1, 10000)
		if v >= 4951 && v <= 5050 {
			in++
		}
		if v >= 4976 && v <= 5050 {
			upper++
		}
	}
	if f := float64(in) / n; f < 0.750 || f > 0.765 {
		t.Errorf("%.4f of draws in the middle 1%%, want about 0.757", f)
	}
	if f := float64(upper) / n; f < 0.745 || f > 0.757 {
		t.Errorf("%.4f of draws in [4976, 5050], want about 0.751", f)
	}
}

// TestUniqueIsAPermutation: oltp_insert's ids with --auto-inc off never repeat.
func TestUniqueIsAPermutation(t *testing.T) {
	u := NewUnique(rand.New(rand.NewPCG(3, 4)))
	seen := map[uint32]bool{}
	for range 100000 {
		v := u.Next()
		if seen[v] {
			t.Fatalf("%d drawn twice", v)
		}
		seen[v] = true
	}
}

// TestStringTemplates: c and pad are 119 and 59 characters of digits and dashes, as sysbench's.
func TestStringTemplates(t *testing.T) {
	g := NewRand(DefaultRand(), rand.New(rand.NewPCG(5, 6)))
	counts := [10]int{}
	for range 1000 {
		c := g.String(nil, CTemplate)
		if len(c) != 119 || len(g.String(nil, PadTemplate)) != 59 {
			t.Fatalf("lengths %d", len(c))
		}
		for i, ch := range c {
			if (i+1)%12 == 0 {
				if ch != '-' {
					t.Fatalf("%q: no dash at %d", c, i)
				}
				continue
			}
			counts[ch-'0']++
		}
	}
	for d, n := range counts { // 110,000 digits: 11,000 each, sd about 100
		if n < 10500 || n > 11500 {
			t.Errorf("digit %d drawn %d times of 110000", d, n)
		}
	}
}

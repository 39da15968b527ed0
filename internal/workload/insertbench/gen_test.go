package insertbench

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func genNew(seed uint64, data DataSpec) *Generator {
	return NewGenerator(rand.New(rand.NewPCG(seed, 99)), data)
}

// checkData checks one data value against the spec: its length in [Min, Max], a prefix of 'a'
// and then int(n*0.75*pct/100) base64 characters.
func checkData(t *testing.T, id int64, d []byte, spec DataSpec) {
	t.Helper()
	n := len(d)
	if n < spec.Min || n > spec.Max {
		t.Fatalf("row %d: data length %d outside [%d, %d]", id, n, spec.Min, spec.Max)
	}
	random := n * 75 * spec.RandomPct / 10000 // floor(n * 0.75 * pct / 100) in integers
	if strings.Trim(string(d[:n-random]), "a") != "" {
		t.Fatalf("row %d: data %q: the first %d characters are not all 'a'", id, d, n-random)
	}
	suffix := d[n-random:]
	for _, c := range suffix {
		if !strings.ContainsRune(base64Chars, rune(c)) {
			t.Fatalf("row %d: data %q: random part has %q, not a base64 character", id, d, c)
		}
	}
}

func TestFillRows(t *testing.T) {
	spec := DataSpec{Min: 10, Max: 20, RandomPct: 50}
	g := genNew(1, spec)
	rows := make([]Row, 500)
	for i := range rows { // storage to be reused: stale values must not survive
		rows[i] = Row{ID: -1, DateAndTime: -1, CashRegister: -1, Customer: -1, Product: -1, Price: -1, Data: []byte("stale")}
	}
	g.Fill(rows, 1000, 1700000000)
	lengths := map[int]bool{}
	for i, r := range rows {
		if r.ID != 1000+int64(i) {
			t.Fatalf("row %d has id %d, want %d", i, r.ID, 1000+int64(i))
		}
		if r.DateAndTime != 1700000000 {
			t.Fatalf("row %d has dateandtime %d", i, r.DateAndTime)
		}
		if r.CashRegister < 0 || r.CashRegister >= CashRegisters || r.Customer < 0 || r.Customer >= Customers ||
			r.Product < 0 || r.Product >= Products || r.Price < 0 || r.Price >= MaxPrice {
			t.Fatalf("row %d has a column out of range: %+v", i, r)
		}
		checkData(t, r.ID, r.Data, spec)
		lengths[len(r.Data)] = true
	}
	// Uniform in [10, 20]: with 500 rows every length shows up.
	for n := 10; n <= 20; n++ {
		if !lengths[n] {
			t.Errorf("no row has data of length %d in [10, 20]", n)
		}
	}
	// The random parts are drawn anew for each row: the values differ.
	distinct := map[string]bool{}
	for _, r := range rows {
		distinct[string(r.Data)] = true
	}
	if len(distinct) < 490 {
		t.Errorf("only %d distinct data values in 500 rows", len(distinct))
	}
	// Each row's data is its own: cap is len, so appending to one cannot overwrite the next.
	before := string(rows[1].Data)
	_ = append(rows[0].Data, "XXXXXXXXXXXXXXXXXXXXXXXX"...)
	if string(rows[1].Data) != before {
		t.Fatalf("appending to row 0's data changed row 1's from %q to %q", before, rows[1].Data)
	}
	// Exact composition at the default 50%: 37.5% random, floored.
	for _, r := range rows {
		n := len(r.Data)
		wantA := n - int(float64(n)*0.375)
		if got := len(r.Data) - len(bytes.TrimLeft(r.Data, "a")); got < wantA {
			t.Fatalf("data %q has %d leading 'a', want at least %d", r.Data, got, wantA)
		}
	}
}

func TestFillDataSpecs(t *testing.T) {
	for _, spec := range []DataSpec{
		{Min: 0, Max: 0, RandomPct: 50},
		{Min: 16, Max: 16, RandomPct: 50},
		{Min: 1, Max: 3, RandomPct: 100},
		{Min: 10, Max: 20, RandomPct: 0},
		{Min: 100, Max: 200, RandomPct: 100},
		{Min: 3999, Max: 4000, RandomPct: 100},
		{Min: 4000, Max: 4000, RandomPct: 33},
		{Min: 7, Max: 400, RandomPct: 17},
	} {
		g := genNew(2, spec)
		rows := make([]Row, 300)
		for batch := range 3 { // refills reuse the generator's buffer
			g.Fill(rows, int64(batch*300+1), 5)
			for _, r := range rows {
				checkData(t, r.ID, r.Data, spec)
			}
		}
		if spec.Min == spec.Max {
			for _, r := range rows {
				if len(r.Data) != spec.Min {
					t.Fatalf("spec %+v: data length %d", spec, len(r.Data))
				}
			}
		}
		if spec.RandomPct == 0 {
			for _, r := range rows {
				if strings.Trim(string(r.Data), "a") != "" {
					t.Fatalf("spec %+v: data %q is not all 'a'", spec, r.Data)
				}
			}
		}
	}
	// Exact numbers of random characters for a few lengths.
	for _, c := range []struct{ n, pct, random int }{
		{16, 50, 6}, {20, 50, 7}, {10, 50, 3}, {4000, 100, 3000}, {4000, 50, 1500}, {3, 100, 2}, {1, 100, 0}, {100, 1, 0}, {200, 1, 1},
	} {
		spec := DataSpec{Min: c.n, Max: c.n, RandomPct: c.pct}
		rows := make([]Row, 50)
		genNew(3, spec).Fill(rows, 1, 0)
		// The random part may start with 'a' by chance, but not in all 50 rows: the fewest
		// leading 'a' is the constant prefix.
		fewest := c.n
		for _, r := range rows {
			checkData(t, r.ID, r.Data, spec)
			fewest = min(fewest, len(r.Data)-len(bytes.TrimLeft(r.Data, "a")))
		}
		if fewest != c.n-c.random {
			t.Errorf("n=%d pct=%d: the constant prefix has %d characters, want %d (%d random)", c.n, c.pct, fewest, c.n-c.random, c.random)
		}
	}
}

func TestFillSameSeedSameRows(t *testing.T) {
	spec := DataSpec{Min: 10, Max: 200, RandomPct: 50}
	a, b, c := genNew(42, spec), genNew(42, spec), genNew(43, spec)
	ra, rb, rc := make([]Row, 100), make([]Row, 100), make([]Row, 100)
	differ := 0
	for batch := range 5 {
		first := int64(batch*100 + 1)
		a.Fill(ra, first, 77)
		b.Fill(rb, first, 77)
		c.Fill(rc, first, 77)
		for i := range ra {
			x, y, z := ra[i], rb[i], rc[i]
			if x.ID != y.ID || x.DateAndTime != y.DateAndTime || x.CashRegister != y.CashRegister || x.Customer != y.Customer ||
				x.Product != y.Product || x.Price != y.Price || !bytes.Equal(x.Data, y.Data) {
				t.Fatalf("same seed, batch %d row %d: %+v vs %+v", batch, i, x, y)
			}
			if x.CashRegister != z.CashRegister || x.Customer != z.Customer || x.Product != z.Product ||
				x.Price != z.Price || !bytes.Equal(x.Data, z.Data) {
				differ++
			}
		}
	}
	// Another seed: practically every row differs (a row equal by chance needs 5 equal draws).
	if differ < 495 {
		t.Fatalf("seeds 42 and 43 give %d different rows of 500", differ)
	}
	// And the query draws follow the seed too.
	for range 100 {
		if x, y := a.RangeStart(PDC), b.RangeStart(PDC); x != y {
			t.Fatalf("same seed, RangeStart %d vs %d", x, y)
		}
		if x, y := a.PickIndex(), b.PickIndex(); x != y {
			t.Fatalf("same seed, PickIndex %d vs %d", x, y)
		}
	}
}

// TestDataCharacters checks the random part's characters: uniform over base64's 64 symbols at
// every position (those from the length's draw and those from fresh draws alike), and adjacent
// positions independent, as characters read from the reference's pool of random base64 are.
func TestDataCharacters(t *testing.T) {
	const width, rows = 30, 20000 // 40 characters at 100%: 30 random, over four draws
	g := genNew(11, DataSpec{Min: 40, Max: 40, RandomPct: 100})
	batch := make([]Row, 1000)
	var counts [width][64]int
	pairs := [width - 1]map[[2]byte]bool{}
	for i := range pairs {
		pairs[i] = map[[2]byte]bool{}
	}
	for b := range rows / len(batch) {
		g.Fill(batch, int64(b*len(batch)), 0)
		for _, r := range batch {
			suffix := r.Data[len(r.Data)-width:]
			for i, c := range suffix {
				k := strings.IndexByte(base64Chars, c)
				if k < 0 {
					t.Fatalf("data %q: %q is not a base64 character", r.Data, c)
				}
				counts[i][k]++
				if i > 0 {
					pairs[i-1][[2]byte{suffix[i-1], c}] = true
				}
			}
		}
	}
	// Chi-square with 63 degrees of freedom: its 1-in-a-million quantile is about 130; a
	// character drawn from too few or shared bits gives thousands.
	const expected = float64(rows) / 64
	for i := range counts {
		chi2 := 0.0
		for _, n := range counts[i] {
			chi2 += (float64(n) - expected) * (float64(n) - expected) / expected
		}
		if chi2 > 130 {
			t.Errorf("position %d: chi-square %.0f over the 64 symbols, want below 130: not uniform", i, chi2)
		}
	}
	// 20000 independent pairs fill about 4065 of the 4096 cells; characters sharing bits fill
	// at most a few hundred.
	for i, seen := range pairs {
		if len(seen) < 3900 {
			t.Errorf("positions %d and %d: %d distinct pairs in %d rows, want at least 3900: not independent", i, i+1, len(seen), rows)
		}
	}
}

func TestFillColumnDistributions(t *testing.T) {
	g := genNew(7, DataSpec{Min: 1, Max: 1, RandomPct: 0})
	const n = 60000
	rows := make([]Row, 1000)
	type stat struct {
		sum      float64
		min, max int32
	}
	stats := [4]stat{}
	for i := range stats {
		stats[i] = stat{min: math.MaxInt32, max: math.MinInt32}
	}
	for batch := range n / len(rows) {
		g.Fill(rows, int64(batch*len(rows)), 0)
		for _, r := range rows {
			for i, v := range [4]int32{r.CashRegister, r.Customer, r.Product, r.Price} {
				stats[i].sum += float64(v)
				stats[i].min = min(stats[i].min, v)
				stats[i].max = max(stats[i].max, v)
			}
		}
	}
	for i, c := range []struct {
		name  string
		limit int32
	}{{"cashregisterid", CashRegisters}, {"customerid", Customers}, {"productid", Products}, {"price", MaxPrice}} {
		mean := stats[i].sum / n
		mid := float64(c.limit-1) / 2
		// The standard error of the mean is 0.29 x range / sqrt(n), about 0.1% of the range: 2%
		// is loose.
		if math.Abs(mean-mid) > 0.02*float64(c.limit) {
			t.Errorf("%s: mean %.1f, want near %.1f", c.name, mean, mid)
		}
		if stats[i].min < 0 || stats[i].max >= c.limit {
			t.Errorf("%s: values in [%d, %d], want within [0, %d)", c.name, stats[i].min, stats[i].max, c.limit)
		}
		// Small ranges are covered to their ends (missing 999 in 60000 draws: p = e^-60).
		if c.limit <= Products && (stats[i].min != 0 || stats[i].max != c.limit-1) {
			t.Errorf("%s: values in [%d, %d], want the whole range [0, %d]", c.name, stats[i].min, stats[i].max, c.limit-1)
		}
	}
}

func TestRangeStart(t *testing.T) {
	g := genNew(8, DataSpec{})
	for _, c := range []struct {
		idx   Index
		limit int64
	}{{MarketSegment, Products}, {RegisterSegment, CashRegisters}, {PDC, MaxPrice}} {
		lo, hi, sum := int64(math.MaxInt64), int64(math.MinInt64), 0.0
		const n = 50000
		for range n {
			x := g.RangeStart(c.idx)
			lo, hi, sum = min(lo, x), max(hi, x), sum+float64(x)
		}
		if lo < 0 || hi >= c.limit {
			t.Errorf("RangeStart(%s) in [%d, %d], want within [0, %d)", c.idx, lo, hi, c.limit)
		}
		if lo > c.limit/100 || hi < c.limit-1-c.limit/100 {
			t.Errorf("RangeStart(%s) in [%d, %d], does not cover [0, %d)", c.idx, lo, hi, c.limit)
		}
		if mean := sum / n; math.Abs(mean-float64(c.limit-1)/2) > 0.02*float64(c.limit) {
			t.Errorf("RangeStart(%s) mean %.1f, want near %.1f", c.idx, mean, float64(c.limit-1)/2)
		}
	}
}

func TestPickIndex(t *testing.T) {
	g := genNew(9, DataSpec{})
	var counts [NumIndexes]int
	for range 30000 {
		idx := g.PickIndex()
		if idx < 0 || idx >= NumIndexes {
			t.Fatalf("PickIndex = %d", idx)
		}
		counts[idx]++
	}
	for i, n := range counts {
		if n < 9000 || n > 11000 {
			t.Errorf("index %s picked %d times of 30000, want about 10000", Index(i), n)
		}
	}
}

func TestPointIDs(t *testing.T) {
	g := genNew(10, DataSpec{})
	ids := make([]int64, 1000)
	for _, c := range []struct{ lo, hi int64 }{{5, 9}, {1, 1}, {-3, 3}, {100, 10_000_000}, {7, 6}, {0, 1}} {
		g.PointIDs(ids, c.lo, c.hi)
		seen := map[int64]bool{}
		for _, id := range ids {
			want := id >= c.lo && id <= c.hi
			if c.hi <= c.lo {
				want = id == c.lo
			}
			if !want {
				t.Fatalf("PointIDs(lo=%d, hi=%d) gave %d", c.lo, c.hi, id)
			}
			seen[id] = true
		}
		// Small ranges are covered to both ends: hi is included.
		if c.hi > c.lo && c.hi-c.lo < 10 {
			for id := c.lo; id <= c.hi; id++ {
				if !seen[id] {
					t.Errorf("PointIDs(lo=%d, hi=%d) never gave %d in 1000 draws", c.lo, c.hi, id)
				}
			}
		}
	}
	g.PointIDs(nil, 1, 10) // no ids: nothing to do, no panic
}

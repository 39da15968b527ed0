package insertbench

import (
	"strings"
	"testing"
)

// goodRange is an ordered result of 10 rows from x, none starting at x.
func goodRange(x int64) []IndexRow {
	var rows []IndexRow
	for i := range int64(RowsPerQuery) {
		rows = append(rows, IndexRow{x + 1 + i/3, i % 3, 7})
	}
	return rows
}

func expectProblems(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d problems %q, want %d %q", what, len(got), got, len(want), want)
		return
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("%s: problem %d = %q, want it to contain %q", what, i, got[i], w)
		}
	}
}

func TestCheckRangeAcceptsGoodResults(t *testing.T) {
	for idx := range NumIndexes {
		expectProblems(t, "10 rows after x", checkRange("pi1", idx, 5, goodRange(5), 1000))
		expectProblems(t, "fewer rows", checkRange("pi1", idx, 5, goodRange(5)[:3], 1000))
		expectProblems(t, "empty result from x > 0", checkRange("pi1", idx, 9999, nil, 1000))
		expectProblems(t, "empty result from a small table", checkRange("pi1", idx, 0, nil, RowsPerQuery-1))
		// Equal rows (ties in the three columns, different ids) are in order.
		expectProblems(t, "ties", checkRange("pi1", idx, 5, []IndexRow{{6, 1, 1}, {6, 1, 1}, {6, 1, 2}}, 1000))
	}
	// ">=": a row starting at x is fine except on registersegment.
	rows := []IndexRow{{5, 0, 0}, {5, 1, 0}, {6, 0, 0}}
	expectProblems(t, "marketsegment from x", checkRange("pi1", MarketSegment, 5, rows, 1000))
	expectProblems(t, "pdc from x", checkRange("pi1", PDC, 5, rows, 1000))
}

func TestCheckRangeFlags(t *testing.T) {
	eleven := append(goodRange(5), IndexRow{100, 0, 0})
	expectProblems(t, "11 rows", checkRange("pi1", PDC, 5, eleven, 1000),
		"range query on pi1.pdc from 5 returned 11 rows, LIMIT is 10")

	below := []IndexRow{{4, 9, 9}, {5, 0, 0}, {6, 0, 0}}
	expectProblems(t, "a row below x", checkRange("pi1", MarketSegment, 5, below, 1000),
		"range query on pi1.marketsegment from 5 returned a row starting 4")

	atX := []IndexRow{{5, 0, 0}, {6, 0, 0}}
	expectProblems(t, "a row at x on registersegment", checkRange("pi2", RegisterSegment, 5, atX, 1000),
		"range query on pi2.registersegment from 5 returned a row starting 5")

	unordered := []IndexRow{{6, 1, 0}, {6, 0, 9}, {7, 0, 0}, {7, 0, 0}, {6, 9, 9}}
	expectProblems(t, "out of order", checkRange("pi1", PDC, 5, unordered, 1000),
		"range query on pi1.pdc from 5 is out of order at row 1: [6 0 9] after [6 1 0]",
		"range query on pi1.pdc from 5 is out of order at row 4: [6 9 9] after [7 0 0]")
	// Order on the third column only.
	expectProblems(t, "out of order on the last column", checkRange("pi1", PDC, 5, []IndexRow{{6, 0, 2}, {6, 0, 1}}, 1000),
		"out of order at row 1")

	expectProblems(t, "nothing from 0", checkRange("pi1", RegisterSegment, 0, nil, RowsPerQuery),
		"range query on pi1.registersegment from 0 returned nothing from 10 rows")

	// Several problems at once, each reported.
	many := append([]IndexRow{{1, 0, 0}}, goodRange(5)...)
	expectProblems(t, "several", checkRange("pi1", PDC, 5, many, 1000),
		"returned 11 rows", "returned a row starting 1")
}

func goodPoint(ids []int64, data DataSpec) []PointRow {
	var rows []PointRow
	seen := map[int64]bool{}
	for i, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		rows = append(rows, PointRow{ID: id, Product: int32(i * 1000), Data: make([]byte, data.Min+i%(data.Max-data.Min+1))})
	}
	return rows
}

func TestCheckPoint(t *testing.T) {
	data := DataSpec{Min: 10, Max: 20, RandomPct: 50}
	ids := []int64{3, 9, 4, 3, 7, 8, 1, 2, 5, 6}
	good := goodPoint(ids, data)
	expectProblems(t, "good", checkPoint("pi1", ids, good, data))

	// Reordered results are fine.
	rev := append([]PointRow(nil), good...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	expectProblems(t, "reordered", checkPoint("pi1", ids, rev, data))

	// Lengths at both bounds are fine.
	bounds := []PointRow{{ID: 3, Data: make([]byte, 10)}, {ID: 9, Product: Products - 1, Data: make([]byte, 20)}}
	expectProblems(t, "bounds", checkPoint("pi1", []int64{3, 9}, bounds, data))

	extra := append(append([]PointRow(nil), good...), PointRow{ID: 42, Data: make([]byte, 10)})
	expectProblems(t, "an id not requested", checkPoint("pi1", ids, extra, data),
		"point query on pi1 for [3 9 4 3 7 8 1 2 5 6] returned id 42",
		"point query on pi1 for 9 distinct ids returned 10 rows")

	dup := append(append([]PointRow(nil), good...), good[0])
	expectProblems(t, "a duplicate id", checkPoint("pi1", ids, dup, data),
		"point query on pi1 returned id 3 twice")

	expectProblems(t, "a missing id", checkPoint("pi1", ids, good[1:], data),
		"point query on pi1 for 9 distinct ids returned 8 rows")

	expectProblems(t, "nothing", checkPoint("pi1", ids, nil, data),
		"point query on pi1 for 9 distinct ids returned 0 rows")

	short := append([]PointRow(nil), good...)
	short[2] = PointRow{ID: short[2].ID, Data: make([]byte, 9)}
	long := append([]PointRow(nil), good...)
	long[0] = PointRow{ID: long[0].ID, Data: make([]byte, 21)}
	expectProblems(t, "data too short", checkPoint("pi1", ids, short, data),
		"row 4 of pi1 has data of length 9, outside 10..20")
	expectProblems(t, "data too long", checkPoint("pi1", ids, long, data),
		"row 3 of pi1 has data of length 21, outside 10..20")

	badProduct := append([]PointRow(nil), good...)
	badProduct[1].Product = Products
	expectProblems(t, "productid out of range", checkPoint("pi1", ids, badProduct, data),
		"row 9 of pi1 has productid 10000")
	badProduct[1].Product = -1
	expectProblems(t, "negative productid", checkPoint("pi1", ids, badProduct, data),
		"row 9 of pi1 has productid -1")

	// A wrong id in place of a right one: the wrong one is named even though the count matches.
	swapped := append([]PointRow(nil), good...)
	swapped[0].ID = 100
	expectProblems(t, "swapped", checkPoint("pi1", ids, swapped, data), "returned id 100")
}

package stats

import (
	"math"
	"slices"
)

// FDR is the false discovery rate a comparison of many figures keeps to: among the differences
// it calls significant, the expected share that are noise is at most FDR.
const FDR = 0.05

// BenjaminiHochberg adjusts p-values for being tested together (Benjamini and Hochberg, 1995,
// "Controlling the false discovery rate", JRSS B 57(1):289-300): the adjusted value of the i-th
// smallest of m p-values is the least of m·p(j)/j over j >= i, capped at 1. Calling significant
// every figure whose adjusted value is below q keeps the false discovery rate at q or less for
// independent or positively dependent tests (the figures of one step move together).
//
// Why: one compare of two groups tests about 45 figures; at p < 0.05 each, two identical groups
// would show two or three "significant" differences by chance alone. With the adjustment, when
// no figure differs at all, the chance that any is called different is at most q.
// The result is in the order of p; NaN counts as 1.
func BenjaminiHochberg(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	val := func(i int) float64 {
		if math.IsNaN(p[i]) {
			return 1
		}
		return p[i]
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case val(a) < val(b):
			return -1
		case val(a) > val(b):
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	least := 1.0
	for rank := m; rank >= 1; rank-- {
		i := order[rank-1]
		least = math.Min(least, val(i)*float64(m)/float64(rank))
		adj[i] = least
	}
	return adj
}

package stats

import "testing"

// TestBenjaminiHochbergPaper is the example of Benjamini and Hochberg (1995), section 4: 15
// p-values from a study of myocardial infarction treatments. At q = 0.05 the procedure rejects
// the four smallest (p <= 0.0095), where Bonferroni (0.05/15) rejects three. The adjusted values
// are m·p(j)/j made monotone from the largest down, as R's p.adjust(p, "BH") gives.
func TestBenjaminiHochbergPaper(t *testing.T) {
	p := []float64{0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000}
	want := []float64{0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.0638571, 0.0638571, 0.0645, 0.0765, 0.486, 0.581182, 0.714875, 0.753231, 0.813214, 1}
	// The same p-values out of order must give the same adjusted values, in their order.
	shuffled := []int{7, 0, 14, 3, 10, 1, 12, 5, 8, 2, 13, 6, 11, 4, 9}
	in := make([]float64, len(p))
	for i, j := range shuffled {
		in[i] = p[j]
	}
	adj := BenjaminiHochberg(in)
	rejected := 0
	for i, j := range shuffled {
		near(t, "adjusted p", adj[i], want[j], 1e-6)
		if adj[i] < FDR {
			rejected++
		}
	}
	if rejected != 4 {
		t.Errorf("rejected %d hypotheses at q = 0.05, the paper rejects 4", rejected)
	}
	if len(BenjaminiHochberg(nil)) != 0 {
		t.Error("no p-values: want none back")
	}
}

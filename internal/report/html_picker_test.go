package report

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestPickerEncoding: a running total is its increase per interval (nothing across a reset or
// an unknown tick), a gauge of whole numbers its first value then differences, runs of equal
// values "v*n", unknowns empty; counters that never changed are left out.
func TestPickerEncoding(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		kind archive.CounterKind
		v    []float64
		want string
	}{
		{"total", archive.KindCumulative, []float64{10, 12, 14, 16, 16, 20}, "c|2*3,0,4"},
		{"reset and unknown", archive.KindCumulative, []float64{10, 20, 5, nan, 9, 9.5}, "c|10,0,*2,0.5"},
		{"unchanged total", archive.KindCumulative, []float64{7, 7, 7}, ""},
		{"whole gauge", archive.KindGauge, []float64{0, 5, 7, nan, 7, 3}, "d|5,2,,0,-4"},
		{"fractional gauge", archive.KindGauge, []float64{0, 0.5, 0.25, 0.25}, "g|0.5,0.25*2"},
		{"constant gauge", archive.KindGauge, []float64{1, 3, 3, 3}, ""},
	} {
		got, ok := encodeCounter(c.kind, c.v)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.name, got, ok, c.want)
		}
	}
	if got := encodeValues(deltas([]float64{2, 1003, 2004, 3004, 4004}, false)); got != "2,1001*2,1000*2" {
		t.Errorf("ticks: %q", got)
	}
}

// TestPickerData: the counters test run's step carries every DBMS counter that changed (not
// the synthetic op.* and host.* ones), its ops per interval and its stall, and opens on the
// counter that moved most in the stall.
func TestPickerData(t *testing.T) {
	runs, err := Load([]string{counterRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := buildHTMLPage(runs, 0, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var data htmlData
	if err := json.Unmarshal([]byte(p.Data), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Pickers) != 1 || len(data.Pickers[0].Runs) != 1 {
		t.Fatalf("pickers: %+v", data.Pickers)
	}
	pk := data.Pickers[0]
	r := pk.Runs[0]
	if len(r.Counters) != 7 || r.Counters["db.blks_read"] != "c|2000*5,52000,2000*4" || r.Counters["db.xact_commit"] != "c|1000*10" ||
		r.Counters["locks.waiting"] != "d|1*2,-2,1*2,-2,1*2,-2,1" {
		t.Errorf("counters: %v", r.Counters)
	}
	if r.Ops != "1000*10" || pk.Main[0] != "query" || len(pk.Shade) != 1 || pk.Shade[0].From != 5 || pk.Shade[0].To != 6 {
		t.Errorf("ops %q, main %v, shade %+v", r.Ops, pk.Main, pk.Shade)
	}
	if pk.Default != "db.blks_read" {
		t.Errorf("default counter %q, want db.blks_read (it moved in the stall)", pk.Default)
	}
}

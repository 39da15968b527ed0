package kv

import (
	"reflect"
	"testing"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
)

// TestEngineColumns checks the summary columns' arithmetic on made-up engine statistics.
func TestEngineColumns(t *testing.T) {
	const gib = 1 << 30
	before := map[string]float64{
		kvdriver.CounterFlushBytes: 100, kvdriver.CounterCompactionBytes: 1000,
		kvdriver.CounterCompactionSeconds: 2, kvdriver.CounterStallSeconds: 1, kvdriver.CounterStalls: 3,
		kvdriver.CounterTablesBytes: 1, kvdriver.CounterBlobBytes: 1,
	}
	after := map[string]float64{
		kvdriver.CounterFlushBytes: 100 + gib/4, kvdriver.CounterCompactionBytes: 1000 + 3*gib/4,
		kvdriver.CounterCompactionSeconds: 9.5, kvdriver.CounterStallSeconds: 4, kvdriver.CounterStalls: 5,
		kvdriver.CounterTablesBytes: 5e9, kvdriver.CounterBlobBytes: 7e8,
	}
	// 1 GiB written by flush and compaction for 512 MiB ingested over 10 s.
	got := engineColumns(before, after, gib/2, 10)
	want := map[string]any{
		colIngest: float64(gib / 2), colLSM: 5e9, colBlob: 7e8,
		colCWGB: 1.0, colWAmp: 2.0, colCMBps: 102.4, colCWSecs: 7.5,
		colStallPct: 30.0, colNStall: 2.0,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("engineColumns =\n%v\nwant\n%v", got, want)
	}

	// An engine that keeps only flush bytes and sizes (no compaction time, no stalls): the
	// missing columns are left out, not zero; no writes, no w_amp.
	got = engineColumns(map[string]float64{}, map[string]float64{kvdriver.CounterFlushBytes: gib / 2, kvdriver.CounterTablesBytes: 10}, 0, 4)
	want = map[string]any{colIngest: 0.0, colLSM: 10.0, colCWGB: 0.5, colCMBps: 128.0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("engineColumns without stalls =\n%v\nwant\n%v", got, want)
	}

	// An engine with no statistics at all (bbolt's counters have none of these names).
	if got := engineColumns(nil, map[string]float64{"free_pages": 3}, 100, 1); len(got) != 1 {
		t.Fatalf("engineColumns without statistics = %v, want only %s", got, colIngest)
	}
}

func TestRound(t *testing.T) {
	for _, c := range [][2]float64{{123456, 123500}, {0.000123456, 0.0001235}, {2, 2}, {0, 0}, {-1.23456, -1.235}} {
		if got := round(c[0]); got != c[1] {
			t.Errorf("round(%g) = %g, want %g", c[0], got, c[1])
		}
	}
}

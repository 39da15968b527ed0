package report

import (
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
)

// TestMergedHostOfTwoHosts: a merged step whose shards ran on two hosts shows the busiest
// client's cores, client-bound, the DBMS's figures of the shard that saw the DBMS over both
// shards' operations, and no host-wide figures ("-"): the two hosts' do not add up.
func TestMergedHostOfTwoHosts(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	// shard 0: 0.5 cores for 10 s at 5 µs per op: 1e6 ops; shard 1: 0.25 cores, 10 µs: 250000.
	s0 := &archive.HostSummary{Seconds: 10, ClientCPUCores: 0.5, ClientCPUUsPerOp: 5, WriteRate: 1000, CPUPS: 80, CPUUsPerOp: f(20),
		DBMSCPUUsPerOp: f(12.5), RSS: f(1.5), DBGB1: f(3), WriteKBPerWrite: f(8)}
	s1 := &archive.HostSummary{Seconds: 10, ClientCPUCores: 0.25, ClientCPUUsPerOp: 10, WriteRate: 3000, CPUPS: 30, CPUUsPerOp: f(15),
		ClientBound: true, ClientBoundWhy: "late"}
	step := archive.Step{Step: "s", Hosts: archive.CombineHosts([]archive.ShardHost{{Shard: 0, Hostname: "db", Host: s0}, {Shard: 1, Hostname: "c1", Host: s1}})}
	tbl := SummaryTable([]Run{{Meta: archive.Run{Name: "m"}, Steps: []archive.Step{step}}})
	want := map[string]string{"client": "0.50!", "dbms_cpupq": "10.0", "rss": "1.500", "dbgb1": "3.000", "wkbpi": "2.000", "cpups": "-", "cpupq": "-", "rpq": "-"}
	for i, h := range tbl.Header {
		if w, ok := want[h]; ok && tbl.Rows[0][i] != w {
			t.Errorf("%s: %q, want %q", h, tbl.Rows[0][i], w)
		}
		if h == "client" && tbl.CellTitle(0, i) != "shard 1 (c1): late" {
			t.Errorf("client's tooltip %q", tbl.CellTitle(0, i))
		}
	}
	if h, _ := stepHost(step); h.ClientCPUUsPerOp != 6 { // (5 µs × 1e6 + 10 µs × 250000) / 1.25e6
		t.Errorf("client_cpupq %v, want 6", h.ClientCPUUsPerOp)
	}
}

package report

import (
	"fmt"
	"math"

	"github.com/dbperf/dbperf/internal/archive"
)

// A merged (sharded) step has no "host" block but "hosts", each shard's own (docs/scale-out.md).
// Its host columns show what stays true for the whole run (docs/reports.md): the busiest
// client's cores, client-bound when any shard was, the DBMS's figures from the shard that
// sampled the DBMS's host, divided by all shards' operations, and the host-wide figures only
// when every shard ran on one host.

// stepHost is the host block a step's host columns read: its own, or a merged step's made from
// its shards'; oneHost tells whether the host-wide figures (cpups, cspq, cpupq) are the run's.
func stepHost(s archive.Step) (h *archive.HostSummary, oneHost bool) {
	if s.Host != nil {
		return s.Host, true
	}
	if s.Hosts == nil {
		return nil, false
	}
	return mergedHost(s.Hosts)
}

// mainOps are the units of a shard's main op type its host block divided by: its client's CPU
// µs over its client's CPU µs per op (the block keeps no count; cores are rounded to 0.001).
func mainOps(h *archive.HostSummary) float64 {
	if h.ClientCPUUsPerOp <= 0 {
		return 0
	}
	return h.ClientCPUCores * h.Seconds * 1e6 / h.ClientCPUUsPerOp
}

// dbmsShard is the shard whose host block has the DBMS's figures: the lowest-numbered one that
// saw the DBMS's processes (on the DBMS's host), else the first with a host block.
func dbmsShard(shards []archive.ShardHost) *archive.HostSummary {
	for _, s := range shards {
		if s.Host.DBMSCPUUsPerOp != nil || s.Host.RSS != nil {
			return s.Host
		}
	}
	return shards[0].Host
}

// mergedHost is the host block of a merged step's columns, nil when no shard had one.
func mergedHost(hs *archive.ShardHosts) (*archive.HostSummary, bool) {
	var shards []archive.ShardHost
	for _, s := range hs.Shards {
		if s.Host != nil {
			shards = append(shards, s)
		}
	}
	if len(shards) == 0 {
		return nil, false
	}
	out := &archive.HostSummary{ClientBound: hs.ClientBound, ClientBoundWhy: hs.ClientBoundWhy}
	var ops, writes, clientUs float64
	oneHost := true
	for _, s := range shards {
		h := s.Host
		out.ClientCPUCores = max(out.ClientCPUCores, h.ClientCPUCores)
		n := mainOps(h)
		ops, writes, clientUs = ops+n, writes+h.WriteRate*h.Seconds, clientUs+h.ClientCPUUsPerOp*n
		oneHost = oneHost && s.Hostname == shards[0].Hostname
	}
	if ops > 0 {
		out.ClientCPUUsPerOp = math.Round(clientUs/ops*1000) / 1000
	}
	d := dbmsShard(shards)
	opShare, writeShare := share(mainOps(d), ops), share(d.WriteRate*d.Seconds, writes)
	out.ReadsPerOp, out.ReadKBPerOp = scaled(d.ReadsPerOp, opShare), scaled(d.ReadKBPerOp, opShare)
	out.WritesPerWrite, out.WriteKBPerWrite = scaled(d.WritesPerWrite, writeShare), scaled(d.WriteKBPerWrite, writeShare)
	out.DBMSCPUUsPerOp = scaled(d.DBMSCPUUsPerOp, opShare)
	out.DBGB1, out.DBGB2, out.RSS = d.DBGB1, d.DBGB2, d.RSS
	if oneHost { // the host's CPU and context switches are every shard's: the run's
		out.CPUPS = d.CPUPS
		out.CtxPerOp, out.CPUUsPerOp = scaled(d.CtxPerOp, opShare), scaled(d.CPUUsPerOp, opShare)
	}
	return out, oneHost
}

// share is part over whole, 0 when either is not positive.
func share(part, whole float64) float64 {
	if part <= 0 || whole <= 0 {
		return 0
	}
	return part / whole
}

// scaled is a per-op figure of one shard's operations made one of all shards': multiplied by
// the shard's share of them; nil when unknown.
func scaled(p *float64, share float64) *float64 {
	if p == nil || share <= 0 {
		return nil
	}
	v := math.Round(*p*share*1000) / 1000
	return &v
}

// clientTitle is the client cell's tooltip in the report: a merged step's client_bound_why,
// which names each client-bound shard; none for a single host's step, whose page is unchanged.
func clientTitle(_ Run, s archive.Step) string {
	if s.Host != nil || s.Hosts == nil {
		return ""
	}
	return s.Hosts.ClientBoundWhy
}

// htmlShards is the per-shard table under a merged step in the report: each run's shards with
// their client cores, paced operations, late wake-ups and whether they were client-bound (its
// reason as the cell's tooltip).
type htmlShards struct {
	Header []string
	Rows   [][]htmlCell
}

// shardTable is the per-shard table of a step's merged runs; nil when none of them is merged.
func shardTable(names []string, steps []*archive.Step) *htmlShards {
	t := &htmlShards{Header: []string{"run", "shard", "host", "client cores", "paced ops", "late wake-ups", "client-bound"}}
	for ri, s := range steps {
		if s == nil || s.Hosts == nil {
			continue
		}
		for _, sh := range s.Hosts.Shards {
			row := []htmlCell{{Text: names[ri]}, {Text: fmt.Sprint(sh.Shard)}, {Text: sh.Hostname}}
			if h := sh.Host; h == nil {
				row = append(row, htmlCell{Text: "-"}, htmlCell{Text: "-"}, htmlCell{Text: "-"}, htmlCell{Text: "-", Title: "no host block: no monitor, or the shard was killed in the step"})
			} else {
				bound := htmlCell{Text: "no", Title: h.ClientBoundWhy}
				if h.ClientBound {
					bound = htmlCell{Text: "yes", Class: "worse", Title: h.ClientBoundWhy}
				}
				row = append(row, htmlCell{Text: fmt.Sprintf("%.2f", h.ClientCPUCores)}, htmlCell{Text: fmt.Sprint(h.PacedOps)},
					htmlCell{Text: fmt.Sprint(h.LateWakeups)}, bound)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

package merge

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/counters"
	"github.com/dbperf/dbperf/internal/shard"
)

// startShards runs n shard processes of the synthetic run at once (this test binary, through
// TestMain), shard i with clock offset clocks[i], each under wrap (e.g. ip netns exec NS), and
// returns their run directories. n == 0 makes one whole, unsharded run.
func startShards(t *testing.T, base string, n int, clocks []time.Duration, wrap func(i int) []string) []string {
	t.Helper()
	start := time.Now().Add(1500 * time.Millisecond) // --start-at: every shard waits for it
	count := max(n, 1)
	dirs := make([]string, count)
	cmds := make([]*exec.Cmd, count)
	outs := make([]*bytes.Buffer, count)
	for i := range count {
		dirs[i] = filepath.Join(base, fmt.Sprintf("s%d", i))
		spec := fmt.Sprintf("%d/%d", i, n)
		if n == 0 {
			spec = "0/1"
		}
		var clock time.Duration
		if clocks != nil {
			clock = clocks[i]
		}
		args := []string{os.Args[0], "-test.run=^$"}
		if wrap != nil {
			args = append(wrap(i), args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), envShard+"="+spec, envDir+"="+dirs[i],
			envStart+"="+strconv.FormatInt(start.UnixNano(), 10), envClock+"="+strconv.FormatInt(int64(clock), 10))
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	if n == 0 { // a whole run carries no shard in its run.json
		meta, _, err := archive.Read(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		meta.Shard = nil
		if err := (&archive.Dir{Path: dirs[0], Meta: meta}).WriteMeta(); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// exactlyEqual fails unless the merged run's figures are the whole run's: every op's counts,
// errors and latency figures, the open-loop totals and the SLA verdicts of every step, and the
// per-second counts and histograms row by row.
func exactlyEqual(t *testing.T, whole, merged string) {
	t.Helper()
	_, ws, err := archive.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	_, ms, err := archive.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != len(ms) {
		t.Fatalf("%d steps merged, %d in the whole run", len(ms), len(ws))
	}
	for i := range ws {
		w, m := ws[i], ms[i]
		for op, wo := range w.Ops {
			mo := m.Ops[op]
			wo.PerSec, mo.PerSec = 0, 0 // the seconds differ by the shards' skew
			if !reflect.DeepEqual(wo, mo) {
				t.Errorf("step %s op %s:\nwhole  %+v\nmerged %+v", w.Step, op, wo, mo)
			}
		}
		if w.Errors != m.Errors || w.Dropped != m.Dropped {
			t.Errorf("step %s: errors %d/%d, dropped %d/%d", w.Step, w.Errors, m.Errors, w.Dropped, m.Dropped)
		}
		if (w.OpenLoop == nil) != (m.OpenLoop == nil) {
			t.Fatalf("step %s: open loop %v vs %v", w.Step, w.OpenLoop, m.OpenLoop)
		}
		if w.OpenLoop != nil {
			a, b := *w.OpenLoop, *m.OpenLoop
			if a.Offered != b.Offered || a.Achieved != b.Achieved || a.NotStarted != b.NotStarted || a.Dropped != b.Dropped || a.Overloaded != b.Overloaded {
				t.Errorf("step %s: open loop\nwhole  %+v\nmerged %+v", w.Step, a, b)
			}
		}
		for j := range w.SLAs {
			a, b := w.SLAs[j], m.SLAs[j]
			if a.SLA != b.SLA || a.Met != b.Met || a.ValueUs != b.ValueUs || a.WithinPct != b.WithinPct || a.ViolatedSeconds != b.ViolatedSeconds {
				t.Errorf("step %s: SLA\nwhole  %+v\nmerged %+v", w.Step, a, b)
			}
		}
		rowsEqual(t, filepath.Join(whole, w.Step), filepath.Join(merged, m.Step))
	}
}

// rowsEqual compares two steps' per-second counts and histograms.
func rowsEqual(t *testing.T, a, b string) {
	t.Helper()
	fa, err := readStep(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := readStep(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(fa.rows) != len(fb.rows) || !reflect.DeepEqual(fa.ops, fb.ops) {
		t.Fatalf("%s: %d rows of %v merged, %d rows of %v whole", b, len(fb.rows), fb.ops, len(fa.rows), fa.ops)
	}
	for j := range fa.rows {
		ra, rb := fa.rows[j], fb.rows[j]
		if !reflect.DeepEqual(ra.units, rb.units) || !reflect.DeepEqual(ra.errors, rb.errors) || ra.arrivals != rb.arrivals || ra.backlog != rb.backlog {
			t.Errorf("%s row %d: whole %+v, merged %+v", b, j+1, ra, rb)
		}
		for o := range fa.ops {
			ha, hb := fa.hists[j][o], fb.hists[j][o]
			if (ha == nil) != (hb == nil) || (ha != nil && !sameBuckets(ha, hb)) {
				t.Errorf("%s row %d op %s: the histograms differ", b, j+1, fa.ops[o])
			}
			sa, sb := fa.serviceOf(j), fb.serviceOf(j)
			if (sa == nil) != (sb == nil) || (sa != nil && ((sa[o] == nil) != (sb[o] == nil) || (sa[o] != nil && !sameBuckets(sa[o], sb[o])))) {
				t.Errorf("%s row %d op %s: the service-time histograms differ", b, j+1, fa.ops[o])
			}
		}
	}
}

func sameBuckets(a, b *hdrPacked) bool {
	var x, y [][2]int64
	for v, c := range a.ForEachBucket {
		x = append(x, [2]int64{v, c})
	}
	for v, c := range b.ForEachBucket {
		y = append(y, [2]int64{v, c})
	}
	return reflect.DeepEqual(x, y)
}

// TestShardsEqualWholeRun: the same total work as one whole run and as 4 shards (4 processes,
// met at a start instant); the merged counts, percentiles, open-loop figures, SLAs and
// per-second rows equal the whole run's exactly.
func TestShardsEqualWholeRun(t *testing.T) {
	base := t.TempDir()
	whole := startShards(t, filepath.Join(base, "whole"), 0, nil, nil)[0]
	dirs := startShards(t, filepath.Join(base, "sharded"), 4, nil, nil)
	out := filepath.Join(base, "merged")
	meta, err := Runs(out, dirs, []string{"dbperf", "merge"})
	if err != nil {
		t.Fatal(err)
	}
	exactlyEqual(t, whole, out)
	_, ws, _ := archive.Read(whole)
	if ws[1].Ops["query"].Service == nil || ws[0].Ops["insert"].Service != nil {
		t.Errorf("the whole run's service times: open-loop query %v, closed-loop insert %v", ws[1].Ops["query"].Service, ws[0].Ops["insert"].Service)
	}
	if len(meta.Shards) != 4 || meta.Shards[3].Host.Hostname != "host-3" || !meta.Complete {
		t.Errorf("run.json's shards: %+v", meta.Shards)
	}
	for k := range 4 {
		if _, err := os.Stat(filepath.Join(out, "load", fmt.Sprintf("shard-%d", k), "summary.json")); err != nil {
			t.Errorf("shard %d's own step summary is not kept: %v", k, err)
		}
	}
	hostsKept(t, out)
}

// hostsKept checks the merged steps' "hosts": every shard's own host block with its hostname,
// no "host" (the hosts' figures do not add up), and the query step client-bound because
// shard 2 (clients 6 and 7) was, named.
func hostsKept(t *testing.T, out string) {
	t.Helper()
	_, ms, _ := archive.Read(out)
	for _, s := range ms {
		h := s.Hosts
		if s.Host != nil || h == nil || len(h.Shards) != 4 {
			t.Fatalf("step %s: host %+v, hosts %+v; want no host and 4 shards' hosts", s.Step, s.Host, h)
		}
		for k, sh := range h.Shards {
			if sh.Shard != k || sh.Hostname != fmt.Sprintf("host-%d", k) || sh.Host == nil || sh.Host.ClientCPUCores == 0 {
				t.Errorf("step %s: hosts' shard %d is %+v", s.Step, k, sh)
			}
		}
		bound := s.Step == "query"
		if h.ClientBound != bound || bound && h.ClientBoundWhy != "shard 2 (host-2): client 7 is slow" || !bound && h.ClientBoundWhy != "" {
			t.Errorf("step %s: client-bound %v (%q); want %v, shard 2 named", s.Step, h.ClientBound, h.ClientBoundWhy, bound)
		}
	}
}

// TestShardsWithClockOffsets: shards whose clocks are ahead or behind by known offsets
// (recorded at the rendezvous) merge to the same figures, aligned to the same seconds.
func TestShardsWithClockOffsets(t *testing.T) {
	base := t.TempDir()
	whole := startShards(t, filepath.Join(base, "whole"), 0, nil, nil)[0]
	clocks := []time.Duration{0, 2300 * time.Millisecond, -1700 * time.Millisecond, 40 * time.Second}
	dirs := startShards(t, filepath.Join(base, "sharded"), 4, clocks, nil)
	out := filepath.Join(base, "merged")
	meta, err := Runs(out, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	exactlyEqual(t, whole, out)
	s0, _, _ := archive.Read(dirs[0]) // shard 0's clock is the rendezvous's
	if !meta.Start.Equal(s0.Start) {
		t.Errorf("merged start %s, shard 0's %s: the offsets were not taken out", meta.Start, s0.Start)
	}
	// Without the offsets recorded, the rows would not line up: the test can fail.
	for i, d := range dirs {
		m, _, _ := archive.Read(d)
		m.Shard.ClockOffsetMs = 0
		(&archive.Dir{Path: dirs[i], Meta: m}).WriteMeta()
	}
	bad := filepath.Join(base, "unaligned")
	if _, err := Runs(bad, dirs, nil); err != nil {
		t.Fatal(err)
	}
	_, ws, _ := archive.Read(whole)
	_, bs, _ := archive.Read(bad)
	if bs[0].Seconds < ws[0].Seconds+30 {
		t.Errorf("without offsets the merged step lasts %.1f s, the whole run's %.1f s: the offsets change nothing", bs[0].Seconds, ws[0].Seconds)
	}
}

// TestShardsInNetworkNamespaces: the 4 shards run as separate hosts, each in a network
// namespace of its own (loopback only, made and removed here), met at a start instant.
func TestShardsInNetworkNamespaces(t *testing.T) {
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("no ip command (iproute2): network namespaces cannot be made here")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root (CI runs as root)")
	}
	names := make([]string, 4)
	for i := range names {
		names[i] = fmt.Sprintf("dbperf-shard-%d-%d", os.Getpid(), i)
		if out, err := exec.Command(ip, "netns", "add", names[i]).CombinedOutput(); err != nil {
			t.Fatalf("ip netns add %s: %v: %s", names[i], err, out)
		}
		t.Cleanup(func() { exec.Command(ip, "netns", "delete", names[i]).Run() })
		if out, err := exec.Command(ip, "netns", "exec", names[i], ip, "link", "set", "lo", "up").CombinedOutput(); err != nil {
			t.Fatalf("loopback in %s: %v: %s", names[i], err, out)
		}
	}
	base := t.TempDir()
	whole := startShards(t, filepath.Join(base, "whole"), 0, nil, nil)[0]
	dirs := startShards(t, filepath.Join(base, "sharded"), 4, nil, func(i int) []string { return []string{ip, "netns", "exec", names[i]} })
	out := filepath.Join(base, "merged")
	if _, err := Runs(out, dirs, nil); err != nil {
		t.Fatal(err)
	}
	exactlyEqual(t, whole, out)
}

// TestRefusals: what is not one run is refused with one sentence.
func TestRefusals(t *testing.T) {
	base := t.TempDir()
	s := testSynth(time.Now())
	s.perStep = 50
	write := func(name string, i, n int, edit func(*synth, *archive.Run)) string {
		dir := filepath.Join(base, name)
		c := s
		meta := archive.Run{}
		if edit != nil {
			edit(&c, &meta)
		}
		if err := c.writeShard(dir, shardSpec(i, n), 0, 0); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			m, _, _ := archive.Read(dir)
			edit(&c, &m)
			(&archive.Dir{Path: dir, Meta: m}).WriteMeta()
		}
		return dir
	}
	a0, a1 := write("a0", 0, 2, nil), write("a1", 1, 2, nil)
	cases := []struct {
		name string
		dirs []string
		want string
	}{
		{"other run", []string{a0, write("r1", 1, 2, func(_ *synth, m *archive.Run) {
			if m.Shard != nil {
				m.Shard.RunID = "another"
			}
		})}, "shards of different runs"},
		{"other seed", []string{a0, write("d1", 1, 2, func(c *synth, m *archive.Run) { c.seed, m.Seed = 7, 7 })}, "their seeds differ"},
		{"other steps", []string{a0, write("p1", 1, 2, func(_ *synth, m *archive.Run) {
			if len(m.Steps) > 1 {
				m.Steps = m.Steps[:1]
			}
		})}, "their step lists differ"},
		{"same shard twice", []string{a0, a0}, "both shard 0/2"},
		{"missing shard", []string{a0}, "missing shard 1"},
		{"overlapping work", []string{a0, write("o1", 1, 2, func(_ *synth, m *archive.Run) {
			if m.Shard != nil {
				m.Shard.Work["clients"] = [2]int64{3, 10}
			}
		})}, "their work overlaps (clients 0..4 and 3..9)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(base, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			_, err := Runs(out, c.dirs, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one sentence with %q", err, c.want)
			}
			if Exists(out) {
				t.Errorf("a refused merge left %s", out)
			}
		})
	}
	if _, err := Runs(filepath.Join(base, "ok"), []string{a1, a0}, nil); err != nil {
		t.Errorf("the shards in any order: %v", err)
	}
}

// TestMergedSLAGoodput: goodput leaves out the not-started arrivals' waits, as one host's does.
func TestMergedSLAGoodput(t *testing.T) {
	base := t.TempDir()
	whole := startShards(t, filepath.Join(base, "whole"), 0, nil, nil)[0]
	dirs := startShards(t, filepath.Join(base, "sharded"), 2, nil, nil)
	out := filepath.Join(base, "merged")
	if _, err := Runs(out, dirs, nil); err != nil {
		t.Fatal(err)
	}
	_, ws, _ := archive.Read(whole)
	_, ms, _ := archive.Read(out)
	if ws[1].Ops["query"].NotStarted == 0 {
		t.Fatal("the synthetic run has no not-started arrival: the test tests nothing")
	}
	if ws[1].SLAs[0].WithinPct != ms[1].SLAs[0].WithinPct {
		t.Errorf("within %v whole, %v merged", ws[1].SLAs[0].WithinPct, ms[1].SLAs[0].WithinPct)
	}
}

func shardSpec(i, n int) shard.Spec { return shard.Spec{Index: i, Count: n} }

// TestShardKilledInAStep: a shard killed in a step leaves its streams as .partial files and no
// summary.json; the merge keeps its seconds until then, and marks the merged step incomplete,
// naming the shard.
func TestShardKilledInAStep(t *testing.T) {
	base := t.TempDir()
	whole := startShards(t, filepath.Join(base, "whole"), 0, nil, nil)[0]
	dirs := startShards(t, filepath.Join(base, "sharded"), 4, nil, nil)
	step := filepath.Join(dirs[2], "query")
	for _, f := range []string{"intervals.csv", "latency.hlog", archive.ServiceLog} {
		if err := os.Rename(filepath.Join(step, f), filepath.Join(step, f+".partial")); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(step, "summary.json"))
	// the row being written when it was killed: half a line
	f, _ := os.OpenFile(filepath.Join(step, "intervals.csv.partial"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("4.500,17")
	f.Close()
	out := filepath.Join(base, "merged")
	meta, err := Runs(out, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ms, _ := archive.Read(out)
	_, ws, _ := archive.Read(whole)
	q := ms[1]
	if q.Complete || !strings.Contains(q.Error, "shard 2 stopped in this step") || meta.Steps[1].Complete {
		t.Errorf("merged step: complete %v, error %q", q.Complete, q.Error)
	}
	for _, op := range []string{"insert", "query"} {
		if q.Ops[op].Count != ws[1].Ops[op].Count || q.Ops[op].P99Us != ws[1].Ops[op].P99Us {
			t.Errorf("%s: %d merged, %d whole: the killed shard's seconds are lost", op, q.Ops[op].Count, ws[1].Ops[op].Count)
		}
	}
}

// TestServiceOfOldShards: a shard written before service.hlog existed has its service times only
// as percentiles, which do not add up: the merge still reads it, and leaves the op's merged
// service times out rather than give a part as the whole.
func TestServiceOfOldShards(t *testing.T) {
	base := t.TempDir()
	dirs := startShards(t, filepath.Join(base, "sharded"), 2, nil, nil)
	if err := os.Remove(filepath.Join(dirs[1], "query", archive.ServiceLog)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "merged")
	if _, err := Runs(out, dirs, nil); err != nil {
		t.Fatal(err)
	}
	_, ms, _ := archive.Read(out)
	_, s0, _ := archive.Read(dirs[0])
	if s0[1].Ops["query"].Service == nil {
		t.Fatal("shard 0 measured no service time: the test tests nothing")
	}
	if q := ms[1].Ops["query"]; q.Service != nil || q.Count == 0 {
		t.Errorf("merged query: %d queries, service %+v; want the queries and no service times", q.Count, q.Service)
	}
	if lines, err := readHlog(filepath.Join(out, "query", archive.ServiceLog)); err != nil || len(lines) > 0 {
		t.Errorf("the merged service.hlog: %d histograms (%v); want none, since shard 1's are not known", len(lines), err)
	}
}

// TestCountersKeptOnce: the DBMS's counters, which every shard sampled, are kept once in the
// merged step (shard 0's), on the merged step's clock, so that the counters' reader lines them
// up with every merged second; the other shards' stay under shard-K/. The shards' clocks are
// off by seconds, so the ticks must be moved to line up.
func TestCountersKeptOnce(t *testing.T) {
	base := t.TempDir()
	clocks := []time.Duration{2300 * time.Millisecond, 0, -1700 * time.Millisecond}
	dirs := startShards(t, filepath.Join(base, "sharded"), 3, clocks, nil)
	out := filepath.Join(base, "merged")
	meta, err := Runs(out, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range synthSteps {
		dir := filepath.Join(out, step)
		for k := range 3 {
			_, err := os.Stat(filepath.Join(dir, fmt.Sprintf("shard-%d", k), archive.CountersFile))
			if k == 0 && err == nil || k > 0 && err != nil {
				t.Errorf("step %s shard-%d/%s: %v (shard 0's is in the step's directory, the others' under shard-K)", step, k, archive.CountersFile, err)
			}
		}
		s, err := counters.LoadStep(out, meta, step)
		if err != nil {
			t.Fatal(err)
		}
		first, all := s.Values["first_client"], s.Values["op.all"]
		if len(first) == 0 || len(all) == 0 || len(s.TSec) < 4 {
			t.Fatalf("step %s: %d ticks, counters %v", step, len(s.TSec), s.Names)
		}
		for i := range s.TSec {
			if first[i] != 0 {
				t.Errorf("step %s tick %d: first_client %v; want shard 0's counters (0)", step, i, first[i])
			}
			if i > 0 && math.IsNaN(all[i]) {
				t.Errorf("step %s tick %d (t_sec %.3f): no merged op total there: the counters do not line up with the merged seconds", step, i, s.TSec[i])
			}
		}
	}
}

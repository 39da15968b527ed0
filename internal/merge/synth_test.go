package merge

import (
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/shard"
)

// The synthetic target: every operation's latency, instant and outcome are a pure function of
// the seed, the step, the global client number and the operation's number, in virtual time, so
// a run of the same total work as one shard or as N gives the same operations. A shard writes
// its directory through the archive's own StepWriter, as a session does, so the merge reads what
// a real run writes; what it cannot show is the runner's timing, which no test can make exact.

// synth is a synthetic run's size.
type synth struct {
	seed    uint64
	clients int
	perStep int           // operations per client per step
	length  time.Duration // each step's virtual length
	runID   string
	start   time.Time // the rendezvous instant every shard starts at
}

var synthOps = []measure.OpType{{Name: "insert", Unit: "rows", Abbrev: "i"}, {Name: "query", Unit: "queries", Abbrev: "q"}}

var synthSteps = []string{"load", "query"}

const synthSLA = "query:p99<3ms"

// hash64 is the synthetic target's one source of randomness.
func hash64(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return h.Sum64()
}

// op is one synthetic operation: which op type, when (from the step's start), how long, and
// whether it failed.
func (s synth) op(step string, client, k int) (o int, at, latency time.Duration, failed bool) {
	r := hash64(shard.Seed(s.seed, step, "client", client), k)
	o = 0
	if step == "query" && r%5 != 0 {
		o = 1
	}
	at = time.Duration(k)*s.length/time.Duration(s.perStep) + time.Duration(client)*time.Millisecond
	latency = time.Duration(2000 + (r>>8)%4_000_000) // 2 µs to 4 ms, spread over many buckets
	if (r>>40)%97 == 0 {
		latency += 900 * time.Millisecond // a few slow ones: the tail and the stall rule see them
	}
	return o, at, latency, (r>>50)%211 == 0
}

// writeShard writes shard sp's run directory as a dbperf run would, its clock ahead of the
// rendezvous's by clock, and starting skew after the rendezvous instant.
func (s synth) writeShard(dir string, sp shard.Spec, clock, skew time.Duration) error {
	lo, hi := sp.Range(int64(s.clients))
	meta := archive.Run{Name: "synth", Workload: "synth", Seed: s.seed, Start: s.start.Add(clock),
		Settings: map[string]any{"clients": float64(s.clients), "per_step": float64(s.perStep)},
		Figures:  archive.Figures{Ops: synthOps}, Host: archive.Host{Hostname: fmt.Sprintf("host-%d", sp.Index)}}
	if sp.Count > 0 {
		meta.Shard = &archive.Shard{Index: sp.Index, Count: sp.Count, RunID: s.runID, ClockOffsetMs: float64(clock.Milliseconds()),
			Work: map[string][2]int64{"clients": {lo, hi}}, Rendezvous: "start-at"}
	}
	d, err := archive.Create(dir, meta)
	if err != nil {
		return err
	}
	for i, step := range synthSteps {
		d.Meta.Steps = append(d.Meta.Steps, archive.StepStatus{Name: step, Dir: step})
		begin := s.start.Add(time.Duration(i)*(s.length+2*time.Second) + skew + clock)
		sum, err := s.writeStep(d, step, begin, lo, hi)
		if err != nil {
			return err
		}
		d.Meta.Steps[i].Complete = sum.Complete
	}
	d.Meta.Complete, d.Meta.End = true, s.start.Add(time.Minute+clock)
	return d.WriteMeta()
}

// writeStep runs one synthetic step of clients [lo, hi) in virtual time from begin.
func (s synth) writeStep(d *archive.Dir, step string, begin time.Time, lo, hi int64) (archive.Step, error) {
	open := step == "query"
	w, err := d.StartStepOpen(step, synthOps, begin, open)
	if err != nil {
		return archive.Step{}, err
	}
	n := int(s.length/time.Second) + 1
	ivs := make([]*measure.Interval, n)
	for j := range ivs {
		ivs[j] = measure.NewInterval(len(synthOps))
		ivs[j].Start, ivs[j].End = begin.Add(time.Duration(j)*time.Second), begin.Add(time.Duration(j+1)*time.Second)
	}
	ivs[n-1].End = begin.Add(s.length + time.Duration(s.clients)*time.Millisecond)
	stream := measure.Stream{Name: "query", Workers: int(hi - lo)}
	for c := int(lo); c < int(hi); c++ {
		for k := range s.perStep {
			o, at, lat, failed := s.op(step, c, k)
			iv := ivs[min(int(at/time.Second), n-1)]
			a := &iv.Ops[o]
			if failed {
				a.Errors++
				a.ErrorKinds = append(a.ErrorKinds[:0], measure.ErrorCount{Kind: "deadlock", Count: a.Errors, First: "deadlock detected"})
				continue
			}
			a.Hist.RecordValue(int64(lat))
			a.Units += int64(1 + 9*(1-o)) // an insert statement writes 10 rows
			a.Statements++
			if open { // the service time: the response time less a wait for a free client
				if a.Service == nil {
					a.Service = measure.NewPacked()
				}
				a.Service.RecordValue(int64(lat) - int64(lat)/int64(2+k%5))
				iv.Arrivals++
				stream.Offered++
				stream.Achieved++
			}
		}
		if open && c%3 == 0 { // one arrival of every third client never started: a lower bound
			ivs[n-1].RecordNotStarted(1, time.Duration(1000+c)*time.Microsecond)
			ivs[n-1].Arrivals++
			stream.Offered++
			stream.NotStarted++
		}
	}
	total := measure.NewInterval(len(synthOps))
	sla, _ := measure.ParseSLA(synthSLA)
	check := &measure.SLACheck{SLA: sla}
	// The DBMS's counters as this shard's monitor would read them: a gauge naming the shard (its
	// first client) and a running total, at the step's start and at each interval's end.
	cw, err := w.Counters()
	if err != nil {
		return archive.Step{}, err
	}
	kind := func(n string) archive.CounterKind {
		return map[bool]archive.CounterKind{true: archive.KindGauge, false: archive.KindCumulative}[n == "first_client"]
	}
	if err := cw.Sample(0, begin.UnixMilli(), map[string]float64{"first_client": float64(lo), "commits": 0}, false, kind); err != nil {
		return archive.Step{}, err
	}
	for _, iv := range ivs {
		total.Add(iv)
		check.Interval(iv.Ops[1].Hist)
		if err := w.Interval(iv); err != nil {
			return archive.Step{}, err
		}
		vals := map[string]float64{"first_client": float64(lo), "commits": float64(total.Ops[0].Statements + total.Ops[1].Statements)}
		if err := cw.Sample(w.TSec(iv.End), iv.End.UnixMilli(), vals, false, kind); err != nil {
			return archive.Step{}, err
		}
	}
	secs := total.Seconds()
	sum := archive.Step{Step: step, Complete: true, Verified: true, Start: total.Start, End: total.End, Seconds: measure.Round(secs, 3),
		Ops: map[string]measure.OpSummary{}, ClientCPUSec: 1, ClientCPUUsPerOp: 10,
		Host: &archive.HostSummary{Seconds: secs, ClientCPUCores: 0.1 * float64(hi-lo)}}
	if open && lo <= 7 && 7 < hi { // the host of client 7 is client-bound in the open-loop step
		sum.Host.ClientBound, sum.Host.ClientBoundWhy = true, "client 7 is slow"
	}
	for o, op := range synthOps {
		sum.Ops[op.Name] = measure.Summarize(&total.Ops[o], secs)
		sum.Errors += total.Ops[o].Errors
	}
	if open {
		stream.Overload()
		sum.OpenLoop = measure.SummarizeOpenLoop([]measure.Stream{stream}, secs)
		sum.SLAs = []measure.SLAResult{check.Result(&total.Ops[1], secs)}
		sum.Workload = map[string]any{"queries_per_sec": measure.Round(float64(total.Ops[1].Units)/secs, 3), "met": true}
	}
	return sum, w.Finish(sum)
}

// The shard processes: TestMain runs one shard when its environment names one.
const (
	envShard = "DBPERF_SYNTH_SHARD" // i/N
	envDir   = "DBPERF_SYNTH_DIR"
	envStart = "DBPERF_SYNTH_START" // unix ns of the rendezvous instant
	envClock = "DBPERF_SYNTH_CLOCK" // this host's clock offset, ns
)

func TestMain(m *testing.M) {
	if sp := os.Getenv(envShard); sp != "" {
		if err := runShardProcess(sp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runShardProcess is one shard as its own process: it waits for the start instant (--start-at),
// then writes its run directory.
func runShardProcess(spec string) error {
	sp, err := shard.Parse(spec, nil)
	if err != nil {
		return err
	}
	ns, _ := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	clock, _ := strconv.ParseInt(os.Getenv(envClock), 10, 64)
	s := testSynth(time.Unix(0, ns))
	// The clock offset is simulated in what the shard records; this host's clock is the real one.
	if err := shard.WaitUntil(s.start, 0); err != nil {
		return err
	}
	skew := time.Duration(sp.Index) * 7 * time.Millisecond // the hosts pass the barrier a little apart
	return s.writeShard(os.Getenv(envDir), sp, time.Duration(clock), skew)
}

func testSynth(start time.Time) synth {
	return synth{seed: 42, clients: 10, perStep: 2000, length: 3400 * time.Millisecond, runID: "synth-run", start: start}
}

// Package merge joins the run directories of a sharded run's shards into one run directory whose
// every figure is exact: histograms added bucket by bucket and interval by interval, per-second
// rows summed after aligning each shard's intervals by its recorded start instant, counts added,
// and each shard's provenance and host monitoring kept as they were (docs/scale-out.md). The
// reports then read the merged run like any other.
package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/measure"
)

// shardRun is one shard's directory as read.
type shardRun struct {
	dir   string
	meta  archive.Run
	steps []archive.Step
	shard archive.Shard
}

// Runs merges the shard directories into a new run directory out; command is the merge's own
// command line. It refuses, with one sentence, shards of different runs, seeds, settings or
// step lists, missing or repeated shards, and shards whose work overlaps.
func Runs(out string, dirs []string, command []string) (archive.Run, error) {
	shards := make([]shardRun, len(dirs))
	for i, d := range dirs {
		meta, steps, err := archive.Read(d)
		if err != nil {
			return archive.Run{}, err
		}
		sh := archive.Shard{Index: 0, Count: 1}
		if meta.Shard != nil {
			sh = *meta.Shard
		}
		shards[i] = shardRun{dir: d, meta: meta, steps: steps, shard: sh}
	}
	if err := check(shards); err != nil {
		return archive.Run{}, err
	}
	byIndex := make([]shardRun, len(shards))
	for _, s := range shards {
		byIndex[s.shard.Index] = s
	}
	meta := mergedMeta(out, byIndex, command)
	// The merge writes into a temporary directory beside out and renames it only when every
	// step merged: a failed merge leaves no half-written run for summary or compare to read.
	if Exists(out) {
		return archive.Run{}, fmt.Errorf("run directory %s already exists and is not empty: choose another --out or remove it", out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return archive.Run{}, fmt.Errorf("cannot create run directory: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".merging-")
	if err != nil {
		return archive.Run{}, fmt.Errorf("cannot create run directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	dir, err := archive.Create(tmp, meta)
	if err != nil {
		return archive.Run{}, err
	}
	for i, st := range byIndex[0].meta.Steps {
		sum, err := mergeStep(dir, st, i, byIndex)
		if err != nil {
			return meta, fmt.Errorf("merging step %s: %w (nothing was written to %s)", st.Name, err, out)
		}
		meta.Steps = append(meta.Steps, archive.StepStatus{Name: st.Name, Dir: st.Name, Complete: sum.Complete, Faults: sum.Faults})
	}
	dir.Meta = meta
	if err := dir.WriteMeta(); err != nil {
		return meta, err
	}
	os.Chmod(tmp, 0o755)
	os.Remove(out) // an empty directory given as --out
	if err := os.Rename(tmp, out); err != nil {
		return meta, fmt.Errorf("cannot move the merged run into %s: %w", out, err)
	}
	return meta, nil
}

// mergedMeta is the merged run.json: shard 0's workload, seed, settings, target and
// declaration; the earliest start and latest end on the rendezvous's clock; complete when every
// shard was; and every shard's own provenance in "shards".
func mergedMeta(out string, shards []shardRun, command []string) archive.Run {
	m := shards[0].meta
	m.Name, m.Command, m.Shard, m.Steps = filepath.Base(out), command, nil, nil
	m.Dbperf = archive.ThisBuild()
	m.Complete, m.Error, m.End = true, "", time.Time{}
	for i, s := range shards {
		off := offset(s.shard)
		start := s.meta.Start.Add(-off)
		if i == 0 || start.Before(m.Start) {
			m.Start = start
		}
		if !s.meta.End.IsZero() {
			m.End = latest(m.End, s.meta.End.Add(-off))
		}
		m.Complete = m.Complete && s.meta.Complete
		if s.meta.Error != "" {
			m.Error = joinErr(m.Error, fmt.Sprintf("shard %d: %s", s.shard.Index, s.meta.Error))
		}
		p := s.shard
		host, build := s.meta.Host, s.meta.Dbperf
		p.Dir, p.Host, p.Dbperf, p.Command, p.Start = s.dir, &host, &build, s.meta.Command, s.meta.Start
		m.Shards = append(m.Shards, p)
	}
	return m
}

// offset is a shard's clock offset: what its clock read minus the rendezvous's.
func offset(s archive.Shard) time.Duration {
	return time.Duration(s.ClockOffsetMs * float64(time.Millisecond))
}

// mergeStep merges step i of every shard into the merged run: intervals.csv, latency.hlog and
// service.hlog rewritten from the aligned rows, summary.json from the merged totals, and each shard's own
// host.csv, dbms.csv and summary.json (its host's figures) under shard-K/; the DBMS's counters
// once, in the step's directory (counters.go).
func mergeStep(dir *archive.Dir, st archive.StepStatus, i int, shards []shardRun) (archive.Step, error) {
	in, err := readShards(st.Name, i, shards)
	if err != nil {
		return archive.Step{}, err
	}
	steps, sums, ops, srcs := in.steps, in.sums, in.ops, in.srcs
	counters := countersShard(srcs)
	for k, s := range shards {
		if err := keepShardFiles(srcs[k], filepath.Join(dir.Path, st.Name, fmt.Sprintf("shard-%d", s.shard.Index)), k != counters); err != nil {
			return archive.Step{}, err
		}
	}
	start, ivs, _ := alignedRows(steps, ops)
	dropPartialService(ivs, ops, sums, steps)
	w, err := dir.StartStepOpen(st.Name, opTypes(ops, dir.Meta.Figures), start, in.openLoop)
	if err != nil {
		return archive.Step{}, err
	}
	totals, service, err := writeIntervals(w, ivs, len(ops))
	if err != nil {
		return archive.Step{}, err
	}
	if counters >= 0 {
		tick := tickMap(steps[counters], start, ivs, w)
		if err := writeCounters(srcs[counters], w.Dir(), tick, steps[counters].offset); err != nil {
			return archive.Step{}, fmt.Errorf("shard %d's %s: %w", shards[counters].shard.Index, archive.CountersFile, err)
		}
	}
	sum := summarize(st.Name, sums, steps, ops, totals, service, earliestStart(sums, steps), dir.Meta.Figures)
	sum.Hosts = shardHosts(shards, sums)
	sum.SLAs = mergeSLAs(sums, steps, ivs, ops, totals, sum.Seconds)
	sum.Stalls = mergeStalls(sums, ivs, ops, w)
	offsets := make([]time.Duration, len(steps))
	for k := range steps {
		offsets[k] = steps[k].offset
	}
	sum.Faults = mergeFaults(shards, sums, offsets)
	return sum, w.Finish(sum)
}

// shardInputs are step i of every shard as read: its files, its summary and the op types of
// them all, in the order first seen.
type shardInputs struct {
	steps    []shardStep
	sums     []archive.Step
	ops      []string
	srcs     []string // the shards' step directories
	openLoop bool     // a shard's rows have open-loop columns
}

// readShards reads step i, named name, of every shard. A shard killed in the step has no
// summary.json: its summary is made from its files.
func readShards(name string, i int, shards []shardRun) (shardInputs, error) {
	var in shardInputs
	seen := map[string]bool{}
	for _, s := range shards {
		src := filepath.Join(s.dir, s.meta.Steps[i].Dir)
		in.srcs = append(in.srcs, src)
		files, err := readStep(src)
		if err != nil {
			return in, err
		}
		for _, o := range files.ops {
			if !seen[o] {
				seen[o] = true
				in.ops = append(in.ops, o)
			}
		}
		for _, r := range files.rows {
			in.openLoop = in.openLoop || r.openLoop
		}
		sum := s.steps[i]
		if sum.Start.IsZero() { // no summary.json: the shard was killed in this step
			sum = files.summaryOf(name, s.shard.Index)
		}
		from := sum.Start
		if ms, ok := files.startMs(); ok {
			from = time.UnixMilli(ms)
		}
		in.steps = append(in.steps, shardStep{files: files, start: from.Add(-offset(s.shard)), offset: offset(s.shard)})
		in.sums = append(in.sums, sum)
	}
	return in, nil
}

// earliestStart is the earliest shard's summary start, on the merged run's clock.
func earliestStart(sums []archive.Step, steps []shardStep) time.Time {
	start := sums[0].Start.Add(-steps[0].offset)
	for k, s := range sums {
		if t := s.Start.Add(-steps[k].offset); t.Before(start) {
			start = t
		}
	}
	return start
}

// writeIntervals writes the merged intervals and returns each op type's response and service
// time histograms over them all.
func writeIntervals(w *archive.StepWriter, ivs []*measure.Interval, ops int) (totals, service []*hdrPacked, err error) {
	totals, service = make([]*hdrPacked, ops), make([]*hdrPacked, ops)
	for o := range ops {
		totals[o], service[o] = measure.NewPacked(), measure.NewPacked()
	}
	for _, iv := range ivs {
		for o := range ops {
			totals[o].Merge(iv.Ops[o].Hist)
			if h := iv.Ops[o].Service; h != nil {
				service[o].Merge(h)
			}
		}
		if err := w.Interval(iv); err != nil {
			return nil, nil, err
		}
	}
	return totals, service, nil
}

// shardHosts is the merged step's "hosts": each shard's host block with its index and
// hostname, and client-bound when any shard was.
func shardHosts(shards []shardRun, sums []archive.Step) *archive.ShardHosts {
	list := make([]archive.ShardHost, len(shards))
	for k, s := range shards {
		list[k] = archive.ShardHost{Shard: s.shard.Index, Hostname: s.meta.Host.Hostname, Host: sums[k].Host}
	}
	return archive.CombineHosts(list)
}

// keepShardFiles copies a shard's own host and DBMS files of a step into keep (STEP/shard-K):
// host.csv, dbms.csv, summary.json (with its host block), and its counters.csv.gz when the
// merged step does not keep that shard's as the DBMS's.
func keepShardFiles(src, keep string, counters bool) error {
	files := []string{"host.csv", "dbms.csv", "summary.json"}
	if counters {
		files = append(files, archive.CountersFile, archive.CountersFile+".partial")
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(src, f), keep); err != nil {
			return err
		}
	}
	return nil
}

// opTypes are the merged step's op types, with the declaration's units and abbreviations.
func opTypes(ops []string, figs archive.Figures) []measure.OpType {
	out := make([]measure.OpType, len(ops))
	for i, n := range ops {
		out[i] = measure.OpType{Name: n}
		for _, d := range figs.Ops {
			if d.Name == n {
				out[i] = d
			}
		}
	}
	return out
}

// Exists tells whether path holds anything: the merge, like a run, never overwrites.
func Exists(path string) bool {
	entries, err := os.ReadDir(path)
	return err == nil && len(entries) > 0
}

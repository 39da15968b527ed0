package kv_test

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dbperf/dbperf/internal/archive"
	"github.com/dbperf/dbperf/internal/driver"
	_ "github.com/dbperf/dbperf/internal/driver/kvdriver"
	_ "github.com/dbperf/dbperf/internal/driver/sqldriver"
	"github.com/dbperf/dbperf/internal/session"
	"github.com/dbperf/dbperf/internal/workload"
	"github.com/dbperf/dbperf/internal/workload/kv"
)

// notApplicable are the steps each engine cannot run as the reference means, and must say so.
var notApplicable = map[string][]string{
	"pebble":  {kv.MultiReadRandom},
	"badger":  {kv.MultiReadRandom},
	"bbolt":   {kv.MultiReadRandom, kv.FlushMTL0},
	"sqlite":  nil,
	"rocksdb": nil,
}

// TestEveryStepOnEveryEngine runs every step at tiny scale on every engine and checks the
// archive: each step complete and checked, fillseq's count, exact hit ratios, and the steps an
// engine cannot run reported as such. RocksDB runs when the test is built with -tags rocksdb.
func TestEveryStepOnEveryEngine(t *testing.T) {
	for _, kind := range []string{"pebble", "rocksdb", "badger", "bbolt", "sqlite"} {
		t.Run(kind, func(t *testing.T) {
			if kind == "rocksdb" && !withRocksDB {
				t.Skip("built without -tags rocksdb")
			}
			dir := t.TempDir()
			for _, arrival := range []workload.Arrival{{}, {Process: workload.Poisson, Rate: 2000, Seed: 1}} {
				name := "closed"
				if arrival.Open() {
					name = "poisson"
				}
				cfg := kv.DefaultConfig()
				cfg.Keys, cfg.Threads, cfg.StepSeconds, cfg.DrainSeconds = 2000, 2, 0.2, 0.2
				cfg.Seed, cfg.Arrival = 7, arrival
				cfg.Distribution = map[bool]string{false: "uniform", true: "zipfian"}[arrival.Open()]
				runKV(t, kind+":"+filepath.Join(dir, name+"-db"), filepath.Join(dir, name), cfg)
			}
		})
	}
}

func runKV(t *testing.T, target, out string, cfg kv.Config) {
	spec, err := driver.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := driver.Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b, err := kv.New(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := archive.Create(out, archive.Run{Name: filepath.Base(out), Workload: kv.Name, Target: archive.Target(tg.Info(context.Background())),
		Settings: b.Settings(), Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	s := &session.Session{Workload: b, Dir: d, Out: io.Discard, Verify: true}
	if err := s.Run(context.Background()); err != nil {
		t.Fatalf("run on %s: %v", target, err)
	}
	meta, steps, err := archive.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(kv.AllSteps) {
		t.Fatalf("%d steps archived, want %d", len(steps), len(kv.AllSteps))
	}
	for i, st := range steps {
		if st.Step != kv.AllSteps[i] || !st.Complete || !st.Verified {
			t.Errorf("step %d: %s complete=%v verified=%v error=%q", i, st.Step, st.Complete, st.Verified, st.Error)
		}
		_, na := st.Workload["not_applicable"]
		if want := slices.Contains(notApplicable[spec.Kind], st.Step); na != want {
			t.Errorf("%s: not_applicable reported %v, want %v (%v)", st.Step, na, want, st.Workload["not_applicable"])
		}
		switch st.Step {
		case kv.FillSeq:
			if got := st.Ops["put"].Count; got != cfg.Keys {
				t.Errorf("fillseq put %d keys, want %d", got, cfg.Keys)
			}
		case kv.ReadRandom, kv.ReadWhileWriting, kv.MultiReadRandom:
			if !na && st.Workload["hit_ratio"] != 1.0 {
				t.Errorf("%s hit ratio %v, want exactly 1", st.Step, st.Workload["hit_ratio"])
			}
		}
	}
	if rows := kv.ReferenceRows(meta, steps); len(rows) != len(steps) {
		t.Errorf("%d reference rows for %d steps", len(rows), len(steps))
	}
}

// TestWriterGateMissed: a writer asked for far more than any engine can put (a million MiB/s)
// misses its gate, and the step's summary.json says so with both rates: the reports then
// call the step's read figures not comparable.
func TestWriterGateMissed(t *testing.T) {
	dir := t.TempDir()
	cfg := kv.DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.StepSeconds, cfg.Seed = 2000, 2, 0.3, 7
	cfg.Steps, cfg.WriterMBps = []string{kv.FillSeq, kv.ReadWhileWriting}, 1e6
	spec, err := driver.Parse("pebble:" + filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := driver.Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b, err := kv.New(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	d, err := archive.Create(out, archive.Run{Name: "run", Workload: kv.Name, Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&session.Session{Workload: b, Dir: d, Out: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	meta, steps, err := archive.Read(out)
	if err != nil || len(steps) != 2 {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	rww := steps[1]
	if !meta.Figures.Gate.Applies(rww) || !meta.Figures.Gate.Failed(rww) || rww.Workload["writer_target_kib_sec"] != 1024e6 {
		t.Errorf("readwhilewriting with an impossible writer: gate not missed: %v", rww.Workload)
	}
	if meta.Figures.Gate.Applies(steps[0]) {
		t.Errorf("fillseq has no writer, so no gate: %v", steps[0].Workload)
	}
}

// TestOverwriteAndWaitOneRate: overwriteandwait showed two throughputs (put 47039.5/s over the
// whole step, ops_sec 63160 over the overwrite) and its own compaction wait as a stall. The put
// rate is now db_bench's ops_sec of the overwrite, and no stall lies in the wait (Pebble's
// wait is at least 1 s without a flush or compaction).
func TestOverwriteAndWaitOneRate(t *testing.T) {
	dir := t.TempDir()
	cfg := kv.DefaultConfig()
	cfg.Keys, cfg.Threads, cfg.StepSeconds, cfg.Seed = 2000, 2, 0.5, 7
	cfg.Steps = []string{kv.FillSeq, kv.OverwriteAndWait}
	spec, err := driver.Parse("pebble:" + filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := driver.Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b, err := kv.New(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	d, err := archive.Create(out, archive.Run{Name: "run", Workload: kv.Name, Figures: b.Figures()})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&session.Session{Workload: b, Dir: d, Out: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, steps, err := archive.Read(out)
	if err != nil || len(steps) != 2 {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	s := steps[1]
	wait, _ := s.Workload["wait_seconds"].(float64)
	opsSec, _ := s.Workload["ops_sec"].(float64)
	if wait < 0.5 || opsSec == 0 {
		t.Fatalf("no compaction wait or ops_sec: %v", s.Workload)
	}
	if put := s.Ops["put"].PerSec; put < opsSec*0.999 || put > opsSec*1.001 {
		t.Errorf("put %v/s and ops_sec %v: two throughputs for one step", put, opsSec)
	}
	if s.Stalls == nil {
		t.Fatal("stalls not judged")
	}
	for _, at := range s.Stalls.At {
		if at > s.Seconds-wait+0.05 {
			t.Errorf("a stall at %.3f s, inside the compaction wait (%.3f s from %.3f s)", at, wait, s.Seconds-wait)
		}
	}
}

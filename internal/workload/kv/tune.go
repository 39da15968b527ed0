package kv

import (
	"fmt"
	"strings"

	"github.com/dbperf/dbperf/internal/workload"
)

// searchOps are the steps a search can run trial after trial, with the op type of the stream it
// sets the rate of. Their stream reads: the keys and the data's size stay as they were, so the
// trials run one after another after one load. The whilewriting steps' writer overwrites keys
// that exist, at its own --writer-mbps pace; only its readers are searched.
var searchOps = map[string]string{
	ReadRandom:           opGet.Name,
	MultiReadRandom:      opMultiGet.Name,
	FwdRange:             opFwdRange.Name,
	ReadWhileWriting:     opGet.Name,
	FwdRangeWhileWriting: opFwdRange.Name,
	RevRangeWhileWriting: opRevRange.Name,
}

// notSearchable says why each other step cannot be searched.
var notSearchable = map[string]string{
	FillSeq:  "it loads the database (its length is --keys puts, not a time); it runs once before the trials (--load-steps)",
	RevRange: "it is the reference's compaction-drain step, one thread over the first 100 keys; search fwdrange or revrangewhilewriting",
	OverwriteSome: "its length is keys/10 puts, not a time, and each trial would leave compaction debt to the next " +
		"(loading again cannot undo it: fillseq overwrites the keys, it does not empty the engine)",
	OverwriteAndWait: "each trial would leave compaction debt to the next (loading again cannot undo it: fillseq overwrites " +
		"the keys, it does not empty the engine), and its compaction wait counts in its time; search readwhilewriting for reads beside writes",
	FlushMTL0: "it has no stream of operations: it is one flush and compaction",
}

// SearchableSteps are the steps a search can run, in the reference's order.
func SearchableSteps() []string {
	var out []string
	for _, s := range AllSteps {
		if searchOps[s] != "" {
			out = append(out, s)
		}
	}
	return out
}

// CheckSearch says why step cannot be searched on this engine, or nil when it can: a step that
// is no stream, or one the engine cannot run (multireadrandom without a batched read) is
// refused before the first trial, not found wanting by every trial.
func (b *Bench) CheckSearch(step string) error {
	if searchOps[step] == "" {
		why, ok := notSearchable[step]
		if !ok {
			why = "it is not a step of the key-value workload"
		}
		return fmt.Errorf("step %s cannot be searched: %s. The steps a search can run: %s", step, why, strings.Join(SearchableSteps(), ", "))
	}
	db, err := b.engine.open(b.cfg.EngineOptions(step))
	if err != nil {
		return err
	}
	why := notApplicable(step, db)
	if err := b.engine.release(); err != nil {
		return err
	}
	if why != "" {
		return fmt.Errorf("step %s cannot be searched here: %s", step, why)
	}
	return nil
}

// SetArrival implements workload.Tunable: how the next steps' readers arrive. Only a search
// tunes the bench, and its trials then share the open engine (Plan).
func (b *Bench) SetArrival(a workload.Arrival) {
	b.cfg.Arrival = a
	b.warm = true
}

// SetStepSeconds implements workload.Tunable: the length of the next time-limited steps.
func (b *Bench) SetStepSeconds(s float64) {
	b.cfg.StepSeconds = s
	b.warm = true
}

// KeepsSize implements workload.Tunable: the searchable steps read (their writer overwrites
// keys that exist), so their trials run one after another after one load.
func (b *Bench) KeepsSize(step string) bool { return searchOps[step] != "" }

// RateOps implements workload.Tunable: a searchable step's readers; the other steps have no
// stream a search could set.
func (b *Bench) RateOps(step string) []string {
	if op := searchOps[step]; op != "" {
		return []string{op}
	}
	return nil
}

// SetClients implements workload.ClientTunable: the next steps' readers (--threads).
func (b *Bench) SetClients(n int) { b.cfg.Threads = n }

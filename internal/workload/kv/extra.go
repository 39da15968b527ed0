package kv

import (
	"fmt"

	"github.com/dbperf/dbperf/internal/driver/kvdriver"
	"github.com/dbperf/dbperf/internal/measure"
	"github.com/dbperf/dbperf/internal/runner"
)

// extra is the step's figures for summary.json: the reference's summary row (docs/kv.md defines
// each column), the hit ratio of read steps, and what maintenance did.
func (st *stepState) extra(res runner.Result) (map[string]any, []string) {
	st.setWarmupAside()
	threads := max(len(st.readers), len(st.writers))
	if threads == 0 { // not run here
		threads = st.b.cfg.Threads
	}
	out := map[string]any{"test": fmt.Sprintf("%s.t%d", st.name, threads)}
	var warnings []string
	if st.notApp != "" {
		out["not_applicable"] = st.notApp
		warnings = append(warnings, st.notApp)
	}
	if len(st.actions) > 0 {
		out["actions"] = st.actions
	}
	secs := res.End.Sub(res.Start).Seconds()
	mainSecs := secs
	mainClients := st.readers
	if st.name == OverwriteAndWait {
		mainClients = st.writers
		if !st.writesEnd.IsZero() {
			mainSecs = st.writesEnd.Sub(res.Start).Seconds()
			out["wait_seconds"] = round(res.End.Sub(st.writesEnd).Seconds())
		}
	}
	var ops, found, bytes, ingest int64
	for _, c := range mainClients {
		ops, found, bytes = ops+c.ops-c.warm.ops, found+c.found-c.warm.found, bytes+c.bytes-c.warm.bytes
	}
	for _, c := range append(append([]*client(nil), st.readers...), st.writers...) {
		ingest += c.putBytes - c.warm.putBytes
	}
	if st.notApp == "" && mainSecs > 0 && ops > 0 {
		threads := float64(len(mainClients))
		out["ops_sec"] = round(float64(ops) / mainSecs)
		out["mb_sec"] = round(float64(bytes) / bytesPerMiB / mainSecs)
		out["usec_op"] = round(threads * mainSecs * 1e6 / float64(ops))
		s := measure.Summarize(&res.Total.Ops[st.main], secs)
		out["p50"], out["p99"], out["p99.9"], out["p99.99"], out["pmax"] = s.P50Us, s.P99Us, s.P999Us, s.P9999Us, s.MaxUs
	}
	if st.isRead() {
		if ops > 0 {
			out["hit_ratio"] = float64(found) / float64(ops)
			out["keys_read"], out["keys_found"] = ops, found
		}
	}
	if len(st.writers) > 0 && st.name != OverwriteAndWait {
		w := st.writers[0]
		out["writer_puts"] = w.puts - w.warm.puts
		if secs > 0 {
			out["writer_mb_sec"] = round(float64(w.putBytes-w.warm.putBytes) / bytesPerMiB / secs)
			gate, warning := writerGate(w.putBytes-w.warm.putBytes, secs, st.b.cfg.WriterMBps)
			for k, v := range gate {
				out[k] = v
			}
			if warning != "" {
				warnings = append(warnings, warning)
			}
		}
	}
	out["u_cpu"], out["s_cpu"] = round(res.CPU.User.Seconds()), round(res.CPU.System.Seconds())
	var after map[string]float64
	if m, ok := st.db.Engine.(kvdriver.Monitored); ok {
		after, _ = m.Counters()
	}
	for k, v := range engineColumns(st.before, after, float64(ingest), secs) {
		out[k] = v
	}
	return out, warnings
}

// clientProblems are the checks made while the step ran: scans in order with the requested
// count, and every key found by the read steps (the hit ratio must be exactly 1).
func (st *stepState) clientProblems() []string {
	var problems []string
	var ops, found, bad int64
	first := ""
	for _, c := range append(append([]*client(nil), st.readers...), st.writers...) {
		if c.bad > 0 && first == "" {
			first = c.firstBad
		}
		bad += c.bad
	}
	for _, c := range st.readers {
		ops, found = ops+c.ops, found+c.found
	}
	if bad > 0 {
		problems = append(problems, fmt.Sprintf("%d range scans were out of order or short; the first: %s", bad, first))
	}
	if st.isRead() && found != ops {
		problems = append(problems, fmt.Sprintf("%s found %d of %d keys read (hit ratio %.6f): every key 0..%d must exist (fillseq loads them)",
			st.name, found, ops, float64(found)/float64(ops), st.b.cfg.Keys-1))
	}
	return problems
}

// isRead tells whether the step's main op is a point read (get or multiget).
func (st *stepState) isRead() bool {
	name := st.step.Ops[st.main].Name
	return name == opGet.Name || name == opMultiGet.Name
}

// writerGate judges a whilewriting step's writer against 95% of its --writer-mbps, as the
// Insert Benchmark's q steps judge their inserts: readers that ran beside a writer that fell
// behind (bbolt's 2 MiB/s writer reached 0.37 MiB/s) had a lighter load than the other
// engines' readers, and their figures do not compare. Rates are KiB/s of key+value over the
// step's seconds, so that the gate column reads e.g. 379/2048!.
func writerGate(putBytes int64, secs, targetMBps float64) (map[string]any, string) {
	target := targetMBps * 1024
	achieved := float64(putBytes) / 1024 / secs
	met := achieved >= writerGateShare*target
	warning := ""
	if !met {
		warning = fmt.Sprintf("the writer put %.0f KiB/s, below 95%% of its %.0f KiB/s (--writer-mbps %g): read figures of this step are not comparable",
			achieved, target, targetMBps)
	}
	return map[string]any{keyWriterTarget: round(target), keyWriterAchieved: round(achieved), keyWriterMet: met}, warning
}
